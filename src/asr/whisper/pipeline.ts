/**
 * A Whisper pack as a {@link Recognizer}, for both pack layouts: a {@link WhisperBackend} encodes
 * a ≤ 30 s window (log-mel padded to 30 s → encoder) and hands out fresh window decoders; the
 * decoding (./decode.ts), previous-text context (./encode.ts) and temperature fallback as in
 * Whisper's reference decoder (./fallback.ts) are the same for every layout. Text is the joined
 * bytes of the emitted tokens, decoded once. A backend that decodes timestamp tokens also gives the
 * window's timed segments.
 */
import { SPEECH_SAMPLE_RATE } from "../../audio/speech-rate.ts";
import { WHISPER_N_FRAMES, whisperLogMel } from "../../audio/features/whisper-mel.ts";
import {
  MAX_SEGMENT_SECONDS,
  type RecognizedSegment,
  type RecognizedText,
  type RecognizeOptions,
  type Recognizer,
} from "../recognizer.ts";
import type { WhisperMeta } from "./config.ts";
import { decodeTokens, type TimestampRule, timedStretches, type WhisperWindow } from "./decode.ts";
import { promptWithContext, WhisperEncoder } from "./encode.ts";
import { compressionRatio, needsFallback, seededRandom, temperatures } from "./fallback.ts";
import { WhisperModel } from "./model.ts";
import type { WhisperConfig } from "./config.ts";
import { detokenize } from "./tokens.ts";

/** What decoding needs from a pack, whatever its layout. */
export interface WhisperDecoding {
  readonly meta: WhisperMeta;
  /** The task prompt: sot, language, task (and no_timestamps unless timestamps are decoded). */
  readonly prompt: readonly number[];
  /** Token bytes by id (special tokens have none). */
  readonly tokenBytes: ReadonlyMap<number, Uint8Array>;
  /** Set when the pack decodes timestamp tokens. */
  readonly timestamps: TimestampRule | null;
}

/**
 * One window's encoding: each call gives a decoder from the window's start (a new attempt; the
 * previous one is done with). A backend whose decoders hold worker state (the encoding and the
 * caches stay in the decoder's worker) gives `release`, which a caller calls once it has decoded.
 */
export type WhisperWindows = (() => WhisperWindow) & { release?(): void };

/** One Whisper pack's sessions, whatever its layout. */
export interface WhisperBackend {
  readonly decoding: WhisperDecoding;
  readonly provider: "cpu" | "cuda";
  /** Encodes one window's log-mel features; returns fresh decoders over that encoding. */
  encode(mel: Float32Array, frames: number): Promise<WhisperWindows>;
  release(): Promise<void>;
}

/** Runs the encoder on one window's audio (the first 30 s of `samples`). */
export function encodeWindow(backend: WhisperBackend, samples: Float32Array): Promise<WhisperWindows> {
  const mel = whisperLogMel(samples.subarray(0, WHISPER_N_FRAMES * 160), { nMels: backend.decoding.meta.nMels });
  return backend.encode(mel.data, mel.nFrames);
}

/** The sherpa-onnx layout's sessions as a {@link WhisperBackend} (explicit caches and offsets). */
export function sherpaBackend(model: WhisperModel): WhisperBackend {
  const { meta, prompt, tokenBytes } = model.config;
  return {
    decoding: { meta, prompt, tokenBytes, timestamps: null },
    provider: model.provider,
    async encode(mel, frames) {
      const run = model.startDecoding(await model.encode(mel, frames));
      const windows = () => {
        run.restart();
        return { feed: (tokens: readonly number[]) => run.feed(tokens) };
      };
      return Object.assign(windows, { release: () => run.release() });
    },
    release: () => model.release(),
  };
}

/** Characters of a prompt encoded: comfortably more than the 223 tokens the decoder keeps. */
const PROMPT_TAIL_CHARS = 2000;

/** Seed of the sampling generator (fixed: the same audio always decodes to the same text). */
const SAMPLING_SEED = 0x5a3d;

/** A Whisper pack as a {@link Recognizer}. */
export class WhisperRecognizer implements Recognizer {
  /** Whisper's fixed 30 s window (the encoder's input). */
  readonly maxSegmentSeconds = MAX_SEGMENT_SECONDS;
  private readonly encoder: WhisperEncoder;

