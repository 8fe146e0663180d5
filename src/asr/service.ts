/**
 * The ASR service behind every front door (REST, gRPC, `sawt asr`). A request's audio is decoded
 * by the hardened ffmpeg path and its speech found (Silero VAD when a pack is installed, an energy
 * splitter otherwise); the segmentation policy (./segmentation/policy.ts) decodes audio that fits
 * the recogniser's window whole and cuts longer audio into utterances. With a dialect-id pack the
 * call's dialect is decided over its first seconds of speech (./dialect/call.ts), which may route
 * it to a dialect-specific recogniser; `model` names a pack explicitly. This file keeps the file
 * policy only: live calls run on the live core (./live/), which this service opens with the
 * engine's pieces ({@link LiveEngine}) and which transcribes each ended utterance by this policy.
 */
import { concatSamples } from "../audio/concat.ts";
import { secondsOf, SPEECH_SAMPLE_RATE } from "../audio/speech-rate.ts";
import { decodeAudioChunks } from "../audio/decode.ts";
import { PCM_BYTES_PER_SECOND, type PcmBudget, type PcmHold } from "../audio/pcm-budget.ts";
import { AppError } from "../errors/taxonomy.ts";
import type { Admission } from "../serving/admission.ts";
import type { CallOptions } from "../core/call.ts";
import type { LoadedAsrPacks } from "./packs.ts";
import type { Recognizer, VoiceActivityDetector } from "./recognizer.ts";
import type {
  AsrService,
  LiveEvent,
  LiveTranscription,
  LiveTranscriptionOptions,
  Transcript,
  TranscriptionLanguage,
  TranscriptionOptions,
  TranscriptSegment,
  TranscriptWord,
} from "./types.ts";
import { CallDialects, DEFAULT_CALL_DIALECT_SECONDS, type DialectDecision } from "./dialect/call.ts";
import { appendWords, joinPieceTexts, type JoinablePiece } from "./segmentation/join.ts";
import { piecesAhead, speechPiecesAhead } from "./segmentation/ahead.ts";
import { decodePieces, DEFAULT_WINDOW_SECONDS, policyOptions, type DecodePiece } from "./segmentation/policy.ts";
import { reportPiece } from "./segmentation/report.ts";
import { joinPieceTranscripts, type PieceTranscript } from "./segmentation/long.ts";
import { decodingFacts, recognizeOptions, wordBreaks } from "./segmentation/piece-options.ts";
import { channelsToSplit, DEFAULT_CHANNEL_POLICY, transcribeChannels, type ChannelPolicy } from "./channels/split.ts";
import { utteranceOf, type LiveEngine } from "./live/engine.ts";
import { LiveTranscriber } from "./live/transcriber.ts";
import { chooseByLanguage, type LanguageRoutes } from "./languages.ts";
import { createEnergyDetector } from "./vad/energy.ts";
import { withFormattedText } from "./format/stream.ts";
import { formatTranscript } from "./format/transcript.ts";
import { segmentSpeech, SpeechTracker } from "./vad/endpointer.ts";
import type { SegmenterOptions, SpeechSpan } from "./vad/segmenter.ts";

/** Hears the inference time (seconds, queue wait excluded) and the audio seconds of each transcription. */
export type InferenceObserver = (seconds: number, audioSeconds: number) => void;

/** What the service is built from. */
export interface AsrServiceOptions {
  readonly packs: LoadedAsrPacks;
  /** Recogniser used when no dialect route applies: the packs' default, else the built-in one. */
  readonly defaultRecognizer: Recognizer;
  /** The built-in English recogniser (./builtin/), or null when it is off or not in this build. */
  readonly builtin?: Recognizer | null;
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
  /** `asr.split_channels` and `asr.speakers` (default: the mono mix, `ch<n>` labels). */
  readonly channels?: ChannelPolicy;
  readonly observe?: InferenceObserver;
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

/** The {@link AsrService} over loaded packs. */
export class AsrEngineService implements AsrService {
  private readonly detector: VoiceActivityDetector;
  private readonly liveEngine: LiveEngine;

  /** Longest speech span the detector may cut: the smallest window of any recogniser (at most 30 s). */
  private readonly spanWindow: Partial<SegmenterOptions>;

  constructor(private readonly options: AsrServiceOptions) {
    this.detector = options.packs.vad ?? createEnergyDetector();
    const windows = [...options.packs.recognizers.values(), options.defaultRecognizer].map((r) => r.maxSegmentSeconds);
    this.spanWindow = { maxSegmentSeconds: Math.min(DEFAULT_WINDOW_SECONDS, ...windows) };
    this.routes = {
      // With no pack installed the default recogniser is the built-in English one: no Arabic route.
      arabic: options.packs.recognizers.size > 0 ? options.defaultRecognizer : null,
      builtin: options.builtin ?? null,
    };
    this.liveEngine = this.buildLiveEngine();
  }

