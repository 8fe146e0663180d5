/**
 * The ASR service behind every front door (REST, gRPC, `sawt asr`). A request's audio is decoded
 * by the hardened ffmpeg path, cut into ≤ 30 s speech segments (Silero VAD when a pack is
 * installed, an energy splitter otherwise), its dialect identified from the first segment when a
 * dialect-id pack is installed (which may route it to a dialect-specific recogniser), and each
 * segment recognised in order. Streams go through the very same segmentation, so a stream's final
 * results are the segments a file upload of the same audio yields.
 */
import { SPEECH_SAMPLE_RATE } from "../audio/speech-rate.ts";
import { decodeAudioChunks } from "../audio/decode.ts";
import { PCM_BYTES_PER_SECOND, type PcmBudget, type PcmHold } from "../audio/pcm-budget.ts";
import { AppError } from "../errors/taxonomy.ts";
import type { Admission } from "../runtime/admission.ts";
import type { CallOptions } from "../core/call.ts";
import type { LoadedAsrPacks } from "./packs.ts";
import type { Recognizer, VoiceActivityDetector } from "./recognizer.ts";
import type { AsrService, StreamingResult, Transcript, TranscriptSegment } from "./types.ts";
import { createEnergyDetector } from "./vad/energy.ts";
import { SpeechTracker, type SpeechPiece } from "./vad/pipeline.ts";
import type { SegmenterOptions } from "./vad/segmenter.ts";

/** Audio between two interim results of a stream. */
export const INTERIM_SECONDS = 1;

/** Hears the inference time (seconds, queue wait excluded) and the audio seconds of each transcription. */
export type InferenceObserver = (seconds: number, audioSeconds: number) => void;

/** What the service is built from. */
export interface AsrServiceOptions {
  readonly packs: LoadedAsrPacks;
  /** Recogniser used when no dialect route applies. */
  readonly defaultRecognizer: Recognizer;
  /** Dialect → recogniser for dialect-specific packs. */
  readonly dialectRoutes: ReadonlyMap<string, Recognizer>;
  readonly admission: Admission;
  /** Upload decoding: limits and the private directory decoded PCM is spooled to. */
  readonly decode: { readonly maxDurationSeconds: number; readonly timeoutMs: number; readonly spoolDir: string };
  /**
   * Decoded-audio memory (issue #16): every request reserves `requestSeconds` of float PCM (a file
   * or stream never holds more: the longest segment, its pad and one decode chunk) from `budget`
   * before it holds any; raw samples reserve their own length. Over budget → 503 busy.
   */
  readonly memory: { readonly budget: PcmBudget; readonly requestSeconds: number };
  readonly segmenter?: Partial<SegmenterOptions>;
  readonly observe?: InferenceObserver;
}

const seconds = (samples: number) => Math.round((samples / SPEECH_SAMPLE_RATE) * 1000) / 1000;

/** One-second views of `samples`, so segmentation never copies the whole recording at once. */
function* secondsOf(samples: Float32Array): Iterable<Float32Array> {
  for (let at = 0; at < samples.length; at += SPEECH_SAMPLE_RATE) yield samples.subarray(at, at + SPEECH_SAMPLE_RATE);
}

/** Recognition state shared by the segments of one request or stream. */
interface Session {
  dialect: string | null | undefined;
  recognizer: Recognizer;
}

/** The {@link AsrService} over loaded packs. */
export class AsrEngineService implements AsrService {
  private readonly detector: VoiceActivityDetector;

  constructor(private readonly options: AsrServiceOptions) {
    this.detector = options.packs.vad ?? createEnergyDetector();
  }

  /**
   * Decodes inside the admission slot, so queued uploads hold no decoded audio, and in one-second
   * chunks from a disk spool, so a running one holds at most its memory reservation.
   */
  transcribeFile(path: string, options: CallOptions = {}): Promise<Transcript> {
    return this.options.admission.run(async () => {
      const hold = this.reserve(this.options.memory.requestSeconds * PCM_BYTES_PER_SECOND);
      try {
        const started = performance.now();
        const decode = { ...this.options.decode, signal: options.signal, chunkSamples: SPEECH_SAMPLE_RATE };
        const chunks = decodeAudioChunks(path, decode);
        const transcript = await this.transcribe(chunks, options.signal);
        this.options.observe?.((performance.now() - started) / 1000, transcript.duration);
        return transcript;
      } finally {
        hold.release();
      }
    }, { signal: options.signal, timeoutMs: options.timeoutMs });
  }

  async transcribeSamples(samples: Float32Array, options: CallOptions = {}): Promise<Transcript> {
    // The caller already holds these samples; counting them keeps the budget's total honest.
    const hold = this.reserve(samples.byteLength);
    try {
      return await this.options.admission.run(async () => {
        const started = performance.now();
        const transcript = await this.transcribe(secondsOf(samples), options.signal);
        this.options.observe?.((performance.now() - started) / 1000, transcript.duration);
        return transcript;
      }, { signal: options.signal, timeoutMs: options.timeoutMs });
    } finally {
      hold.release();
    }
  }

