/**
 * The MRCPv2 speechrecog resource (RFC 6787 §9): DEFINE-GRAMMAR, RECOGNIZE, START-INPUT-TIMERS,
 * STOP. Speech grammars run the call's RTP audio through the live core (`openLiveSession`, door
 * "mrcp": the same endpointer, decoders and call dialect as every live door), the utterance's
 * final is matched against the grammars (`builtin:speech/transcribe` takes the transcript); DTMF
 * grammars take RFC 4733 digits. START-OF-INPUT when speech or a digit starts (it also barges in
 * on a SPEAK of the same session), RECOGNITION-COMPLETE with Completion-Cause and an NLSML body.
 *
 * Which silence ends the caller's speech (RFC 6787 §9.4.15–16): the endpointer closes an utterance
 * after the shorter of Speech-Complete-Timeout and Speech-Incomplete-Timeout; its words are then
 * held for the rest of the timeout that applies — Speech-Incomplete-Timeout when they are only the
 * start of a grammar phrase, Speech-Complete-Timeout otherwise — and speech in that time continues
 * them. Silence is counted on the wall clock from the caller's last RTP packet (the live core's
 * silence clock), so a gateway that stops sending, or sends only comfort noise, ends the utterance
 * on time.
 */
import type { AppContext } from "../../core/context.ts";
import { DEFAULT_TURN_DETECTION, type LiveEvent } from "../../core/asr.ts";
import { toAppError } from "../../errors/taxonomy.ts";
import { mrcpMetrics } from "../../mrcp/metrics.ts";
import { MrcpStatus, type MrcpRequest } from "../../mrcp/control/message.ts";
import type { MrcpChannel, MrcpChannelIo, MrcpResource } from "../../mrcp/resource.ts";
import { type AudioCodec, liveFormatOf, swap16 } from "../../media/codec.ts";
import { openLiveSession, type LiveSession } from "../live/session.ts";
import {
  type CompiledGrammar,
  digitsProgress,
  matchDigits,
  speechProgress,
  matchTranscriptNBest,
  nlsmlFromMatches,
  nlsmlNoMatch,
} from "./grammar/index.ts";
import { failureHeaders, oneLine, RecogCause, SessionGrammars } from "./grammars.ts";
import { IllegalValue, RECOG_PARAMETERS, type RecognizeSettings, recognizeSettings } from "./params.ts";

interface Recognition {
  readonly request: MrcpRequest;
  readonly settings: RecognizeSettings;
  readonly grammars: readonly CompiledGrammar[];
  readonly received: number;
  live?: LiveSession;
  started: boolean;
  timersOn: boolean;
  digits: string;
  timer?: ReturnType<typeof setTimeout>;
  maxTimer?: ReturnType<typeof setTimeout>;
  maxed?: boolean;
  done?: boolean;
  /** Words of an ended utterance waiting out the rest of their timeout (see the file comment). */
  held?: Heard;
  holdTimer?: ReturnType<typeof setTimeout>;
}

/**
 * What the caller said: the recogniser's words (`words`, which grammars match and which an IVR's
 * own grammar returns as matched) and the transcript as the engine's policy wrote it (`transcript`,
 * the redaction floor applied: what free-form speech returns). Neither is ever logged.
 */
interface Heard {
  readonly words: string;
  readonly transcript: string;
  readonly confidence: number;
}

/** Two utterances heard one after the other as one. */
const joined = (a: Heard, b: Heard): Heard => ({
  words: `${a.words} ${b.words}`.trim(),
  transcript: `${a.transcript} ${b.transcript}`.trim(),
  confidence: Math.min(a.confidence, b.confidence),
});

class RecogChannel implements MrcpChannel {
  private readonly grammars: SessionGrammars;
  private current: Recognition | undefined;

  constructor(
    private readonly ctx: AppContext,
    private readonly io: MrcpChannelIo,
  ) {
    this.grammars = new SessionGrammars(ctx.config.mrcp.max_grammar_bytes);
  }

  request(request: MrcpRequest): void {
    switch (request.method) {
      case "DEFINE-GRAMMAR":
        return this.defineGrammar(request);
      case "RECOGNIZE":
        return this.recognize(request);
      case "START-INPUT-TIMERS":
        return this.startInputTimers(request);
      case "STOP":
        return this.stop(request);
      default:
        this.io.respond(request, MrcpStatus.METHOD_FAILED, "COMPLETE", [
          ["Completion-Reason", `${request.method} is not supported`],
        ]);
    }
  }

  busy(): boolean {
    return this.current !== undefined;
  }

  close(): void {
    const current = this.current;
    if (current) this.end(current);
  }

  private defineGrammar(request: MrcpRequest): void {
    try {
      this.grammars.define(request.headers, request.body);
      this.io.respond(request, MrcpStatus.SUCCESS, "COMPLETE", [["Completion-Cause", RecogCause.success]]);
    } catch (error) {
      this.io.respond(request, MrcpStatus.METHOD_FAILED, "COMPLETE", failureHeaders(error));
    }
  }

