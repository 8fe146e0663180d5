/**
 * The ASR service behind every front door (REST, gRPC, `sawt asr`). A request's audio is decoded
 * by the hardened ffmpeg path and its speech found (Silero VAD when a pack is installed, an energy
 * splitter otherwise); the segmentation policy (./segmentation/policy.ts) decodes audio that fits
 * the recogniser's window whole and cuts longer audio into utterances. With a dialect-id pack the
 * call's dialect is decided over its first seconds of speech (./dialect/call.ts), which may route
 * it to a dialect-specific recogniser; `model` names a pack explicitly. Streams are endpointed on
 * the same speech spans, one final per span, so their finals match a file's utterance segments
 * whenever the pauses between utterances are at least the join pause (0.5 s). Live doors cut
 * utterances with ./streaming/endpointer.ts (OpenAI's server VAD) and transcribe each by this policy.
 */
import { concatSamples } from "../audio/concat.ts";
import { SPEECH_SAMPLE_RATE } from "../audio/speech-rate.ts";
import { decodeAudioChunks } from "../audio/decode.ts";
import { PCM_BYTES_PER_SECOND, type PcmBudget, type PcmHold } from "../audio/pcm-budget.ts";
import { AppError } from "../errors/taxonomy.ts";
import type { Admission } from "../runtime/admission.ts";
import type { CallOptions } from "../core/call.ts";
import type { LoadedAsrPacks } from "./packs.ts";
import {
  isStreamingRecognizer,
  type RecognizedText,
  type RecognizeOptions,
  type Recognizer,
  type StreamingRecognizer,
  type VoiceActivityDetector,
} from "./recognizer.ts";
import type {
  AsrService,
  LiveEvent,
  LiveTranscription,
  LiveTranscriptionOptions,
  StreamingResult,
  Transcript,
  TranscriptionOptions,
  TranscriptSegment,
  TranscriptWord,
} from "./types.ts";
import { CallDialects, DEFAULT_CALL_DIALECT_SECONDS, type DialectDecision } from "./dialect/call.ts";
import { appendWords, joinPieceTexts, type JoinablePiece } from "./segmentation/join.ts";
import { piecesAhead, speechPiecesAhead } from "./segmentation/ahead.ts";
import { decodePieces, DEFAULT_WINDOW_SECONDS, policyOptions, type DecodePiece } from "./segmentation/policy.ts";
import { reportPiece } from "./segmentation/report.ts";
import { OfflineLiveTranscription, type UtteranceDecoder } from "./streaming/live.ts";
import { StreamingUtteranceDecoder } from "./streaming/native.ts";
import { createEnergyDetector } from "./vad/energy.ts";
import { segmentSpeech, SpeechTracker, type SpeechPiece } from "./vad/pipeline.ts";
import type { SegmenterOptions, SpeechSpan } from "./vad/segmenter.ts";

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
  /** Seconds of speech the call's dialect is decided over. */
  readonly dialectSeconds?: number;
  readonly observe?: InferenceObserver;
}

const seconds = (samples: number) => Math.round((samples / SPEECH_SAMPLE_RATE) * 1000) / 1000;

/** The decoding options a call passes to its recogniser. */
function recognizeOptions(options: TranscriptionOptions): RecognizeOptions {
  return {
    ...(options.prompt !== undefined ? { prompt: options.prompt } : {}),
    ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
  };
}

/** Middles of the pauses between a piece's utterances, in seconds from the piece's start. */
function wordBreaks(piece: DecodePiece): RecognizeOptions {
  const breaks = piece.utterances.slice(1).map((u, i) => (piece.utterances[i]!.end + u.start) / 2 - piece.start);
  return breaks.length > 0 ? { wordBreaks: breaks.map((at) => at / SPEECH_SAMPLE_RATE) } : {};
}

/** A searching recogniser's decoding facts as segment fields. */
function decodingFacts(result: RecognizedText): Partial<TranscriptSegment> {
  const facts = result.decoding;
  if (facts === undefined) return {};
  const round = (x: number) => Math.round(x * 1000) / 1000;
  return {
    temperature: round(facts.temperature),
    avgLogprob: round(facts.avgLogprob),
    compressionRatio: round(facts.compressionRatio),
  };
}

/** The chunks already read, then the one that overflowed, then the rest of the decode. */
async function* resumed(
  head: readonly Float32Array[],
  next: Float32Array,
  rest: AsyncIterator<Float32Array>,
): AsyncGenerator<Float32Array> {
  yield* head;
  yield next;
  for (let step = await rest.next(); !step.done; step = await rest.next()) yield step.value;
}

/** Recognition state shared by the segments of one request or stream. */
interface Session {
  dialect: string | null | undefined;
  recognizer: Recognizer;
}

