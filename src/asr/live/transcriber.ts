/**
 * THE live transcriber: every live door (gRPC StreamingRecognize, the realtime WebSocket,
 * jambonz, and the doors to come) runs its calls on it, through the session (./session.ts) that
 * decodes their audio. 16 kHz audio goes in; utterances are cut by the one endpointer
 * (../vad/endpointer.ts `Endpointer`: the file's segmentation rule, or turn-detection settings) or by
 * client commits; the open utterance is decoded again every `partialIntervalMs` (partials) and
 * each ended utterance once more (the final), by the decoder driver (./decoders.ts). The call's
 * dialect is decided by the file path's rule over the speech heard so far (./call-dialect.ts),
 * routes the recogniser, and labels every final. Events come out in audio order (../../core/asr.ts
 * `LiveEvent`).
 */
import { msOf, samplesOfMs, secondsOf, SPEECH_SAMPLE_RATE } from "../../audio/speech-rate.ts";
import type { LiveEvent, LiveTranscription, LiveTranscriptionOptions, TranscriptWord } from "../../core/asr.ts";
import type { CallOptions } from "../../core/call.ts";
import { AppError } from "../../errors/taxonomy.ts";
import { Endpointer, SampleBuffer, type TurnChange } from "../vad/endpointer.ts";
import type { SegmenterOptions, SpeechSpan } from "../vad/segmenter.ts";
import { VAD_WINDOW } from "../recognizer.ts";
import { LiveCallDialect } from "./call-dialect.ts";
import { utteranceDecoder, type UtteranceDecoder } from "./decoders.ts";
import type { LivePort } from "./port.ts";

/** Shortest audio a client commit may carry (OpenAI refuses an empty or tiny buffer too). */
export const MIN_COMMIT_MS = 100;
/** Longest utterance: the endpointer cuts speech that runs on, and a partial never decodes more. */
export const MAX_UTTERANCE_SECONDS = 30;
/** How far below `threshold` a window must fall to count as silence (Silero's hysteresis). */
const RELEASE_MARGIN = 0.15;

/** The endpointer's segmentation for a call's options; null when the client commits. */
function segmentation(options: LiveTranscriptionOptions): Partial<SegmenterOptions> | null {
  if (options.endpointing === "segments") return { maxSegmentSeconds: MAX_UTTERANCE_SECONDS };
  const turns = options.turnDetection;
  if (turns === null) return null;
  return {
    threshold: turns.threshold,
    negThreshold: Math.max(0, turns.threshold - RELEASE_MARGIN),
    minSpeechMs: 0,
    minSilenceMs: turns.silenceDurationMs,
    speechPadMs: turns.prefixPaddingMs,
    maxSegmentSeconds: MAX_UTTERANCE_SECONDS,
    trailing: "silence",
  };
}

const roundWord = (w: TranscriptWord, offset: number, end: number): TranscriptWord => ({
  word: w.word,
  start: Math.min(end, Math.round((offset + w.start) * 1000) / 1000),
  end: Math.min(end, Math.round((offset + w.end) * 1000) / 1000),
});

/** See the file comment. Open through the ASR service's `openLive`. */
export class LiveTranscriber implements LiveTranscription {
  private readonly audio = new SampleBuffer();
  private readonly endpointer: Endpointer | null;
  private readonly dialect: LiveCallDialect;
  private readonly decoder: UtteranceDecoder;
  private readonly partialGap: number;
  /** Start of the audio not yet committed (client commits) or of the open utterance. */
  private pendingStart = 0;
  private partialAt = 0;
  /** Audio between partials now: the configured interval, or twice the last partial's decode time if longer. */
  private gap: number;
  private lastPartial = "";
  /** Audio a future utterance may reach back to before the window that starts it. */
  private readonly reach: number;
  /** End (samples) of the last final's last word, while an `utterance_end` is owed for it. */
  private lastWordEnd: number | null = null;
  /** A partial showed words its final has not yet settled (an utterance end waits for it). */
  private wordsOpen = false;

  constructor(
    private readonly engine: LivePort,
    private readonly options: LiveTranscriptionOptions,
    private readonly emit: (event: LiveEvent) => void,
    private readonly call: CallOptions = {},
    /** Called once when the call finishes (the service's memory reservation). */
    private readonly release: () => void = () => {},
  ) {
    const segmenter = segmentation(options);
    this.endpointer = segmenter ? new Endpointer(engine.detector, segmenter) : null;
    this.reach = samplesOfMs(segmenter?.speechPadMs ?? 30) + VAD_WINDOW;
    this.dialect = new LiveCallDialect(engine.dialectIdentifier, engine.dialectSeconds);
    this.decoder = utteranceDecoder(engine, engine.recognizerFor(null, options.language), call);
    this.partialGap = samplesOfMs(options.partialIntervalMs);
    this.gap = this.partialGap;
  }

  get pendingMs(): number {
    return msOf(this.audio.end - this.pendingStart);
  }

  async push(chunk: Float32Array): Promise<void> {
    this.audio.append(chunk);
    if (this.endpointer) await this.apply(await this.endpointer.advance(this.audio, this.call.signal));
    await this.maybePartial();
    this.maybeUtteranceEnd();
    this.forget();
  }

  async commit(): Promise<void> {
    const end = this.audio.end;
    const open = this.endpointer?.openStart ?? null;
    const start = open ?? this.pendingStart;
    if (end - start < samplesOfMs(MIN_COMMIT_MS)) {
      throw new AppError(
        "bad_request",
        "Error committing input audio buffer: buffer too small. " +
          `Expected at least ${MIN_COMMIT_MS}ms of audio, but buffer only has ${msOf(Math.max(0, end - start))}ms of audio.`,
      );
    }
    this.endpointer?.close(end);
    await this.endUtterance({ start, end }, open !== null);
  }

