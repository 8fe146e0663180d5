/**
 * The embedded engine (D5): libespeak-ng's own formant voices, used when no neural pack can speak
 * a request. Yara, Sherine and Myriam are distinct Arabic espeak variants, Yara_en an English one
 * (ESPEAK_VOICE_PROFILES), so a fresh install answers every voice with real speech. Arabic
 * sentences are diacritised first (the built-in libtashkeel model unless a pack replaces it),
 * because espeak-ng reads undiacritised Arabic poorly.
 */
import type { RenderOptions, SentenceReading, VoiceRenderer } from "./renderer.ts";
import { phonemize } from "./espeak/phonemes.ts";
import { ESPEAK_VOICE_PROFILES, synthesizeEspeak } from "./espeak/synth.ts";
import { prepareText, type Sentence } from "./frontend/index.ts";
import { writtenForm } from "./frontend/phoneme-span.ts";
import type { Tashkeel } from "./tashkeel/model.ts";
import type { BuiltinVoice, Dialect } from "./types.ts";
import { VOICE_SPECS } from "./voice-resolution.ts";

/** espeak-ng 1.51's output rate, used until the library reports its own (probeEspeak). */
export const ESPEAK_SAMPLE_RATE = 22050;

/** espeak-ng speaking one built-in voice. */
export class EspeakVoice implements VoiceRenderer {
  readonly engine = "espeak-ng" as const;

  constructor(
    readonly voice: BuiltinVoice,
    readonly sampleRate: number = ESPEAK_SAMPLE_RATE,
    private readonly diacritiser?: Tashkeel,
  ) {}

  sentences(text: string, dialect?: Dialect | "en"): Sentence[] {
    return prepareText(text, VOICE_SPECS[this.voice].language, { dialect });
  }

  /**
   * The text espeak-ng is handed for `sentence`: diacritised for the Arabic voices; IPA spans
   * read as written (espeak-ng takes no IPA input).
   */
  async spokenText(sentence: Sentence): Promise<string> {
    const arabic = VOICE_SPECS[this.voice].language === "ar";
    return writtenForm(arabic && this.diacritiser ? await this.diacritiser.diacritize(sentence.text) : sentence.text);
  }

  async read(sentence: Sentence): Promise<SentenceReading> {
    const diacritized = await this.spokenText(sentence);
    // The IPA espeak-ng makes of the text it is handed (its voice without the variant).
    const espeakVoice = ESPEAK_VOICE_PROFILES[this.voice].voice.split("+")[0]!;
    const phonemes = (await phonemize(diacritized, espeakVoice, Number.MAX_SAFE_INTEGER)).flat();
    return { diacritized, phonemes };
  }

  async render(sentence: Sentence, options: RenderOptions): Promise<Float32Array> {
    const text = await this.spokenText(sentence);
    const audio = await synthesizeEspeak(text, ESPEAK_VOICE_PROFILES[this.voice], { speed: options.speed });
    if (audio.sampleRate !== this.sampleRate)
      throw new Error(`espeak-ng produced ${audio.sampleRate} Hz, expected ${this.sampleRate}`);
    const out = new Float32Array(audio.samples.length);
    for (let i = 0; i < out.length; i++) out[i] = audio.samples[i]! / 32768;
    return out;
  }

  async release(): Promise<void> {}
}