/** A partial result the engine had no room for is skipped (""), not a failure of the stream. */
function skipWhenBusy(error: unknown, options: CallOptions): string {
  if (
    error instanceof AppError &&
    (error.kind === "unavailable" || error.kind === "timeout") &&
    !options.signal?.aborted
  )
    return "";
  throw error;
}

/** The {@link AsrService} over loaded packs. */
export class AsrEngineService implements AsrService {
  private readonly detector: VoiceActivityDetector;

  /** Longest speech span the detector may cut: the smallest window of any recogniser (at most 30 s). */
  private readonly spanWindow: Partial<SegmenterOptions>;

  constructor(private readonly options: AsrServiceOptions) {
    this.detector = options.packs.vad ?? createEnergyDetector();
    const windows = [...options.packs.recognizers.values(), options.defaultRecognizer].map((r) => r.maxSegmentSeconds);
    this.spanWindow = { maxSegmentSeconds: Math.min(DEFAULT_WINDOW_SECONDS, ...windows) };
  }

  /**
   * Decodes inside the admission slot, so queued uploads hold no decoded audio, in one-second
   * chunks from a disk spool. A recording that fits the request's reservation
   * (`asr.request_pcm_s`, at least a recogniser window) is transcribed whole by the segmentation
   * policy; a longer one is cut into speech pieces as it is decoded, so a running request never
   * holds more than its reservation (issue #16).
   */
  transcribeFile(path: string, options: TranscriptionOptions = {}): Promise<Transcript> {
    return this.options.admission.run(
      async () => {
        const hold = this.reserve(this.options.memory.requestSeconds * PCM_BYTES_PER_SECOND);
        try {
          const started = performance.now();
          const decode = { ...this.options.decode, signal: options.signal, chunkSamples: SPEECH_SAMPLE_RATE };
          const chunks = decodeAudioChunks(path, decode)[Symbol.asyncIterator]();
          const limit = this.options.memory.requestSeconds * SPEECH_SAMPLE_RATE;
          const head: Float32Array[] = [];
          let held = 0;
          let next = await chunks.next();
          while (!next.done && held + next.value.length <= limit) {
            head.push(next.value);
            held += next.value.length;
            next = await chunks.next();
          }
          const transcript = next.done
            ? await this.transcribe(concatSamples(head), options)
            : await this.transcribeLong(resumed(head, next.value, chunks), options);
          this.options.observe?.((performance.now() - started) / 1000, transcript.duration);
          return transcript;
        } finally {
          hold.release();
        }
      },
      { signal: options.signal, timeoutMs: options.timeoutMs },
    );
  }

  async transcribeSamples(samples: Float32Array, options: TranscriptionOptions = {}): Promise<Transcript> {
    // The caller already holds these samples; counting them keeps the budget's total honest.
    const hold = this.reserve(samples.byteLength);
    try {
      return await this.options.admission.run(
        async () => {
          const started = performance.now();
          const transcript = await this.transcribe(samples, options);
          this.options.observe?.((performance.now() - started) / 1000, transcript.duration);
          return transcript;
        },
        { signal: options.signal, timeoutMs: options.timeoutMs },
      );
    } finally {
      hold.release();
    }
  }