  clear(): void {
    const end = this.audio.end;
    this.endpointer?.reset(end);
    this.pendingStart = end;
    this.lastPartial = "";
    this.forget();
  }

  async finish(): Promise<void> {
    try {
      const end = this.audio.end;
      if (this.endpointer) {
        const scoreTail = this.options.endpointing === "segments";
        await this.apply(await this.endpointer.finish(this.audio, scoreTail, this.call.signal));
      } else if (end - this.pendingStart >= samplesOfMs(MIN_COMMIT_MS)) {
        await this.endUtterance({ start: this.pendingStart, end }, false);
      }
    } finally {
      this.release();
    }
  }

  /** The endpointer's decisions as events, in order: each ended utterance gets its final. */
  private async apply(changes: readonly TurnChange[]): Promise<void> {
    for (const change of changes) {
      this.call.signal?.throwIfAborted();
      if (change.type === "start") {
        this.pendingStart = change.at;
        this.partialAt = change.at;
        this.gap = this.partialGap;
        this.lastPartial = "";
        this.emit({ type: "speech_started", audioStartMs: msOf(change.at) });
      } else await this.endUtterance(change.span, true);
    }
  }

  private async endUtterance(span: SpeechSpan, spoken: boolean): Promise<void> {
    const { start, end } = span;
    if (spoken) this.emit({ type: "speech_stopped", audioEndMs: msOf(end) });
    this.emit({ type: "committed", audioStartMs: msOf(start), audioEndMs: msOf(end) });
    const samples = this.audio.slice(start, end);
    this.pendingStart = Math.max(this.pendingStart, end);
    this.partialAt = end;
    this.lastPartial = "";
    const started = performance.now();
    const run = <T>(job: () => Promise<T>) => this.engine.admitted(job, this.call);
    const decision = await this.dialect.hear(samples, run, this.call.signal);
    const recognizer = this.engine.recognizerFor(decision?.dialect ?? null, this.options.language);
    const wholeSpan = this.options.endpointing === "segments";
    const result = await this.decoder.final(samples, recognizer, wholeSpan);
    const at = start / SPEECH_SAMPLE_RATE;
    const stop = secondsOf(end);
    this.wordsOpen = false;
    if (result.text !== "") {
      const lastWord = result.words?.at(-1);
      this.lastWordEnd = lastWord ? Math.min(end, start + Math.round(lastWord.end * SPEECH_SAMPLE_RATE)) : end;
    }
    this.emit({
      type: "final",
      text: result.text,
      start: secondsOf(start),
      end: stop,
      dialect: decision?.dialect ?? null,
      ...(decision ? { dialectConfidence: decision.confidence } : {}),
      ...(result.words ? { words: result.words.map((w) => roundWord(w, at, stop)) } : {}),
      ...(result.confidence !== undefined ? { confidence: result.confidence } : {}),
      computeSeconds: (performance.now() - started) / 1000,
    });
  }

  /** Re-decodes the open utterance when another `partialIntervalMs` of it arrived. */
  private async maybePartial(): Promise<void> {
    if (this.partialGap <= 0) return;
    const end = this.audio.end;
    const open = this.endpointer ? this.endpointer.openStart : this.pendingStart < end ? this.pendingStart : null;
    if (open === null || end - Math.max(open, this.partialAt) < this.gap) return;
    this.partialAt = end;
    const from = Math.max(open, end - MAX_UTTERANCE_SECONDS * SPEECH_SAMPLE_RATE);
    const started = performance.now();
    const recognizer = this.engine.recognizerFor(this.dialect.decision?.dialect ?? null, this.options.language);
    const text = await this.decoder.partial(this.audio.slice(from, end), recognizer);
    // Re-decoding grows with the utterance: a recogniser slower than the interval would fall ever
    // further behind the caller, so partials are spaced to at least twice their own decode time.
    const decodeSamples = ((performance.now() - started) / 1000) * SPEECH_SAMPLE_RATE;
    this.gap = Math.max(this.partialGap, Math.round(2 * decodeSamples));
    if (text === "" || text === this.lastPartial) return;
    this.lastPartial = text;
    this.wordsOpen = true;
    const dialect = this.dialect.decision?.dialect ?? null;
    this.emit({ type: "partial", text, start: secondsOf(open), end: secondsOf(end), dialect });
  }

  /** Says an utterance ended once `utteranceEndMs` of audio followed the last final's words with none new. */
  private maybeUtteranceEnd(): void {
    const gap = this.options.utteranceEndMs;
    const last = this.lastWordEnd;
    // Without partials nothing says whether open speech has words yet: it is taken to have some.
    const unheard = this.partialGap <= 0 && (this.endpointer?.openStart ?? null) !== null;
    if (gap === undefined || last === null || this.wordsOpen || unheard) return;
    if (this.audio.end - last < samplesOfMs(gap)) return;
    this.lastWordEnd = null;
    this.emit({ type: "utterance_end", lastWordEnd: Math.round(secondsOf(last) * 1000) / 1000 });
  }

  /** Keeps the prefix padding a future utterance may reach back to, and everything not yet ended. */
  private forget(): void {
    const endpointer = this.endpointer;
    if (!endpointer) {
      this.audio.dropBefore(this.pendingStart);
      return;
    }
    const keep = Math.min(endpointer.openStart ?? Infinity, endpointer.scored - this.reach);
    this.audio.dropBefore(Math.max(0, keep));
  }
}
