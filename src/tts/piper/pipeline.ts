/**
 * Text → speech for one Piper/VITS voice: front-end sentences → (tashkeel for Arabic espeak
 * voices) → phonemes (libespeak-ng IPA with the pack's espeak voice, or the text's NFD code
 * points) → ids `^ _ (p _)* $` through the pack's id map → one inference per sentence with
 * scales [noise_scale, length_scale / speed, noise_w] and the speaker's sid.
 */
import { log } from "../../log/logger.ts";
import { characterSet } from "../characters.ts";
import type { AlignedAudio, CharacterSet, RenderOptions, SentenceReading } from "../renderer.ts";
import { phonemize, phonemizeSentences } from "../espeak/phonemes.ts";
import { hasPhonemeSpans, spanPieces, writtenForm } from "../frontend/phoneme-span.ts";
import { prepareText, type Sentence } from "../frontend/index.ts";
import type { Tashkeel } from "../tashkeel/model.ts";
import type { LoadedVoice, VoiceFacts } from "../voice-family.ts";
import type { Dialect } from "../types.ts";
import type { VoiceConfig } from "./config.ts";
import type { VoiceModel } from "./model.ts";

const logger = log.child({ component: "tts" });

/** Ids of a phoneme sequence and how many phonemes the map lacked. */
export interface PhonemeIds {
  readonly ids: number[];
  /** Phonemes skipped because the voice has no id for them (count only: they could spell the text). */
  readonly missing: number;
  /** For each id, the index of the phoneme it speaks (its pad included); -1 before the first, -2 after the last. */
  readonly owners: number[];
}

/**
 * Piper's id sequence: `^`, `_`, then each phoneme's ids followed by `_`, then `$`. Piper's
 * phoneme_map substitutions apply first; phonemes without an id are skipped.
 */
export function phonemesToIds(
  phonemes: readonly string[],
  config: Pick<VoiceConfig, "phonemeIdMap" | "phonemeMap">,
): PhonemeIds {
  const map = config.phonemeIdMap;
  const pad = map.get("_")!;
  const ids: number[] = [...map.get("^")!, ...pad];
  const owners: number[] = ids.map(() => -1);
  let missing = 0;
  phonemes.forEach((original, index) => {
    for (const phoneme of config.phonemeMap.get(original) ?? [original]) {
      const symbol = map.get(phoneme);
      if (symbol === undefined) {
        missing++;
        continue;
      }
      ids.push(...symbol, ...pad);
      while (owners.length < ids.length) owners.push(index);
    }
  });
  ids.push(...map.get("$")!);
  while (owners.length < ids.length) owners.push(-2);
  return { ids, missing, owners };
}

/**
 * The sid for a request: a speaker named after the dialect ("ar-hijazi" or "hijazi") or the voice
 * ("Yara"), case-insensitively, else speaker 0. This is how one multi-speaker pack carries
 * several dialects.
 */
export function speakerFor(
  speakerIdMap: Readonly<Record<string, number>>,
  options: Pick<RenderOptions, "voice" | "dialect">,
): number {
  const names = new Map(Object.entries(speakerIdMap).map(([name, sid]) => [name.toLowerCase(), sid]));
  for (const wanted of [options.dialect, options.dialect.replace(/^ar-/, ""), options.voice.toLowerCase()]) {
    const sid = names.get(wanted);
    if (sid !== undefined) return sid;
  }
  return 0;
}

/** A Piper or sherpa-onnx VITS voice ready to speak. */
export class PiperVoice implements LoadedVoice {
  readonly engine;
  readonly sampleRate: number;
  readonly characters: CharacterSet | undefined;
  private readonly diacritize: ((text: string) => Promise<string>) | undefined;

  constructor(
    readonly config: VoiceConfig,
    private readonly model: VoiceModel,
    tashkeel?: Tashkeel,
  ) {
    this.engine = config.family;
    this.sampleRate = config.sampleRate;
    // Piper diacritises only for its Arabic espeak voices: text voices read letters as written.
    const arabicEspeak = config.phonemeType === "espeak" && /^ar\b/i.test(config.espeakVoice);
    this.diacritize = tashkeel && arabicEspeak ? (text) => tashkeel.diacritize(text) : undefined;
    // A text voice speaks only its vocabulary's characters; espeak phonemes read any script.
    this.characters =
      config.phonemeType === "text"
        ? characterSet(config.phonemeIdMap.keys(), config.phonemeMap, (sentence) => textSymbols(sentence.text))
        : undefined;
  }