  private recognize(request: MrcpRequest): void {
    if (this.current) return this.io.respond(request, MrcpStatus.METHOD_NOT_VALID, "COMPLETE");
    const audio = this.io.session.audio;
    let settings: RecognizeSettings;
    let grammars: CompiledGrammar[];
    try {
      settings = recognizeSettings(request.headers, this.io.params);
      if (!audio) throw new Error("No audio stream in the session");
      grammars = this.grammars.recognize(request.headers, request.body);
    } catch (error) {
      if (error instanceof IllegalValue) {
        const value = request.headers.get(error.message.toLowerCase()) ?? "";
        return this.io.respond(request, MrcpStatus.ILLEGAL_VALUE, "COMPLETE", [[error.message, value]]);
      }
      return this.io.respond(request, MrcpStatus.METHOD_FAILED, "COMPLETE", failureHeaders(error));
    }
    const recognition: Recognition = {
      request,
      settings,
      grammars,
      received: performance.now(),
      started: false,
      timersOn: false,
      digits: "",
    };
    if (grammars.some((g) => g.mode !== "dtmf")) {
      try {
        recognition.live = this.openLive(recognition, audio.codec);
      } catch (error) {
        const appError = toAppError(error);
        return this.io.respond(request, MrcpStatus.METHOD_FAILED, "COMPLETE", [
          ["Completion-Cause", RecogCause.error],
          ["Completion-Reason", oneLine(appError.message)],
        ]);
      }
    }
    this.current = recognition;
    const rtp = audio.rtp;
    rtp.handlers.audio = (payload) => {
      if (this.current !== recognition || !recognition.live) return;
      void recognition.live.audio(audio.codec.name === "L16" ? swap16(payload) : payload);
    };
    rtp.handlers.digit = (digit) => this.digit(recognition, digit);
    this.io.respond(request, MrcpStatus.SUCCESS, "IN-PROGRESS");
    if (settings.startTimers) this.startTimers(recognition);
  }

  private openLive(recognition: Recognition, codec: AudioCodec): LiveSession {
    const format = liveFormatOf(codec);
    const live = openLiveSession(
      this.ctx,
      {
        door: "mrcp",
        requestId: `${this.io.id}#${recognition.request.requestId}`,
        caller: { key: this.io.session.key },
        onEvent: (event) => this.liveEvent(recognition, event),
        onEnd: (error) => {
          if (error && !recognition.done) this.complete(recognition, RecogCause.error, undefined, error.message);
        },
      },
      format,
    );
    const { speechCompleteMs, speechIncompleteMs } = recognition.settings;
    const turn = { ...DEFAULT_TURN_DETECTION, silenceDurationMs: Math.min(speechCompleteMs, speechIncompleteMs) };
    // MRCP asks for no written forms (NLSML carries the words); the floor still applies to
    // free-form transcripts, while grammars match the recogniser's words (`unformatted`).
    live.configure(
      { turnDetection: turn, partialIntervalMs: 0, formatting: { itn: false }, grammarMatching: true },
      format,
    );
    return live;
  }

  private liveEvent(recognition: Recognition, event: LiveEvent): void {
    if (recognition.done) return;
    if (event.type === "speech_started") {
      // The caller goes on: the held words start the utterance that ends next.
      clearTimeout(recognition.holdTimer);
      this.inputStarted(recognition, "speech");
    } else if (event.type === "final") {
      const said = {
        words: event.unformatted ?? event.text,
        transcript: event.text,
        confidence: event.confidence ?? 1,
      };
      this.utteranceEnded(recognition, said);
    }
  }

  /** An utterance ended: decide now, or hold its words for the rest of the timeout that applies. */
  private utteranceEnded(recognition: Recognition, said: Heard): void {
    const heard = recognition.held ? joined(recognition.held, said) : said;
    recognition.held = undefined;
    const { speechCompleteMs, speechIncompleteMs } = recognition.settings;
    const voice = recognition.grammars.filter((g) => g.mode !== "dtmf");
    const timeout = speechProgress(voice, heard.words) === "incomplete" ? speechIncompleteMs : speechCompleteMs;
    const rest = timeout - Math.min(speechCompleteMs, speechIncompleteMs);
    if (rest <= 0 || recognition.maxed) return this.speechFinal(recognition, heard);
    recognition.held = heard;
    recognition.holdTimer = setTimeout(() => {
      recognition.held = undefined;
      this.speechFinal(recognition, heard);
    }, rest);
  }

  private inputStarted(recognition: Recognition, mode: "speech" | "dtmf"): void {
    if (recognition.started) return;
    recognition.started = true;
    clearTimeout(recognition.timer);
    this.io.event("START-OF-INPUT", recognition.request.requestId, "IN-PROGRESS", [["Input-Type", mode]]);
    this.io.session.bargeIn(this);
    recognition.maxTimer = setTimeout(() => {
      recognition.maxed = true;
      const live = recognition.live;
      if (!live) return this.digitsEnded(recognition);
      // Recognition-Timeout: the caller's audio ends here. Finishing the live session closes the
      // open utterance and decides any final held for an open number, so every word heard so far
      // reaches the result; its final decides the cause. Nothing heard at all: no-match-maxtime.
      void live.finish().then(() => {
        if (recognition.done) return;
        const held = recognition.held;
        if (held) this.speechFinal(recognition, held);
        else this.complete(recognition, RecogCause.noMatchMaxtime);
      });
    }, recognition.settings.recognitionMs);
  }

