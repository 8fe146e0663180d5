/**
 * Asterisk calls wired into a running service (issue 41, docs/asterisk.md): the process's one
 * {@link CallService} over `<data_dir>/calls.db`, handed what it uses of the other features as
 * their core contracts — the live core's opener (src/asr/live/session.ts) and the speech
 * validation every door's speech gets (src/tts/schema.ts; the speech stream itself is the TTS
 * service's, core/tts.ts) — and the externalMedia door (RTP, ../calls/external-media/),
 * which the call API's `POST /v1/calls` opens. Built when `calls.enabled` on first use
 * ({@link callsFor}); the AudioSocket listener starts with the other ports (./front-doors.ts) and
 * everything stops at shutdown ({@link stopCalls}).
 */
import { openLiveSession } from "../asr/live/session.ts";
import { startAudioSocketServer, type AudioSocketServer } from "../calls/audiosocket/server.ts";
import { openExternalMedia } from "../calls/external-media/open.ts";
import { CallService } from "../calls/service.ts";
import type { AppContext } from "../core/context.ts";
import { AppError } from "../errors/taxonomy.ts";
import { parseSpeech, parseSpeechSettings } from "../tts/schema.ts";

const services = new WeakMap<AppContext, CallService>();

/** The call service of the process running `ctx`, built on first use; 503 when `calls.enabled` is off. */
export function callsFor(ctx: AppContext): CallService {
  const built = services.get(ctx);
  if (built) return built;
  if (!ctx.config.calls.enabled)
    throw new AppError("unavailable", "Calls are not enabled on this server (calls.enabled = false)");
  const service = new CallService(
    ctx,
    {
      openLive: (init, format) => openLiveSession(ctx, { ...init, caller: { key: init.key } }, format),
      speech: {
        request: (fields, naming) => parseSpeech(fields, { naming }, ctx.config),
        settings: (fields, naming) => parseSpeechSettings(fields, { naming }, ctx.config),
      },
      openExternalMedia,
    },
    ctx.log.child({ component: "calls" }),
  );
  services.set(ctx, service);
  return service;
}

/** Starts the AudioSocket door when `calls.enabled` (its port 0 binds a free one). */
export async function startCallDoors(ctx: AppContext): Promise<AudioSocketServer | undefined> {
  if (!ctx.config.calls.enabled) return undefined;
  return startAudioSocketServer(ctx, callsFor(ctx));
}

/** Open calls (a draining box lets them finish, as it does MRCP sessions). */
export function openCalls(ctx: AppContext): number {
  return services.get(ctx)?.count ?? 0;
}

/**
 * Ends the open calls (shutdown): the peers are hung up and the watching sockets hear
 * `call.ended`, then their end-of-call webhooks get up to `webhookGraceMs` to be delivered (the
 * rest stay queued in calls.db for the next start). Before the HTTP port closes, as chan_websocket
 * and the application sockets are WebSockets on it. The service stays, refusing new calls, until
 * {@link stopCalls}.
 */
export async function endCalls(ctx: AppContext, webhookGraceMs: number): Promise<void> {
  await services.get(ctx)?.endAll(webhookGraceMs);
}

/**
 * Ends what calls are still open, gives the end-of-call webhooks up to `webhookGraceMs` to be
 * delivered (the rest stay queued in calls.db for the next start), and closes calls.db and the
 * AudioSocket port.
 */
export async function stopCalls(
  ctx: AppContext,
  audiosocket: AudioSocketServer | undefined,
  webhookGraceMs: number,
): Promise<void> {
  const service = services.get(ctx);
  services.delete(ctx);
  await service?.close(webhookGraceMs);
  await audiosocket?.close();
}
