/**
 * The process's calls (issue 41): every open call by its id, whichever door brought it; the
 * bounds (`calls.max_calls` at once, `calls.max_call_s` each, `calls.idle_timeout_s` without
 * media from the peer: a call that vanished frees everything); who may see a call (only the key it
 * maps to may watch, list or command it: any other key is told it does not exist); the
 * `call.started` feed of each key; and what is kept once a call ended — its transcript in
 * calls.db for `calls.retention_days`, and the signed end-of-call webhook to `calls.webhook_url`.
 *
 * The call session reaches the ASR and TTS features only through core contracts the wiring hands
 * over (src/app/calls.ts): the live core's opener and the speech validation; its speech is the TTS
 * service's speech stream (core/tts.ts), opened per call.
 */
import type { TranscriptionLanguage } from "../core/asr.ts";
import type { AppContext } from "../core/context.ts";
import type { OpenLiveCall } from "../core/live.ts";
import type { SpeechValidation } from "../core/tts.ts";
import { readyService } from "../edge/readiness.ts";
import { AppError } from "../errors/taxonomy.ts";
import type { Logger } from "../log/logger.ts";
import type { ApiKeyRecord } from "../store/keys.ts";
import { transcriptVerboseJson } from "../transcripts/formats.ts";
import { WebhookSender } from "../webhooks/sender.ts";
import { webhookUrlProblem } from "../webhooks/targets.ts";
import { callJson, type CallEvent, type EndReason, startedEvent } from "./events.ts";
import { formatName } from "./format.ts";
import { callMetrics, countOn, type CallMetrics } from "./metrics.ts";
import { CallPeers } from "./peers.ts";
import { type CallInit, CallSession, type SessionHost } from "./session.ts";
import { type CallDelivery, CallStore, type StoredCall } from "./store.ts";

/** What `POST /v1/calls` asks for: an externalMedia call (issue 41). */
export interface ExternalMediaRequest {
  readonly format: string;
  readonly voice?: string;
  readonly language?: TranscriptionLanguage;
}

/** What `POST /v1/calls` answers: what an ARI application passes to externalMedia. */
export interface ExternalMediaCall {
  readonly id: string;
  /** `<address>:<port>`, where Asterisk sends the call's RTP. */
  readonly external_host: string;
  readonly format: string;
}

/** What the call feature uses of the other features, handed over by the wiring. */
export interface CallEngines {
  readonly openLive: OpenLiveCall;
  /** The speech validation every door's speech gets (the TTS feature's). */
  readonly speech: SpeechValidation;
  /** The externalMedia door (./external-media/): a port of the RTP range and a call latched onto it. */
  readonly openExternalMedia: (
    calls: CallService,
    key: ApiKeyRecord,
    request: ExternalMediaRequest,
  ) => Promise<ExternalMediaCall>;
}

/** How often the bounds are checked. */
const SWEEP_MS = 500;
/** How often stored calls past their retention are deleted. */
const RETENTION_SWEEP_MS = 3_600_000;
/** How `say` fields are named in a 422 (the command's own). */
const COMMAND_FIELDS = { root: "command" } as const;

interface Open {
  readonly session: CallSession;
  readonly seq: number;
}

/** See the file comment. */
export class CallService {
  readonly peers: CallPeers;
  readonly store: CallStore;
  readonly metrics: CallMetrics;
  private readonly calls = new Map<string, Open>();
  private readonly feeds = new Map<string, Set<(event: CallEvent) => void>>();
  private readonly webhooks: WebhookSender<CallDelivery>;
  private readonly webhookUrl: string | undefined;
  private readonly sweep: ReturnType<typeof setInterval>;
  private readonly retention: ReturnType<typeof setInterval>;
  private readonly host: SessionHost;
  /** No new call is taken (shutdown). */
  private closed = false;
  private closing: Promise<void> | undefined;
  /** Calls are being ended at shutdown: their webhooks are queued, and sent together after (endAll). */
  private holdWebhooks = false;

