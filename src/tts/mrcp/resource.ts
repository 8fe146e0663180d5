/**
 * The MRCPv2 speechsynth resource (RFC 6787 §8): SPEAK (text/plain or Sawt's SSML subset) is
 * spoken by the TTS speech stream (src/tts/stream/, one context per SPEAK) at the negotiated
 * codec's rate and encoding and sent as paced RTP, the first packet as soon as the first sentence
 * is ready; SPEAKs queue (PENDING) behind the one speaking; STOP, PAUSE, RESUME, BARGE-IN-OCCURRED;
 * SPEAK-COMPLETE with Completion-Cause; an SSML `<mark>` is a SPEECH-MARKER event sent when the
 * RTP before it has left (§8.5.13). The speech stream counts each SPEAK against the peer's key's
 * rate limit and applies its lexicon and cloned voices.
 */
import type { AppContext } from "../../core/context.ts";
import { readyService } from "../../edge/readiness.ts";
import { openScope, type CallScope } from "../../edge/scope.ts";
import { toAppError } from "../../errors/taxonomy.ts";
import { mrcpMetrics } from "../../mrcp/metrics.ts";
import { MrcpStatus, type MrcpRequest } from "../../mrcp/control/message.ts";
import type { MrcpChannel, MrcpChannelIo, MrcpResource } from "../../mrcp/resource.ts";
import type { SpeechStream, SpeechStreamEvent } from "../../core/tts.ts";
import { PTIME_MS, RtpPacer } from "../../media/pacer.ts";
import { parseSpeech } from "../schema.ts";
import { killOnBargeIn, l16Wire, SPEAK_TYPES, speakFields, SYNTH_PARAMETERS } from "./params.ts";

const NAMING = { prefix: "speak", root: "speak" };

/** Completion causes of SPEAK-COMPLETE (§8.4.3). */
const CAUSE = {
  normal: "000 normal",
  bargeIn: "001 barge-in",
  parseFailure: "002 parse-failure",
  error: "004 error",
  cancelled: "007 cancelled",
} as const;

interface Speak {
  readonly request: MrcpRequest;
  readonly received: number;
  scope?: CallScope;
  pacer?: RtpPacer;
  stopped?: boolean;
  /** The speech stream's events for this SPEAK's context. */
  onEvent?: (event: SpeechStreamEvent) => void;
  /** The last SSML mark reached (SPEAK-COMPLETE names it). */
  lastMark?: string;
}

/** An NTP timestamp (RFC 6787's time-stamp: 64-bit, seconds since 1900 and a fraction) as decimal digits. */
function ntpNow(): string {
  const ms = Date.now();
  const seconds = BigInt(Math.floor(ms / 1000) + 2_208_988_800);
  const fraction = BigInt(Math.floor(((ms % 1000) / 1000) * 2 ** 32));
  return ((seconds << 32n) | fraction).toString();
}

class SynthChannel implements MrcpChannel {
  private readonly queue: Speak[] = [];
  private current: Speak | undefined;
  private paused = false;
  private closed = false;
  private stream: SpeechStream | undefined;

  constructor(
    private readonly ctx: AppContext,
    private readonly io: MrcpChannelIo,
  ) {}

  request(request: MrcpRequest): void {
    switch (request.method) {
      case "SPEAK":
        return this.speak(request);
      case "STOP":
        return this.stop(request);
      case "PAUSE":
      case "RESUME":
        return this.pauseResume(request);
      case "BARGE-IN-OCCURRED":
        return this.bargeInOccurred(request);
      default:
        this.io.respond(request, MrcpStatus.METHOD_FAILED, "COMPLETE", [
          ["Completion-Reason", `${request.method} is not supported`],
        ]);
    }
  }

  bargeIn(): void {
    const current = this.current;
    if (!current || !killOnBargeIn(current.request.headers, this.io.params)) return;
    // The caller spoke: what was queued behind the prompt is not played either.
    this.queue.length = 0;
    this.cut(current);
    this.complete(current, CAUSE.bargeIn);
  }

  busy(): boolean {
    return this.current !== undefined;
  }