  /** A stream holds at most one segment in progress plus a chunk: one request's reservation. */
  async *transcribeStream(
    chunks: AsyncIterable<Float32Array>,
    options: CallOptions = {},
  ): AsyncIterable<StreamingResult> {
    const hold = this.reserve(this.options.memory.requestSeconds * PCM_BYTES_PER_SECOND);
    try {
      yield* this.streamWithin(chunks, options);
    } finally {
      hold.release();
    }
  }

  private reserve(bytes: number): PcmHold {
    return this.options.memory.budget.reserve(bytes);
  }

  private async *streamWithin(
    chunks: AsyncIterable<Float32Array>,
    options: CallOptions,
  ): AsyncIterable<StreamingResult> {
    const { signal } = options;
    const tracker = new SpeechTracker(this.detector, this.options.segmenter);
    const state: Session = { dialect: undefined, recognizer: this.options.defaultRecognizer };
    let interimAt = 0;
    let interimGap = INTERIM_SECONDS * SPEECH_SAMPLE_RATE;
    for await (const chunk of chunks) {
      signal?.throwIfAborted();
      yield* this.finals(await tracker.push(chunk, signal), state, options);
      const active = tracker.activeStart;
      if (active === null || tracker.received - Math.max(active, interimAt) < interimGap) continue;
      interimAt = tracker.received;
      const started = performance.now();
      const interim = await this.interim(tracker.slice(active, interimAt), state, options);
      // A recogniser slower than the audio would fall ever further behind: space interims out.
      interimGap = Math.max(INTERIM_SECONDS, (2 * (performance.now() - started)) / 1000) * SPEECH_SAMPLE_RATE;
      if (interim !== "") yield { text: interim, isFinal: false, start: seconds(active), end: seconds(interimAt), dialect: state.dialect ?? null };
    }
    yield* this.finals(await tracker.end(signal), state, options);
  }

  /** Streams are admitted per recognition, so a long call never holds an inference slot while idle. */
  private admitted<T>(job: () => Promise<T>, options: CallOptions): Promise<T> {
    return this.options.admission.run(job, { signal: options.signal, timeoutMs: options.timeoutMs });
  }

  /** An interim hypothesis; skipped (empty) rather than failing the stream when the engine is saturated. */
  private async interim(audio: Float32Array, state: Session, options: CallOptions): Promise<string> {
    try {
      return (await this.admitted(() => state.recognizer.recognize(audio, options.signal), options)).text.trim();
    } catch (error) {
      if (error instanceof AppError && (error.kind === "unavailable" || error.kind === "timeout") && !options.signal?.aborted) return "";
      throw error;
    }
  }

  private async *finals(pieces: readonly SpeechPiece[], state: Session, options: CallOptions): AsyncIterable<StreamingResult> {
    for (const piece of pieces) {
      const segment = await this.admitted(async () => {
        const started = performance.now();
        const recognized = await this.recognizePiece(piece, state, options.signal);
        this.options.observe?.((performance.now() - started) / 1000, piece.samples.length / SPEECH_SAMPLE_RATE);
        return recognized;
      }, options);
      if (segment.text !== "") yield { text: segment.text, isFinal: true, start: segment.start, end: segment.end, dialect: state.dialect ?? null };
    }
  }

  /** Segments and recognises audio chunk by chunk: only the speech in progress is held. */
  private async transcribe(
    chunks: AsyncIterable<Float32Array> | Iterable<Float32Array>,
    signal?: AbortSignal,
  ): Promise<Transcript> {
    const tracker = new SpeechTracker(this.detector, this.options.segmenter);
    const state: Session = { dialect: undefined, recognizer: this.options.defaultRecognizer };
    const segments: TranscriptSegment[] = [];
    const recognizeAll = async (pieces: readonly SpeechPiece[]) => {
      for (const piece of pieces) {
        const segment = await this.recognizePiece(piece, state, signal);
        if (segment.text !== "") segments.push({ ...segment, id: segments.length });
      }
    };
    for await (const chunk of chunks) await recognizeAll(await tracker.push(chunk, signal));
    await recognizeAll(await tracker.end(signal));
    return {
      text: segments.map((s) => s.text).join(" "),
      language: "ar",
      dialect: state.dialect ?? null,
      duration: seconds(tracker.received),
      segments,
    };
  }

  /** Recognises one speech piece; the first piece also settles the dialect and the recogniser. */
  private async recognizePiece(piece: SpeechPiece, state: Session, signal?: AbortSignal): Promise<TranscriptSegment> {
    if (state.dialect === undefined) {
      const identifier = this.options.packs.dialect;
      state.dialect = identifier ? await identifier.identify(piece.samples, signal) : null;
      state.recognizer = (state.dialect !== null && this.options.dialectRoutes.get(state.dialect)) || this.options.defaultRecognizer;
    }
    signal?.throwIfAborted();
    const result = await state.recognizer.recognize(piece.samples, signal);
    const offset = piece.start / SPEECH_SAMPLE_RATE;
    const end = seconds(piece.end);
    const words = result.words?.map((w) => ({ word: w.word, start: Math.min(end, seconds((offset + w.start) * SPEECH_SAMPLE_RATE)), end: Math.min(end, seconds((offset + w.end) * SPEECH_SAMPLE_RATE)) }));
    return { id: 0, start: seconds(piece.start), end, text: result.text.trim(), ...(words ? { words } : {}) };
  }
}
