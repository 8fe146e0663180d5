/**
 * The embedded engine (D5): libespeak-ng's own formant voices, used when no neural pack can speak
 * a request. Yara, Sherine and Myriam are distinct Arabic espeak variants, Yara_en an English one
 * (ESPEAK_VOICE_PROFILES), so a fresh install answers every voice with real speech.
 */
import type { RenderOptions, VoiceRenderer } from "./engine.ts";
import { ESPEAK_VOICE_PROFILES, synthesizeEspeak } from "./espeak/synth.ts";
import { prepareText, type Sentence } from "./frontend/index.ts";
import type { BuiltinVoice } from "./types.ts";
import { VOICE_SPECS } from "./voices.ts";

/** espeak-ng 1.51's output rate, used until the library reports its own (probeEspeak). */
export const ESPEAK_SAMPLE_RATE = 22050;

/** espeak-ng speaking one built-in voice. */
export class EspeakVoice implements VoiceRenderer {
  readonly engine = "espeak-ng" as const;

  constructor(
    readonly voice: BuiltinVoice,
    readonly sampleRate: number = ESPEAK_SAMPLE_RATE,
  ) {}

  sentences(text: string): Sentence[] {
    return prepareText(text, VOICE_SPECS[this.voice].language);
  }

  async render(sentence: Sentence, options: RenderOptions): Promise<Float32Array> {
    const audio = await synthesizeEspeak(sentence.text, ESPEAK_VOICE_PROFILES[this.voice], { speed: options.speed });
    if (audio.sampleRate !== this.sampleRate) throw new Error(`espeak-ng produced ${audio.sampleRate} Hz, expected ${this.sampleRate}`);
    const out = new Float32Array(audio.samples.length);
    for (let i = 0; i < out.length; i++) out[i] = audio.samples[i]! / 32768;
    return out;
  }

  async release(): Promise<void> {}
}