  constructor(
    readonly name: string,
    readonly family: string,
    private readonly backend: WhisperBackend,
  ) {
    const { tokenBytes, meta } = backend.decoding;
    this.encoder = new WhisperEncoder(new Map([...tokenBytes].filter(([id]) => id < meta.eot)));
  }

  /** Loads a sherpa-onnx layout pack's sessions. */
  static async load(config: WhisperConfig, name: string, parallel = 1): Promise<WhisperRecognizer> {
    return new WhisperRecognizer(name, "whisper", sherpaBackend(await WhisperModel.load(config, name, parallel)));
  }

  get provider(): "cpu" | "cuda" {
    return this.backend.provider;
  }

  /**
   * The previous-text context: boosted phrases first (a glossary, as OpenAI advises prompting
   * Whisper with names and terms; most boosted first), then the prompt's tail. The decoder keeps
   * only the last `n_text_ctx / 2 − 1` tokens, so the prompt is cut to leave the phrases room.
   */
  private context(options: RecognizeOptions): number[] {
    // Only the context's last tokens are kept, so only the prompt's tail is worth encoding.
    const tail = options.prompt?.trim().slice(-PROMPT_TAIL_CHARS) ?? "";
    const prompt = tail !== "" ? this.encoder.encode(` ${tail}`) : [];
    const phrases = [...(options.hotwords ?? [])].filter((h) => h.boost > 0).sort((a, b) => b.boost - a.boost);
    if (phrases.length === 0) return prompt;
    const keep = Math.max(0, Math.floor(this.backend.decoding.meta.nTextCtx / 2) - 1);
    const listed = phrases
      .map((h) => h.phrase)
      .join(", ")
      .slice(0, PROMPT_TAIL_CHARS);
    const glossary = this.encoder.encode(` ${listed}.`).slice(0, keep);
    return [...glossary, ...prompt.slice(Math.max(0, prompt.length - (keep - glossary.length)))];
  }

  /**
   * One window with temperature fallback (./fallback.ts); `prompt` becomes previous-text
   * context. The decode kept reports its temperature, mean log-probability and compression ratio.
   */
  async recognize(
    samples: Float32Array,
    signal?: AbortSignal,
    options: RecognizeOptions = {},
  ): Promise<RecognizedText> {
    if (samples.length === 0) return { text: "" };
    const { meta, prompt: taskPrompt, tokenBytes, timestamps } = this.backend.decoding;
    const prompt = promptWithContext(taskPrompt, this.context(options), meta.sotPrev, meta.nTextCtx);
    const windows = await encodeWindow(this.backend, samples);
    const seconds = samples.length / SPEECH_SAMPLE_RATE;
    let kept: RecognizedText = { text: "" };
    try {
      for (const [attempt, temperature] of temperatures(options.temperature ?? 0).entries()) {
        const random = seededRandom(SAMPLING_SEED + attempt);
        const settings = { prompt, temperature, random, timestamps };
        const decoded = await decodeTokens(windows(), meta, seconds, settings, signal);
        const segments = timestamps ? timedSegments(decoded.ids, timestamps, tokenBytes, seconds) : undefined;
        const text = segments ? segments.map((s) => s.text).join(" ") : detokenize(decoded.ids, tokenBytes).trim();
        const decoding = {
          temperature,
          avgLogprob: decoded.sumLogprob / (decoded.ids.length + 1),
          compressionRatio: compressionRatio(text),
        };
        kept = { text, decoding, ...(segments ? { segments } : {}) };
        if (!needsFallback(decoding.compressionRatio, decoding.avgLogprob)) break;
      }
    } finally {
      windows.release?.();
    }
    return kept;
  }

  release(): Promise<void> {
    return this.backend.release();
  }
}

/** The timed segments of timestamp-mode ids, times clamped into the audio. */
function timedSegments(
  ids: readonly number[],
  rule: TimestampRule,
  tokenBytes: ReadonlyMap<number, Uint8Array>,
  seconds: number,
): RecognizedSegment[] {
  return timedStretches(ids, rule, seconds)
    .map((s) => ({
      text: detokenize(s.ids, tokenBytes).trim(),
      start: Math.min(s.start, seconds),
      end: Math.min(Math.max(s.end, s.start), seconds),
    }))
    .filter((s) => s.text !== "");
}
