/**
 * The ASR service behind every front door (REST, gRPC, `sawt asr`). A request's audio is decoded
 * by the hardened ffmpeg path, cut into ≤ 30 s speech segments (Silero VAD when a pack is
 * installed, an energy splitter otherwise), its dialect identified from the first segment when a
 * dialect-id pack is installed (which may route it to a dialect-specific recogniser), and each
 * segment recognised in order. Streams go through the very same segmentation, so a stream's final
 * results are the segments a file upload of the same audio yields.
 */
import { SPEECH_SAMPLE_RATE } from "../audio/speech-rate.ts";
import { decodeAudioFile } from "../audio/decode.ts";
import { AppError } from "../errors/taxonomy.ts";
import type { Admission } from "../runtime/admission.ts";
import type { CallOptions } from "../core/call.ts";
import type { LoadedAsrPacks } from "./packs.ts";
import type { Recognizer, VoiceActivityDetector } from "./recognizer.ts";
import type { AsrService, LiveEvent, LiveTranscription, LiveTranscriptionOptions, StreamingResult, Transcript, TranscriptSegment } from "./types.ts";
import { OfflineLiveTranscription, type UtteranceDecoder } from "./streaming/live.ts";
import { createEnergyDetector } from "./vad/energy.ts";
import { segmentSpeech, SpeechTracker, type SpeechPiece } from "./vad/pipeline.ts";
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
  readonly decode: { readonly maxDurationSeconds: number; readonly timeoutMs: number };
  readonly segmenter?: Partial<SegmenterOptions>;
  readonly observe?: InferenceObserver;
}

const seconds = (samples: number) => Math.round((samples / SPEECH_SAMPLE_RATE) * 1000) / 1000;

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

  async transcribeFile(path: string, options: CallOptions = {}): Promise<Transcript> {
    const decoded = await decodeAudioFile(path, { ...this.options.decode, signal: options.signal });
    return this.transcribeSamples(decoded.samples, options);
  }

  transcribeSamples(samples: Float32Array, options: CallOptions = {}): Promise<Transcript> {
    return this.options.admission.run(async () => {
      const started = performance.now();
      const transcript = await this.transcribe(samples, options.signal);
      this.options.observe?.((performance.now() - started) / 1000, transcript.duration);
      return transcript;
    }, { signal: options.signal, timeoutMs: options.timeoutMs });
  }

  async *transcribeStream(chunks: AsyncIterable<Float32Array>, options: CallOptions = {}): AsyncIterable<StreamingResult> {
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

  openLive(live: LiveTranscriptionOptions, emit: (event: LiveEvent) => void, options: CallOptions = {}): LiveTranscription {
    const state: Session = { dialect: undefined, recognizer: this.options.defaultRecognizer };
    const decoder: UtteranceDecoder = {
      final: (samples) =>
        this.admitted(async () => {
          const started = performance.now();
          const transcript = await this.transcribe(samples, options.signal, state);
          this.options.observe?.((performance.now() - started) / 1000, transcript.duration);
          return { text: transcript.text, dialect: transcript.dialect };
        }, options),
      partial: (samples) => this.interim(samples, state, options),
    };
    const vad = live.turnDetection ? this.detector.createStream() : null;
    return new OfflineLiveTranscription(vad, live, decoder, emit, options.signal);
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

  private async transcribe(samples: Float32Array, signal?: AbortSignal, state: Session = { dialect: undefined, recognizer: this.options.defaultRecognizer }): Promise<Transcript> {
    const pieces = await segmentSpeech(samples, this.detector, this.options.segmenter, signal);
    const segments: TranscriptSegment[] = [];
    for (const piece of pieces) {
      const segment = await this.recognizePiece(piece, state, signal);
      if (segment.text !== "") segments.push({ ...segment, id: segments.length });
    }
    return {
      text: segments.map((s) => s.text).join(" "),
      language: "ar",
      dialect: state.dialect ?? null,
      duration: seconds(samples.length),
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