  /** Recognisers by language (./languages.ts). */
  private readonly routes: LanguageRoutes;

  /**
   * Decodes inside the admission slot, so queued uploads hold no decoded audio, in one-second
   * chunks from a disk spool. A recording that fits the request's reservation
   * (`asr.request_pcm_s`, at least a recogniser window) is transcribed whole by the segmentation
   * policy; a longer one is cut into speech pieces as it is decoded, so a running request never
   * holds more than its reservation (issue #16); split channels: one after another (./channels/).
   */
  transcribeFile(path: string, given: TranscriptionOptions = {}): Promise<Transcript> {
    // Written forms and redaction (issue #27): of the deltas as they come, of the transcript once.
    const options = withFormattedText(given);
    return this.options.admission.run(
      async () => {
        const started = performance.now();
        const policy = this.options.channels ?? DEFAULT_CHANNEL_POLICY;
        const split = await channelsToSplit(path, options, policy, { ...this.options.decode, signal: options.signal });
        const transcript =
          split === null
            ? await this.transcribeDecoded(path, options)
            : await transcribeChannels(split, options, policy, (ch, one) => this.transcribeDecoded(path, one, ch));
        this.options.observe?.((performance.now() - started) / 1000, transcript.duration * (split ?? 1));
        return formatTranscript(transcript, options.formatting);
      },
      { signal: options.signal, timeoutMs: options.timeoutMs },
    );
  }

  /** One decode of the upload (its mono mix, or one `channel`) transcribed within the request's reservation. */
  private async transcribeDecoded(path: string, options: TranscriptionOptions, channel?: number): Promise<Transcript> {
    const hold = this.reserve(this.options.memory.requestSeconds * PCM_BYTES_PER_SECOND);
    try {
      const decode = { ...this.options.decode, signal: options.signal, chunkSamples: SPEECH_SAMPLE_RATE, channel };
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
      return next.done
        ? await this.transcribe(concatSamples(head), options)
        : await this.transcribeLong(resumed(head, next.value, chunks), options);
    } finally {
      hold.release();
    }
  }