  /**
   * A recording longer than the request's reservation: speech pieces (each at most the recognisers'
   * window) are cut by the VAD as the audio is decoded, and each piece is transcribed by the
   * segmentation policy on its own. Segments and words keep their times in the recording; piece
   * texts are joined with a space (a piece ends where the tracker heard an utterance end); the
   * call's dialect and model are the first recognised piece's.
   */
  private async transcribeLong(
    chunks: AsyncIterable<Float32Array>,
    options: TranscriptionOptions,
  ): Promise<Transcript> {
    const tracker = new SpeechTracker(this.detector, this.spanWindow);
    const parts: Array<{ transcript: Transcript; offset: number }> = [];
    const texts: string[] = [];
    // The tracker reads and scores ahead while a piece is transcribed, within the reservation.
    const limit = this.options.memory.requestSeconds * SPEECH_SAMPLE_RATE;
    for await (const piece of speechPiecesAhead(chunks, tracker, limit, options.signal)) {
      // The piece is one speech span the tracker already found: no second VAD pass over it.
      const span = [{ start: 0, end: piece.samples.length }];
      const transcript = await this.transcribe(piece.samples, { ...options, onText: undefined }, span);
      if (transcript.text === "") continue;
      parts.push({ transcript, offset: seconds(piece.start) });
      texts.push(transcript.text);
      options.onText?.(texts.join(" "));
    }
    const shift = <T extends { start: number; end: number }>(item: T, by: number): T => ({
      ...item,
      start: Math.round((item.start + by) * 1000) / 1000,
      end: Math.round((item.end + by) * 1000) / 1000,
    });
    const segments = parts.flatMap(({ transcript, offset }) =>
      transcript.segments.map((segment) => ({
        ...shift(segment, offset),
        ...(segment.words ? { words: segment.words.map((w) => shift(w, offset)) } : {}),
      })),
    );
    const first = parts[0]?.transcript;
    const words = parts.flatMap(({ transcript, offset }) => (transcript.words ?? []).map((w) => shift(w, offset)));
    return {
      text: texts.join(" "),
      language: "ar",
      dialect: first?.dialect ?? null,
      duration: seconds(tracker.received),
      segments: segments.map((segment, id) => ({ ...segment, id })),
      ...(first?.model !== undefined ? { model: first.model } : {}),
      ...(first?.dialectConfidence !== undefined ? { dialectConfidence: first.dialectConfidence } : {}),
      ...(parts.some((p) => p.transcript.words !== undefined) ? { words } : {}),
    };
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
    const tracker = new SpeechTracker(this.detector);
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
      if (interim !== "")
        yield {
          text: interim,
          isFinal: false,
          start: seconds(active),
          end: seconds(interimAt),
          dialect: state.dialect ?? null,
        };
    }
    yield* this.finals(await tracker.end(signal), state, options);
  }

  openLive(
    live: LiveTranscriptionOptions,
    emit: (event: LiveEvent) => void,
    options: CallOptions = {},
  ): LiveTranscription {
    const recognizer = this.options.defaultRecognizer;
    const decoder = isStreamingRecognizer(recognizer)
      ? this.streamingDecoder(recognizer, options)
      : this.offlineDecoder(options);
    const vad = live.turnDetection ? this.detector.createStream() : null;
    return new OfflineLiveTranscription(vad, live, decoder, emit, options.signal);
  }

  /** An offline recogniser on a live door: partials re-decode the open utterance, finals go through the file policy. */
  private offlineDecoder(options: CallOptions): UtteranceDecoder {
    const state: Session = { dialect: undefined, recognizer: this.options.defaultRecognizer };
    return {
      final: (samples) =>
        this.admitted(async () => {
          const started = performance.now();
          // Each utterance is one recording to the file policy: decoded whole, its dialect decided on it.
          const transcript = await this.transcribe(samples, { signal: options.signal });
          this.options.observe?.((performance.now() - started) / 1000, transcript.duration);
          return { text: transcript.text, dialect: transcript.dialect };
        }, options),
      partial: (samples) => this.interim(samples, state, options),
    };
  }

  /** A streaming recogniser on a live door: one model stream per utterance, caches carried between chunks. */
  private streamingDecoder(recognizer: StreamingRecognizer, options: CallOptions): UtteranceDecoder {
    const native = new StreamingUtteranceDecoder(recognizer, this.options.packs.dialect, (job) =>
      this.admitted(job, options),
    );
    return {
      final: async (samples) => {
        const started = performance.now();
        const result = await native.final(samples, options.signal);
        this.options.observe?.((performance.now() - started) / 1000, samples.length / SPEECH_SAMPLE_RATE);
        return result;
      },
      partial: (samples) =>
        native.partial(samples, options.signal).catch((error: unknown) => skipWhenBusy(error, options)),
    };
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
      return skipWhenBusy(error, options);
    }
  }

  private async *finals(
    pieces: readonly SpeechPiece[],
    state: Session,
    options: CallOptions,
  ): AsyncIterable<StreamingResult> {
    for (const piece of pieces) {
      const segment = await this.admitted(async () => {
        const started = performance.now();
        const recognized = await this.recognizePiece(piece, state, options.signal);
        this.options.observe?.((performance.now() - started) / 1000, piece.samples.length / SPEECH_SAMPLE_RATE);
        return recognized;
      }, options);
      if (segment.text !== "")
        yield {
          text: segment.text,
          isFinal: true,
          start: segment.start,
          end: segment.end,
          dialect: state.dialect ?? null,
        };
    }
  }

  /** Recogniser for `model` (a pack folder name); unknown or absent names get the default. */
  private pick(model: string | undefined): { recognizer: Recognizer; explicit: boolean } {
    const named = model === undefined ? undefined : this.options.packs.recognizers.get(model);
    return named
      ? { recognizer: named, explicit: true }
      : { recognizer: this.options.defaultRecognizer, explicit: false };
  }

  private plan(spans: readonly SpeechSpan[], total: number, recognizer: Recognizer): DecodePiece[] {
    return decodePieces(spans, total, policyOptions(recognizer.maxSegmentSeconds));
  }

  /**
   * A whole recording: speech spans → decode pieces (the segmentation policy) → the call's dialect
   * over its first seconds of speech (which may route to a dialect pack) → one recognition per
   * piece → segments split back into utterances → one text joined by the word rule.
   */
  private async transcribe(
    samples: Float32Array,
    options: TranscriptionOptions,
    knownSpans?: readonly SpeechSpan[],
  ): Promise<Transcript> {
    const { signal } = options;
    const callSeconds = this.options.dialectSeconds ?? DEFAULT_CALL_DIALECT_SECONDS;
    const dialects = new CallDialects(this.options.packs.dialect, samples, callSeconds);
    const { recognizer, pieces, decision } = await this.planRecording(samples, options, dialects, knownSpans);
    const segments: TranscriptSegment[] = [];
    const texts: JoinablePiece[] = [];
    const words: TranscriptWord[] = [];
    let timed = false;
    for await (const piece of pieces) {
      signal?.throwIfAborted();
      const result = await recognizer.recognize(samples.slice(piece.start, piece.end), signal, {
        ...recognizeOptions(options),
        ...wordBreaks(piece),
      });
      const reported = reportPiece(piece, result);
      if (reported.length === 0) continue;
      texts.push(result);
      options.onText?.(joinPieceTexts(texts));
      timed ||= result.words !== undefined;
      appendWords(
        words,
        reported.flatMap((r) => r.words ?? []),
        result.continuesWord === true && texts.length > 1,
      );
      for (const part of reported) {
        const dialect = await dialects.ofUtterances(part.utterances, signal);
        segments.push({
          id: segments.length,
          start: seconds(part.start),
          end: seconds(part.end),
          text: part.text,
          ...(part.words ? { words: part.words } : {}),
          ...(dialect ? { dialect } : {}),
          ...decodingFacts(result),
        });
      }
    }
    return {
      text: joinPieceTexts(texts),
      language: "ar",
      dialect: decision?.dialect ?? null,
      duration: seconds(samples.length),
      segments,
      ...(segments.length > 0 ? { model: recognizer.name } : {}),
      ...(decision ? { dialectConfidence: decision.confidence } : {}),
      ...(timed && segments.length > 0 ? { words } : {}),
    };
  }

  /**
   * The recogniser of a recording (dialect routing included) and the policy's pieces. Without a
   * dialect-id pack, a recording longer than the window is planned while the detector still runs
   * (./segmentation/ahead.ts): its first pieces decode during the VAD of the rest, with the same
   * pieces. Otherwise every span is found first, as the call's dialect (decided over its first
   * seconds of speech) picks the recogniser, whose window the pieces depend on.
   */
  private async planRecording(
    samples: Float32Array,
    options: TranscriptionOptions,
    dialects: CallDialects,
    knownSpans?: readonly SpeechSpan[],
  ): Promise<{
    recognizer: Recognizer;
    pieces: AsyncIterable<DecodePiece> | DecodePiece[];
    decision: DialectDecision | null;
  }> {
    const { signal } = options;
    const chosen = this.pick(options.model);
    const policy = policyOptions(chosen.recognizer.maxSegmentSeconds);
    if (knownSpans === undefined && this.options.packs.dialect === null && samples.length > policy.windowSamples) {
      const pieces = piecesAhead(samples, this.detector, this.spanWindow, policy, signal);
      return { recognizer: chosen.recognizer, pieces, decision: null };
    }
    const spans = knownSpans ?? (await segmentSpeech(samples, this.detector, this.spanWindow, signal));
    let recognizer = chosen.recognizer;
    let pieces = this.plan(spans, samples.length, recognizer);
    const decision = await dialects.decide(
      pieces.flatMap((p) => p.utterances),
      signal,
    );
    const routed = decision && !chosen.explicit ? this.options.dialectRoutes.get(decision.dialect) : undefined;
    if (routed !== undefined && routed !== recognizer) {
      recognizer = routed;
      pieces = this.plan(spans, samples.length, recognizer);
    }
    return { recognizer, pieces, decision };
  }

  /** Recognises one speech piece; the first piece also settles the dialect and the recogniser. */
  private async recognizePiece(piece: SpeechPiece, state: Session, signal?: AbortSignal): Promise<TranscriptSegment> {
    if (state.dialect === undefined) {
      const identifier = this.options.packs.dialect;
      state.dialect = identifier ? await identifier.identify(piece.samples, signal) : null;
      state.recognizer =
        (state.dialect !== null && this.options.dialectRoutes.get(state.dialect)) || this.options.defaultRecognizer;
    }
    signal?.throwIfAborted();
    const result = await state.recognizer.recognize(piece.samples, signal);
    const offset = piece.start / SPEECH_SAMPLE_RATE;
    const end = seconds(piece.end);
    const words = result.words?.map((w) => ({
      word: w.word,
      start: Math.min(end, seconds((offset + w.start) * SPEECH_SAMPLE_RATE)),
      end: Math.min(end, seconds((offset + w.end) * SPEECH_SAMPLE_RATE)),
    }));
    return { id: 0, start: seconds(piece.start), end, text: result.text.trim(), ...(words ? { words } : {}) };
  }
}