  private speechFinal(recognition: Recognition, heard: Heard): void {
    const { settings } = recognition;
    const voice = recognition.grammars.filter((g) => g.mode !== "dtmf");
    const matches = matchTranscriptNBest(voice, heard.words, {
      asrConfidence: heard.confidence,
      freeForm: heard.transcript,
    })
      .filter((m) => m.confidence >= settings.confidenceThreshold)
      .slice(0, settings.nBest);
    const maxed = recognition.maxed;
    if (matches.length === 0) {
      return this.complete(recognition, maxed ? RecogCause.noMatchMaxtime : RecogCause.noMatch, nlsmlNoMatch("speech"));
    }
    this.complete(recognition, maxed ? RecogCause.successMaxtime : RecogCause.success, nlsmlFromMatches(matches));
  }

  private digit(recognition: Recognition, digit: string): void {
    if (recognition.done || this.current !== recognition) return;
    const dtmf = recognition.grammars.filter((g) => g.mode === "dtmf");
    if (dtmf.length === 0) return;
    this.inputStarted(recognition, "dtmf");
    const { settings } = recognition;
    if (settings.termChar === digit) return this.digitsEnded(recognition);
    recognition.digits += digit;
    const progress = dtmf.map((g) => digitsProgress(g, recognition.digits));
    // Done once no key could extend a match any more (matched in full, or nothing can match).
    if (!progress.some((p) => p.canExtend)) return this.digitsEnded(recognition);
    clearTimeout(recognition.timer);
    recognition.timer = setTimeout(() => this.digitsEnded(recognition), settings.interdigitMs);
  }

  private digitsEnded(recognition: Recognition): void {
    const matches = recognition.grammars
      .filter((g) => g.mode === "dtmf")
      .map((g) => matchDigits(g, recognition.digits))
      .filter((m) => m !== null)
      .slice(0, recognition.settings.nBest);
    const maxed = recognition.maxed;
    if (matches.length === 0) {
      return this.complete(recognition, maxed ? RecogCause.noMatchMaxtime : RecogCause.noMatch, nlsmlNoMatch("dtmf"));
    }
    this.complete(recognition, maxed ? RecogCause.successMaxtime : RecogCause.success, nlsmlFromMatches(matches));
  }

  private startTimers(recognition: Recognition): void {
    if (recognition.timersOn || recognition.started) return;
    recognition.timersOn = true;
    recognition.timer = setTimeout(
      () => this.complete(recognition, RecogCause.noInputTimeout),
      recognition.settings.noInputMs,
    );
  }

  private startInputTimers(request: MrcpRequest): void {
    const current = this.current;
    if (!current) return this.io.respond(request, MrcpStatus.METHOD_NOT_VALID, "COMPLETE");
    this.startTimers(current);
    this.io.respond(request, MrcpStatus.SUCCESS, "COMPLETE");
  }

  private stop(request: MrcpRequest): void {
    const current = this.current;
    if (current) this.end(current);
    const headers: [string, string][] = current ? [["Active-Request-Id-List", String(current.request.requestId)]] : [];
    this.io.respond(request, MrcpStatus.SUCCESS, "COMPLETE", headers);
  }

  private complete(recognition: Recognition, cause: string, body?: string, reason?: string): void {
    if (recognition.done) return;
    // Completed: the live session ends normally (its log line and stream metrics say 200).
    this.end(recognition, true);
    const metrics = mrcpMetrics(this.ctx);
    metrics.requests.inc({ method: "RECOGNIZE", cause: cause.slice(4) });
    metrics.latency.observe({ method: "RECOGNIZE" }, (performance.now() - recognition.received) / 1000);
    const headers: [string, string][] = [["Completion-Cause", cause]];
    if (reason) headers.push(["Completion-Reason", oneLine(reason)]);
    if (body) headers.push(["Content-Type", "application/nlsml+xml"]);
    this.io.event("RECOGNITION-COMPLETE", recognition.request.requestId, "COMPLETE", headers, body);
  }

  /** Stops a recognition's timers, audio and live session, without an event. */
  private end(recognition: Recognition, completed = false): void {
    recognition.done = true;
    clearTimeout(recognition.timer);
    clearTimeout(recognition.maxTimer);
    clearTimeout(recognition.holdTimer);
    if (this.current === recognition) this.current = undefined;
    if (completed) void recognition.live?.finish();
    else recognition.live?.abandon();
  }
}

/** The speechrecog resource of the MRCP door. */
export const speechrecogResource: MrcpResource = {
  name: "speechrecog",
  parameters: RECOG_PARAMETERS,
  open: (ctx, io) => new RecogChannel(ctx, io),
};
