/**
 * THE file policy: how a recording (a whole file, a long upload's piece, a live call's utterance)
 * becomes a transcript. Speech spans (Silero VAD when a pack is installed, an energy splitter
 * otherwise) → decode pieces (the segmentation policy, ./segmentation/policy.ts: audio that fits
 * the recogniser's window whole, longer audio cut into utterances) → the call's dialect over its
 * first seconds of speech (./dialect/call.ts), which may route a dialect-specific recogniser →
 * one recognition per piece → segments split back into utterances → one text joined by the word
 * rule. It knows recognisers and routes, never admission, memory or a door: the service
 * (./service.ts) runs it under those, and the live core's engine port (./live/port.ts) for each
 * ended utterance.
 */
import { secondsOf } from "../audio/speech-rate.ts";
import type { LoadedAsrPacks } from "./packs.ts";
import type { Recognizer, VoiceActivityDetector } from "./recognizer.ts";
import type {
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
import { chooseByLanguage, type LanguageRoutes } from "./languages.ts";
import { createEnergyDetector } from "./vad/energy.ts";
import { segmentSpeech, SpeechTracker } from "./vad/endpointer.ts";
import type { SegmenterOptions, SpeechSpan } from "./vad/segmenter.ts";

/** The recognisers and detectors a file policy chooses among. */
export interface FilePolicyModels {
  readonly packs: LoadedAsrPacks;
  /** Recogniser used when no dialect route applies: the packs' default, else the built-in one. */
  readonly defaultRecognizer: Recognizer;
  /** The built-in English recogniser (./builtin/), or null when it is off or not in this build. */
  readonly builtin?: Recognizer | null;
  /** Dialect → recogniser for dialect-specific packs. */
  readonly dialectRoutes: ReadonlyMap<string, Recognizer>;
  /** Seconds of speech the call's dialect is decided over. */
  readonly dialectSeconds?: number;
}

/** A recording's options as the file policy reads them (the key's policy already applied). */
export type RecordingOptions = Omit<TranscriptionOptions, "formatting">;

/** See the file comment. */
export class FilePolicy {
  readonly detector: VoiceActivityDetector;
  /** Longest speech span the detector may cut: the smallest window of any recogniser (at most 30 s). */
  readonly spanWindow: Partial<SegmenterOptions>;
  /** Recognisers by language (./languages.ts). */
  readonly routes: LanguageRoutes;

  constructor(readonly models: FilePolicyModels) {
    this.detector = models.packs.vad ?? createEnergyDetector();
    const windows = [...models.packs.recognizers.values(), models.defaultRecognizer].map((r) => r.maxSegmentSeconds);
    this.spanWindow = { maxSegmentSeconds: Math.min(DEFAULT_WINDOW_SECONDS, ...windows) };
    this.routes = {
      // With no pack installed the default recogniser is the built-in English one: no Arabic route.
      arabic: models.packs.recognizers.size > 0 ? models.defaultRecognizer : null,
      builtin: models.builtin ?? null,
    };
  }

  /** Seconds of speech the call's dialect is decided over. */
  get dialectSeconds(): number {
    return this.models.dialectSeconds ?? DEFAULT_CALL_DIALECT_SECONDS;
  }

  /**
   * The recogniser of a live call for its language and the dialect decided so far (English: the
   * built-in one; else a dialect route, else the default). Throws the 400 for a language nothing
   * loaded serves.
   */
  recognizerFor(dialect: string | null, language?: TranscriptionLanguage): Recognizer {
    const choice = chooseByLanguage(this.routes, language);
    // Dialect routes are Arabic packs: an English call keeps the built-in recogniser.
    if (choice.language === "en") return choice.recognizer;
    return (dialect !== null && this.models.dialectRoutes.get(dialect)) || choice.recognizer;
  }

  /**
   * A whole recording: speech spans → decode pieces → the call's dialect → one recognition per
   * piece → segments split back into utterances → one text. `knownSpans`: the recording is those
   * speech spans already (no VAD pass); `routed`: the recogniser a live call's dialect chose.
   */
  async transcribe(
    samples: Float32Array,
    options: RecordingOptions,
    knownSpans?: readonly SpeechSpan[],
    routed?: Recognizer,
  ): Promise<Transcript> {
    const { signal } = options;
    // A recogniser routed by the caller (a live call) means its dialect is decided already.
    const identifier = routed ? null : this.models.packs.dialect;
    const dialects = new CallDialects(identifier, samples, this.dialectSeconds);
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
   * A recording longer than the request's reservation (`limit` samples): speech pieces (each at
   * most the recognisers' window) are cut by the VAD as the audio is decoded, and each piece is
   * transcribed on its own. Segments and words keep their times in the recording; piece texts are
   * joined with a space (a piece ends where the tracker heard an utterance end); the call's
   * dialect and model are the first recognised piece's.
   */
  async transcribeLong(
    chunks: AsyncIterable<Float32Array>,
    options: RecordingOptions,
    limit: number,
  ): Promise<Transcript> {
    const tracker = new SpeechTracker(this.detector, this.spanWindow);
    const parts: PieceTranscript[] = [];
    const texts: string[] = [];
    // The tracker reads and scores ahead while a piece is transcribed, within the reservation.
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

  /**
   * Recogniser for a call: `model` (a pack folder name) when installed and the language is not
   * English, else by language (./languages.ts; 400 for a language nothing loaded serves). Only the
   * installed packs' default may be re-routed by the call's dialect.
   */
  private pick(options: RecordingOptions): {
    recognizer: Recognizer;
    explicit: boolean;
    language: TranscriptionLanguage;
  } {
    const named = options.model === undefined ? undefined : this.models.packs.recognizers.get(options.model);
    if (named && options.language !== "en") return { recognizer: named, explicit: true, language: "ar" };
    const choice = chooseByLanguage(this.routes, options.language);
    return { ...choice, explicit: choice.recognizer !== this.routes.arabic };
  }

  private plan(spans: readonly SpeechSpan[], total: number, recognizer: Recognizer): DecodePiece[] {
    return decodePieces(spans, total, policyOptions(recognizer.maxSegmentSeconds));
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
    options: RecordingOptions,
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
    const route = decision && !chosen.explicit ? this.models.dialectRoutes.get(decision.dialect) : undefined;
    if (route !== undefined && route !== recognizer) {
      recognizer = route;
      pieces = this.plan(spans, samples.length, recognizer);
    }
    return { recognizer, pieces, decision, language };
  }
}