  constructor(
    readonly ctx: AppContext,
    private readonly engines: CallEngines,
    private readonly log: Logger,
  ) {
    const config = ctx.config.calls;
    this.webhookUrl = checkedWebhookUrl(ctx);
    this.peers = new CallPeers(ctx);
    this.metrics = callMetrics(ctx);
    this.store = new CallStore(ctx.config.paths.data_dir);
    this.store.endInterrupted();
    this.webhooks = new WebhookSender(this.store, {
      secret: ctx.config.jobs.webhook_secret,
      retryMs: ctx.config.jobs.webhook_retry_ms,
      retryHours: ctx.config.jobs.webhook_retry_hours,
      log,
      onAttempt: (delivered) => this.metrics.webhooks.inc({ outcome: delivered ? "delivered" : "failed" }),
    });
    this.webhooks.wake();
    this.host = {
      openLive: engines.openLive,
      partialIntervalMs: ctx.config.streaming.partial_interval_ms,
      speech: (init, requestId) => {
        // The call's codec: the speech comes back in the frames the door sends.
        const codec = { response_format: "pcm", sample_rate: init.format.sampleRate, encoding: init.format.encoding };
        return {
          request: (fields) =>
            engines.speech.request({ ...fields, voice: fields.voice ?? init.voice, ...codec }, COMMAND_FIELDS),
          settings: (fields) =>
            engines.speech.settings({ ...fields, voice: fields.voice ?? init.voice, ...codec }, COMMAND_FIELDS),
          open: (hooks) =>
            readyService(ctx, "tts").openSpeechStream({ key: init.key, requestId, door: init.door, ...hooks }),
        };
      },
      late: () => undefined,
      frameHandled: () => undefined,
      ended: (session, reason) => this.ended(session, reason),
    };
    this.sweep = setInterval(() => this.checkBounds(), SWEEP_MS);
    this.sweep.unref?.();
    const forget = () => this.store.sweep(Date.now() - config.retention_days * 86_400_000);
    forget();
    this.retention = setInterval(forget, RETENTION_SWEEP_MS);
    this.retention.unref?.();
  }

  /** Calls open now. */
  get count(): number {
    return this.calls.size;
  }

  /**
   * Opens a call: throws the AppError when it may not (503 while shutting down or at
   * `calls.max_calls`, 400 for an id already open, the live core's 429/503).
   */
  open(init: CallInit, requestId: string): CallSession {
    if (this.closed || this.ctx.shuttingDown)
      throw new AppError("unavailable", "The service is shutting down", { retryAfter: 5 });
    if (this.calls.size >= this.ctx.config.calls.max_calls)
      throw new AppError(
        "unavailable",
        `Too many calls: calls.max_calls (${this.ctx.config.calls.max_calls}) are open`,
        {
          retryAfter: 5,
        },
      );
    if (this.calls.has(init.id)) throw new AppError("bad_request", `Call ${init.id} is already open`);
    // A language nothing loaded serves: refused here (400) rather than a call that ends at once.
    if (init.language) readyService(this.ctx, "asr").checkLanguage(init.language);
    const door = init.door;
    const host: SessionHost = {
      ...this.host,
      late: (direction) => (direction === "in" ? this.metrics.framesLate : this.metrics.framesSentLate).inc({ door }),
      frameHandled: (seconds) => this.metrics.frameDelay.observe({ door }, seconds),
    };
    const session = new CallSession(init, host, requestId);
    let seq: number;
    try {
      seq = this.store.started({
        id: init.id,
        keyId: init.key.id,
        door,
        format: formatName(init.format),
        startedAt: session.startedAt,
      });
    } catch (error) {
      // calls.db cannot take the call (disk full, say): nothing the session holds stays held.
      void session.end("error");
      throw error;
    }
    this.calls.set(init.id, { session, seq });
    countOn(this.metrics.open, door, 1);
    const started = startedEvent(session);
    for (const feed of [...(this.feeds.get(init.key.id) ?? [])]) feed(started);
    return session;
  }

  /** Opens an externalMedia call for `key` (`POST /v1/calls`); throws the AppError. */
  externalMedia(key: ApiKeyRecord, request: ExternalMediaRequest): Promise<ExternalMediaCall> {
    return this.engines.openExternalMedia(this, key, request);
  }

  /** The open call `id` if `key` may see it; 404 otherwise (another key's call does not exist for it). */
  get(id: string, key: ApiKeyRecord): CallSession {
    const open = this.calls.get(id);
    if (!open || open.session.init.key.id !== key.id || open.session.over)
      throw new AppError("not_found", `No open call ${id}`);
    return open.session;
  }

  /** The open calls of `key`, as `GET /v1/calls` lists them. */
  list(key: ApiKeyRecord): Record<string, unknown>[] {
    return [...this.calls.values()]
      .filter(({ session }) => session.init.key.id === key.id && !session.over)
      .map(({ session }) => callJson(session));
  }

  /** Follows the calls of `key` as they start (WebSocket /v1/calls); returns the unsubscribe. */
  follow(key: ApiKeyRecord, listener: (event: CallEvent) => void): () => void {
    let feed = this.feeds.get(key.id);
    if (!feed) this.feeds.set(key.id, (feed = new Set()));
    feed.add(listener);
    return () => {
      feed.delete(listener);
      if (feed.size === 0) this.feeds.delete(key.id);
    };
  }