  /** Size of the speaker embedding the model takes (cloned voices, D17); undefined when none. */
  get embeddingDim(): number | undefined {
    return this.model.embeddingDim;
  }

  /** Where the session runs. */
  get provider(): string {
    return this.model.provider;
  }

  /** What health details show about the pack. */
  get facts(): VoiceFacts {
    const { family, sampleRate, phonemeType, numSpeakers } = this.config;
    return { family, sampleRate, phonemeType, speakers: numSpeakers, embeddingDim: this.model.embeddingDim };
  }

  sentences(text: string, dialect?: Dialect | "en"): Sentence[] {
    return prepareText(text, this.config.language, { dialect });
  }

  async render(sentence: Sentence, options: RenderOptions): Promise<Float32Array> {
    return (await this.renderAligned(sentence, options)).pcm;
  }

  async renderAligned(sentence: Sentence, options: RenderOptions): Promise<AlignedAudio> {
    const { phonemes } = await this.read(sentence);
    const { ids, missing, owners } = phonemesToIds(phonemes, this.config);
    if (missing > 0) logger.debug("phonemes without an id skipped", { count: missing });
    if (ids.length <= 3) return { pcm: new Float32Array(0), phonemes };
    const { audio, durations } = await this.model.inferAligned(ids, {
      lengthScale: this.config.inference.lengthScale / options.speed,
      sid: speakerFor(this.config.speakerIdMap, options),
      embedding: options.embedding,
    });
    if (durations === undefined) return { pcm: audio, phonemes };
    // Each phoneme lasts its ids and their pads; the start symbol's time comes before the first.
    const perPhoneme = phonemes.map(() => 0);
    let lead = 0;
    owners.forEach((owner, i) => {
      if (owner >= 0) perPhoneme[owner]! += durations[i]!;
      else if (owner === -1) lead += durations[i]!;
    });
    return { pcm: audio, phonemes, durations: perPhoneme, lead };
  }

  /** The sentence's phonemes as Piper would produce them. */
  async phonemes(sentence: Sentence): Promise<string[]> {
    return [...(await this.read(sentence)).phonemes];
  }

  /** The diacritised sentence (Arabic espeak voices) and the phonemes the model is fed. */
  async read(sentence: Sentence): Promise<SentenceReading> {
    let input = sentence;
    if (this.diacritize) {
      const clauses = await Promise.all(
        sentence.clauses.map(async (clause) => ({ ...clause, text: await this.diacritize!(clause.text) })),
      );
      input = { ...sentence, clauses, text: clauses.map((c) => c.text).join(" ") };
    }
    const diacritized = input.text;
    if (this.config.phonemeType === "text") return { diacritized, phonemes: textSymbols(diacritized) };
    if (hasPhonemeSpans(diacritized)) return { diacritized, phonemes: await this.phonemesWithSpans(input) };
    return { diacritized, phonemes: (await phonemizeSentences([input], this.config.espeakVoice))[0] ?? [] };
  }

  /** Phonemes of a sentence holding IPA spans (SSML `<phoneme>`, IPA lexicon entries): fed as written. */
  private async phonemesWithSpans(sentence: Sentence): Promise<string[]> {
    const out: string[] = [];
    for (const clause of sentence.clauses) {
      for (const piece of spanPieces(clause.text)) {
        if (out.length > 0 && out[out.length - 1] !== " ") out.push(" ");
        if (piece.kind === "ipa") out.push(...Array.from(piece.ipa));
        else if (piece.text.trim() !== "")
          out.push(...(await phonemize(piece.text, this.config.espeakVoice, Number.MAX_SAFE_INTEGER)).flat());
      }
    }
    return out;
  }

  release(): Promise<void> {
    return this.model.release();
  }
}

/** A text voice's symbols: the written text's NFD code points. */
function textSymbols(text: string): string[] {
  return Array.from(writtenForm(text).normalize("NFD"));
}