  async transcribeSamples(samples: Float32Array, options: TranscriptionOptions = {}): Promise<Transcript> {
    // The caller already holds these samples; counting them keeps the budget's total honest.
    const hold = this.reserve(samples.byteLength);
    try {
      return await this.options.admission.run(
        async () => {
          const started = performance.now();
          const transcript = await this.transcribe(samples, withFormattedText(options));
          this.options.observe?.((performance.now() - started) / 1000, transcript.duration);
          return formatTranscript(transcript, options.formatting);
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
    const parts: PieceTranscript[] = [];
    const texts: string[] = [];
    // The tracker reads and scores ahead while a piece is transcribed, within the reservation.
    const limit = this.options.memory.requestSeconds * SPEECH_SAMPLE_RATE;
    for await (const piece of speechPiecesAhead(chunks, tracker, limit, options.signal)) {
      // The piece is one speech span the tracker already found: no second VAD pass over it.
      const span = [{ start: 0, end: piece.samples.length }];
      const transcript = await this.transcribe(piece.samples, { ...options, onText: undefined }, span);
      if (transcript.text === "") continue;
      parts.push({ transcript, offset: secondsOf(piece.start) });
      texts.push(transcript.text);
      options.onText?.(texts.join(" "));
    }
    return joinPieceTranscripts(parts, this.pick(options).language, secondsOf(tracker.received));
  }

  private reserve(bytes: number): PcmHold {
    return this.options.memory.budget.reserve(bytes);
  }

  /**
   * A live call on the live core. It holds at most one utterance in progress plus a chunk: one
   * request's reservation of the decoded-audio budget, released when the call's signal ends it.
   */
  openLive(
    live: LiveTranscriptionOptions,
    emit: (event: LiveEvent) => void,
    call: CallOptions = {},
  ): LiveTranscription {
    const hold = this.reserve(this.options.memory.requestSeconds * PCM_BYTES_PER_SECOND);
    let held = true;
    const release = () => {
      if (held) hold.release();
      held = false;
    };
    if (call.signal?.aborted) release();
    else call.signal?.addEventListener("abort", release, { once: true });
    const engine = live.hotwords?.length ? this.buildLiveEngine(live.hotwords) : this.liveEngine;
    return new LiveTranscriber(engine, live, emit, call, release);
  }

  /** The engine pieces the live core runs on (./live/engine.ts); a call's hotwords go to each final. */
  private buildLiveEngine(hotwords?: TranscriptionOptions["hotwords"]): LiveEngine {
    return {
      detector: this.detector,
      dialectIdentifier: this.options.packs.dialect,
      dialectSeconds: this.options.dialectSeconds ?? DEFAULT_CALL_DIALECT_SECONDS,
      recognizerFor: (dialect, language) => {
        const choice = chooseByLanguage(this.routes, language);
        // Dialect routes are Arabic packs: an English call keeps the built-in recogniser.
        if (choice.language === "en") return choice.recognizer;
        return (dialect !== null && this.options.dialectRoutes.get(dialect)) || choice.recognizer;
      },
      transcribeUtterance: (samples, recognizer, wholeSpan, call) =>
        this.admitted(async () => {
          const started = performance.now();
          const spans = wholeSpan ? [{ start: 0, end: samples.length }] : undefined;
          // The call's dialect was decided (and the recogniser routed) by the live core.
          const language = recognizer === this.routes.builtin ? "en" : "ar";
          const transcript = await this.transcribe(
            samples,
            { signal: call.signal, hotwords, language },
            spans,
            recognizer,
          );
          this.options.observe?.((performance.now() - started) / 1000, transcript.duration);
          return utteranceOf(transcript);
        }, call),
      admitted: (job, call) => this.admitted(job, call),
      observe: (seconds, audioSeconds) => this.options.observe?.(seconds, audioSeconds),
    };
  }

  /** Live work is admitted per recognition, so a long call never holds an inference slot while idle. */
  private admitted<T>(job: () => Promise<T>, options: CallOptions): Promise<T> {
    return this.options.admission.run(job, { signal: options.signal, timeoutMs: options.timeoutMs });
  }

  /**
   * Recogniser for a call: `model` (a pack folder name) when installed and the language is not
   * English, else by language (./languages.ts; 400 for a language nothing loaded serves). Only the
   * installed packs' default may be re-routed by the call's dialect.
   */
  private pick(options: TranscriptionOptions): {
    recognizer: Recognizer;
    explicit: boolean;
    language: TranscriptionLanguage;
  } {
    const named = options.model === undefined ? undefined : this.options.packs.recognizers.get(options.model);
    if (named && options.language !== "en") return { recognizer: named, explicit: true, language: "ar" };
    const choice = chooseByLanguage(this.routes, options.language);
    return { ...choice, explicit: choice.recognizer !== this.routes.arabic };
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
    routed?: Recognizer,
  ): Promise<Transcript> {
    const { signal } = options;
    const callSeconds = this.options.dialectSeconds ?? DEFAULT_CALL_DIALECT_SECONDS;
    // A recogniser routed by the caller (a live call) means its dialect is decided already.
    const identifier = routed ? null : this.options.packs.dialect;
    const dialects = new CallDialects(identifier, samples, callSeconds);
    const { recognizer, pieces, decision, language } = await this.planRecording(
      samples,
      options,
      dialects,
      knownSpans,
      routed,
    );
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
          start: secondsOf(part.start),
          end: secondsOf(part.end),
          text: part.text,
          ...(part.words ? { words: part.words } : {}),
          ...(dialect ? { dialect } : {}),
          ...decodingFacts(result),
        });
      }
    }
    return {
      text: joinPieceTexts(texts),
      language,
      dialect: decision?.dialect ?? null,
      duration: secondsOf(samples.length),
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
    routed?: Recognizer,
  ): Promise<{
    recognizer: Recognizer;
    pieces: AsyncIterable<DecodePiece> | DecodePiece[];
    decision: DialectDecision | null;
    language: TranscriptionLanguage;
  }> {
    const { signal } = options;
    const chosen = routed
      ? { recognizer: routed, explicit: true, language: options.language ?? "ar" }
      : this.pick(options);
    const { language } = chosen;
    const policy = policyOptions(chosen.recognizer.maxSegmentSeconds);
    if (knownSpans === undefined && dialects.inert && samples.length > policy.windowSamples) {
      const pieces = piecesAhead(samples, this.detector, this.spanWindow, policy, signal);
      return { recognizer: chosen.recognizer, pieces, decision: null, language };
    }
    const spans = knownSpans ?? (await segmentSpeech(samples, this.detector, this.spanWindow, signal));
    let recognizer = chosen.recognizer;
    let pieces = this.plan(spans, samples.length, recognizer);
    const decision = await dialects.decide(
      pieces.flatMap((p) => p.utterances),
      signal,
    );
    const route = decision && !chosen.explicit ? this.options.dialectRoutes.get(decision.dialect) : undefined;
    if (route !== undefined && route !== recognizer) {
      recognizer = route;
      pieces = this.plan(spans, samples.length, recognizer);
    }
    return { recognizer, pieces, decision, language };
  }
}