  /** The stored call `id` of `key` (its transcript once it ended); 404 otherwise. */
  stored(id: string, key: ApiKeyRecord): StoredCall {
    const call = this.store.latest(id);
    if (!call || call.key_id !== key.id) throw new AppError("not_found", `No call ${id}`);
    return call;
  }

  /**
   * Ends every open call (shutdown) and refuses new ones: each peer is hung up on its door's wire
   * and each watching socket hears `call.ended`; then the end-of-call webhooks are sent, waiting
   * up to `webhookGraceMs` for them, while the ports are still up (the shutdown closes the HTTP
   * port after this: connections cut under a delivery in flight have been seen to stall it past
   * the grace). calls.db and the sender stay open; {@link close} stops them.
   */
  async endAll(webhookGraceMs = 0): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Their webhooks go out together once every call ended, in one batch sent in parallel, not
    // one at a time as each call ends (a sender busy with the first takes the next only once it
    // was answered): a receiver slow to answer would cost its answer time per call out of the
    // shutdown's short grace.
    this.holdWebhooks = true;
    await Promise.all([...this.calls.values()].map(({ session }) => session.end("shutdown")));
    this.holdWebhooks = false;
    await this.webhooks.settle(webhookGraceMs);
  }

  /**
   * Ends every call (if {@link endAll} did not), gives the queued webhooks up to `webhookGraceMs`
   * to be delivered, then stops the sender (what was not delivered stays in calls.db and is sent
   * after the next start) and closes calls.db.
   */
  close(webhookGraceMs = 0): Promise<void> {
    this.closing ??= (async () => {
      await this.endAll();
      clearInterval(this.sweep);
      clearInterval(this.retention);
      await this.webhooks.stopAfter(webhookGraceMs);
      this.store.close();
    })();
    return this.closing;
  }

  private checkBounds(): void {
    const { max_call_s, idle_timeout_s } = this.ctx.config.calls;
    const now = performance.now();
    for (const { session } of [...this.calls.values()]) {
      if (session.over) continue;
      const reason: EndReason | undefined =
        session.nowMs() > max_call_s * 1000
          ? "max_call_s"
          : now - session.lastMedia > idle_timeout_s * 1000
            ? "idle"
            : undefined;
      if (reason) void session.end(reason);
    }
  }

  private ended(session: CallSession, reason: EndReason): void {
    const open = this.calls.get(session.id);
    if (!open || open.session !== session) return;
    this.calls.delete(session.id);
    const { door } = session.init;
    countOn(this.metrics.open, door, -1);
    this.metrics.ended.inc({ door, reason });
    const endedAt = Date.now();
    const transcript = session.buildTranscript();
    const webhook =
      this.webhookUrl === undefined
        ? undefined
        : {
            url: this.webhookUrl,
            event: "call.ended",
            body: {
              call_id: session.id,
              door,
              format: formatName(session.init.format),
              reason,
              started_at: new Date(session.startedAt).toISOString(),
              ended_at: new Date(endedAt).toISOString(),
              transcript_url: `/v1/calls/${encodeURIComponent(session.id)}/transcript`,
              transcript: transcriptVerboseJson(transcript, ["segment", "word"]),
            },
          };
    try {
      this.store.ended(open.seq, { endedAt, reason, transcript }, webhook);
      if (webhook && !this.holdWebhooks) this.webhooks.wake();
    } catch (error) {
      this.log.error("call record not stored", { door, error: error instanceof Error ? error : String(error) });
    }
    // One line per call: who, which door, how it went; never what was said (D18).
    this.log.info("call", {
      call_id: session.id,
      door,
      key_id: session.init.key.id,
      format: formatName(session.init.format),
      reason,
      ms: Math.round(session.nowMs()),
      frames_late: session.framesLate,
      frame_delay_max_ms: Math.round(session.worstFrameMs),
    });
  }
}

/** `calls.webhook_url` when set and allowed; a setting that cannot work fails the start-up. */
function checkedWebhookUrl(ctx: AppContext): string | undefined {
  const url = ctx.config.calls.webhook_url.trim();
  if (url === "") return undefined;
  if (ctx.config.jobs.webhook_secret.length < 32)
    throw new Error("config: calls.webhook_url needs jobs.webhook_secret (at least 32 characters) to sign with");
  const problem = webhookUrlProblem(url, ctx.config.calls.webhook_hosts, "calls.webhook_hosts");
  if (problem) throw new Error(`config: calls.webhook_url: ${problem}`);
  return url;
}