  close(): void {
    this.closed = true;
    for (const speak of [this.current, ...this.queue.splice(0)]) if (speak) this.cut(speak);
    this.stream?.end();
  }

  /** The channel's speech stream, opened with its first SPEAK (503 while the engine cannot serve). */
  private speech(): SpeechStream {
    this.stream ??= readyService(this.ctx, "tts").openSpeechStream({
      key: this.io.session.key,
      requestId: this.io.id,
      door: "mrcp",
      onEvent: (event) => {
        const current = this.current;
        if (current && event.context === String(current.request.requestId)) current.onEvent?.(event);
      },
    });
    return this.stream;
  }

  private speak(request: MrcpRequest): void {
    const type = request.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase();
    if (!type || !SPEAK_TYPES.has(type) || request.body.trim() === "") {
      this.io.respond(request, MrcpStatus.UNSUPPORTED_ENTITY, "COMPLETE", [["Completion-Cause", CAUSE.parseFailure]]);
      return;
    }
    if (!this.io.session.audio) {
      this.io.respond(request, MrcpStatus.METHOD_FAILED, "COMPLETE", [
        ["Completion-Reason", "No audio stream in the session"],
      ]);
      return;
    }
    const speak: Speak = { request, received: performance.now() };
    if (this.current) {
      this.queue.push(speak);
      this.io.respond(request, MrcpStatus.SUCCESS, "PENDING");
      return;
    }
    this.io.respond(request, MrcpStatus.SUCCESS, "IN-PROGRESS");
    this.start(speak);
  }

  private start(speak: Speak): void {
    this.current = speak;
    this.paused = false;
    void this.run(speak).then(
      (cause) => this.complete(speak, cause),
      (error) => {
        const appError = toAppError(error);
        const cause =
          appError.kind === "validation" || appError.kind === "bad_request" ? CAUSE.parseFailure : CAUSE.error;
        this.complete(speak, cause, appError.message);
      },
    );
  }

  private async run(speak: Speak): Promise<string> {
    const audio = this.io.session.audio!;
    const { codec } = audio;
    const scope = openScope(this.ctx, {
      event: "mrcp",
      method: "tts.mrcp.SPEAK",
      requestId: `${this.io.id}#${speak.request.requestId}`,
    });
    speak.scope = scope;
    try {
      const { input, ...settings } = parseSpeech(
        speakFields(speak.request.body, speak.request.headers, this.io.params, codec),
        { naming: NAMING },
        this.ctx.config,
      );
      const stream = this.speech();
      const context = String(speak.request.requestId);
      const bytesPerSample = codec.name === "L16" ? 2 : 1;
      const packetSamples = (codec.rate * PTIME_MS) / 1000;
      const metrics = mrcpMetrics(this.ctx);
      const pacer = new RtpPacer(audio.rtp, packetSamples * bytesPerSample, packetSamples, () => metrics.rtpLate.inc());
      speak.pacer = pacer;
      if (speak.stopped) pacer.stop();
      if (this.paused) pacer.pause();
      const spoken = Promise.withResolvers<void>();
      const wire = l16Wire(codec.name === "L16");
      let queued = 0;
      speak.onEvent = (event) => {
        if (event.type === "audio") {
          const bytes = wire(event.audio);
          if (speak.stopped || bytes.length === 0) return;
          if (queued === 0) metrics.latency.observe({ method: "SPEAK" }, (performance.now() - speak.received) / 1000);
          queued += bytes.length;
          pacer.push(bytes);
          this.io.session.touch();
        } else if (event.type === "mark") pacer.at(queued, () => this.marker(speak, event.name));
        else if (event.type === "done") spoken.resolve();
        else if (event.type === "error") spoken.reject(event.error);
      };
      stream.open(context, settings);
      stream.text(context, input);
      stream.close(context);
      await spoken.promise;
      pacer.end();
      await pacer.done;
      const cause = speak.stopped ? CAUSE.cancelled : CAUSE.normal;
      scope.finish(speak.stopped ? "cancelled" : "000");
      return cause;
    } catch (error) {
      scope.finish(String(toAppError(error).status), error);
      throw error;
    }
  }

