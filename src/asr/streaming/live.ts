/**
 * A live transcription over an OFFLINE recogniser (Whisper, NeMo CTC, Moonshine…): turn
 * detection (./endpointer.ts) or client commits cut the stream into utterances; while one is
 * open it is re-decoded every `partialIntervalMs` of audio (partial results), and when it ends it
 * is transcribed as a file of that audio would be (the final). With a native streaming recogniser
 * the same session cuts the utterances and ./native.ts decodes each as one model stream.
 */
import { SPEECH_SAMPLE_RATE } from "../../audio/speech-rate.ts";
import type { LiveEvent, LiveTranscription, LiveTranscriptionOptions } from "../../core/asr.ts";
import { AppError } from "../../errors/taxonomy.ts";
import { VAD_WINDOW, type VadStream } from "../recognizer.ts";
import { Endpointer, MAX_UTTERANCE_SECONDS } from "./endpointer.ts";
import { SampleBuffer } from "../vad/pipeline.ts";

/** Decodes utterances for a live transcription (the ASR service provides it). */
export interface UtteranceDecoder {
  /** The utterance as a file of it is transcribed (segmentation, dialect, recogniser). */
  final(samples: Float32Array, signal?: AbortSignal): Promise<{ text: string; dialect: string | null }>;
  /** A quick hypothesis of the open utterance; "" when skipped (engine busy). */
  partial(samples: Float32Array, signal?: AbortSignal): Promise<string>;
}

/** Shortest audio a client commit may carry (OpenAI refuses an empty or tiny buffer too). */
export const MIN_COMMIT_MS = 100;

const ms = (samples: number) => Math.round((samples * 1000) / SPEECH_SAMPLE_RATE);
const seconds = (samples: number) => Math.round((samples / SPEECH_SAMPLE_RATE) * 1000) / 1000;

/** See the file comment. */
export class OfflineLiveTranscription implements LiveTranscription {
  private readonly audio = new SampleBuffer();
  private readonly endpointer: Endpointer | null;
  private readonly partialGap: number;
  private scored = 0;
  /** Start of the audio not yet committed. */
  private pendingStart = 0;
  private partialAt = 0;
  /** Audio between partials now: the configured interval, or twice the last partial's decode time if longer. */
  private gap = 0;
  private lastPartial = "";

  constructor(
    vad: VadStream | null,
    private readonly options: LiveTranscriptionOptions,
    private readonly decoder: UtteranceDecoder,
    private readonly emit: (event: LiveEvent) => void,
    private readonly signal?: AbortSignal,
  ) {
    this.endpointer = options.turnDetection && vad ? new Endpointer(vad, options.turnDetection) : null;
    this.partialGap = Math.round((options.partialIntervalMs * SPEECH_SAMPLE_RATE) / 1000);
    this.gap = this.partialGap;
  }

  get pendingMs(): number {
    return ms(this.audio.end - this.pendingStart);
  }

  async push(chunk: Float32Array): Promise<void> {
    this.audio.append(chunk);
    const endpointer = this.endpointer;
    if (endpointer) {
      // Every window this chunk completes is scored in one detector call, then decided in order.
      const from = this.scored;
      const count = Math.floor((this.audio.end - from) / VAD_WINDOW);
      const windows = Array.from({ length: count }, (_, i) =>
        this.audio.slice(from + i * VAD_WINDOW, from + (i + 1) * VAD_WINDOW),
      );
      const scores = count > 0 ? await endpointer.probabilities(windows) : [];
      for (const [i, p] of scores.entries()) {
        this.signal?.throwIfAborted();
        const change = endpointer.decide(p, from + i * VAD_WINDOW);
        this.scored += VAD_WINDOW;
        if (change?.type === "start") {
          this.pendingStart = change.at;
          this.partialAt = this.scored;
          this.gap = this.partialGap;
          this.lastPartial = "";
          this.emit({ type: "speech_started", audioStartMs: ms(change.at) });
        } else if (change?.type === "end") await this.endUtterance(this.pendingStart, change.at, true);
      }
    }
    await this.maybePartial();
    this.forget();
  }

  async commit(): Promise<void> {
    const end = this.audio.end;
    const start = this.endpointer?.openStart ?? this.pendingStart;
    if (end - start < (MIN_COMMIT_MS * SPEECH_SAMPLE_RATE) / 1000) {
      throw new AppError(
        "bad_request",
        "Error committing input audio buffer: buffer too small. " +
          `Expected at least ${MIN_COMMIT_MS}ms of audio, but buffer only has ${ms(Math.max(0, end - start))}ms of audio.`,
      );
    }
    const open = this.endpointer?.openStart !== null && this.endpointer !== null;
    this.endpointer?.close(end);
    this.scored = Math.max(this.scored, end);
    await this.endUtterance(start, end, open);
  }

  clear(): void {
    const end = this.audio.end;
    this.endpointer?.reset(end);
    this.scored = Math.max(this.scored, end);
    this.pendingStart = end;
    this.lastPartial = "";
    this.forget();
  }

  async finish(): Promise<void> {
    const endpointer = this.endpointer;
    const end = this.audio.end;
    if (endpointer) {
      const open = endpointer.openStart;
      if (open !== null) {
        endpointer.close(end);
        await this.endUtterance(open, end, true);
      }
    } else if (end - this.pendingStart >= (MIN_COMMIT_MS * SPEECH_SAMPLE_RATE) / 1000) {
      await this.endUtterance(this.pendingStart, end, false);
    }
  }

  private async endUtterance(start: number, end: number, spoken: boolean): Promise<void> {
    if (spoken) this.emit({ type: "speech_stopped", audioEndMs: ms(end) });
    this.emit({ type: "committed", audioStartMs: ms(start), audioEndMs: ms(end) });
    const samples = this.audio.slice(start, end);
    this.pendingStart = end;
    this.partialAt = end;
    this.lastPartial = "";
    const started = performance.now();
    const result = await this.decoder.final(samples, this.signal);
    const computeSeconds = (performance.now() - started) / 1000;
    this.emit({
      type: "final",
      text: result.text,
      start: seconds(start),
      end: seconds(end),
      dialect: result.dialect,
      computeSeconds,
    });
  }

  /** Re-decodes the open utterance when another `partialIntervalMs` of it arrived. */
  private async maybePartial(): Promise<void> {
    if (this.partialGap <= 0) return;
    const open = this.endpointer
      ? this.endpointer.openStart
      : this.pendingStart < this.audio.end
        ? this.pendingStart
        : null;
    const end = this.audio.end;
    if (open === null || end - Math.max(open, this.partialAt) < this.gap) return;
    this.partialAt = end;
    const from = Math.max(open, end - MAX_UTTERANCE_SECONDS * SPEECH_SAMPLE_RATE);
    const started = performance.now();
    const text = await this.decoder.partial(this.audio.slice(from, end), this.signal);
    // Re-decoding grows with the utterance: a recogniser slower than the interval would fall ever
    // further behind the caller, so partials are spaced to at least twice their own decode time.
    const decodeSamples = ((performance.now() - started) / 1000) * SPEECH_SAMPLE_RATE;
    this.gap = Math.max(this.partialGap, Math.round(2 * decodeSamples));
    if (text === "" || text === this.lastPartial) return;
    this.lastPartial = text;
    this.emit({ type: "partial", text, start: seconds(open), end: seconds(end) });
  }

  private forget(): void {
    const open = this.endpointer?.openStart ?? null;
    // Keep the prefix padding a future utterance may reach back to, and everything not yet committed.
    const padding = Math.round(((this.options.turnDetection?.prefixPaddingMs ?? 0) * SPEECH_SAMPLE_RATE) / 1000);
    const keep = this.endpointer ? Math.min(open ?? Infinity, this.scored - padding - VAD_WINDOW) : this.pendingStart;
    this.audio.dropBefore(Math.max(0, keep));
  }
}