  /** SPEECH-MARKER (§8.5.13): the audio before the mark has left; IN-PROGRESS, the mark named. */
  private marker(speak: Speak, name: string): void {
    if (speak.stopped || this.closed || this.current !== speak) return;
    speak.lastMark = name;
    this.io.event("SPEECH-MARKER", speak.request.requestId, "IN-PROGRESS", [
      ["Speech-Marker", `timestamp=${ntpNow()};${name}`],
    ]);
  }

  /** Stops a SPEAK's synthesis and audio now. */
  private cut(speak: Speak): void {
    speak.stopped = true;
    speak.pacer?.stop();
    const context = String(speak.request.requestId);
    if (this.current === speak && this.stream?.has(context)) this.stream.clear(context);
  }

  /** Sends SPEAK-COMPLETE (unless the SPEAK was stopped by STOP) and starts the next one. */
  private complete(speak: Speak, cause: string, reason?: string): void {
    if (this.current !== speak) return;
    this.current = undefined;
    mrcpMetrics(this.ctx).requests.inc({ method: "SPEAK", cause: cause.slice(4) });
    if (!this.closed && cause !== CAUSE.cancelled) {
      const headers: [string, string][] = [["Completion-Cause", cause]];
      if (speak.lastMark !== undefined) headers.push(["Speech-Marker", `timestamp=${ntpNow()};${speak.lastMark}`]);
      if (reason && cause !== CAUSE.normal)
        headers.push(["Completion-Reason", reason.replace(/[\r\n]+/g, " ").slice(0, 200)]);
      this.io.event("SPEAK-COMPLETE", speak.request.requestId, "COMPLETE", headers);
    }
    const next = this.queue.shift();
    if (next && !this.closed) this.start(next);
  }

  private stop(request: MrcpRequest): void {
    const listed = request.headers.get("active-request-id-list");
    const ids = listed ? new Set(listed.split(",").map((id) => Number(id.trim()))) : undefined;
    const stopped: number[] = [];
    for (let i = this.queue.length - 1; i >= 0; i--) {
      const speak = this.queue[i]!;
      if (!ids || ids.has(speak.request.requestId)) {
        this.queue.splice(i, 1);
        stopped.unshift(speak.request.requestId);
      }
    }
    const current = this.current;
    if (current && (!ids || ids.has(current.request.requestId))) {
      this.cut(current);
      stopped.unshift(current.request.requestId);
    }
    const headers: [string, string][] = stopped.length > 0 ? [["Active-Request-Id-List", stopped.join(",")]] : [];
    this.io.respond(request, MrcpStatus.SUCCESS, "COMPLETE", headers);
  }

  private pauseResume(request: MrcpRequest): void {
    const current = this.current;
    const pausing = request.method === "PAUSE";
    if (!current || this.paused === pausing) {
      this.io.respond(request, MrcpStatus.METHOD_NOT_VALID, "COMPLETE");
      return;
    }
    this.paused = pausing;
    if (pausing) current.pacer?.pause();
    else current.pacer?.resume();
    this.io.respond(request, MrcpStatus.SUCCESS, "COMPLETE", [
      ["Active-Request-Id-List", String(current.request.requestId)],
    ]);
  }

  private bargeInOccurred(request: MrcpRequest): void {
    const current = this.current;
    if (current && killOnBargeIn(current.request.headers, this.io.params)) {
      // The client asked: the SPEAK (and what was queued) stops and the response lists it, without SPEAK-COMPLETE (§8.9).
      const ids = [current.request.requestId, ...this.queue.splice(0).map((s) => s.request.requestId)];
      this.cut(current);
      this.io.respond(request, MrcpStatus.SUCCESS, "COMPLETE", [["Active-Request-Id-List", ids.join(",")]]);
      return;
    }
    this.io.respond(request, MrcpStatus.SUCCESS, "COMPLETE");
  }
}

/** The speechsynth resource of the MRCP door. */
export const speechsynthResource: MrcpResource = {
  name: "speechsynth",
  parameters: SYNTH_PARAMETERS,
  open: (ctx, io) => new SynthChannel(ctx, io),
};
