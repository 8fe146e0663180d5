/**
 * Issue 39, faults on the telephony side, the Asterisk calls' half (test/reliability/telephony-faults.test.ts
 * is the MRCP half), with the real `sawt serve` and peers that play Asterisk (test/calls/):
 *
 * - SIGTERM with an AudioSocket call and a chan_websocket call streaming, each watched by an
 *   application socket, past `server.drain_timeout_ms`: both calls stay up through the drain and
 *   are hung up at the deadline, not before — the AudioSocket peer gets the 0x00 frame then the
 *   close, the chan_websocket peer `HANGUP` then the close, each application socket `call.ended`
 *   (reason `shutdown`) then its close — and each call's signed end-of-call webhook, with its
 *   transcript, reaches the receiver before the process exits 0. During the drain no new call is
 *   taken (an AudioSocket connection is closed with 0x00, a chan_websocket one 1013, `POST
 *   /v1/calls` is 503).
 * - `kill -9` with an AudioSocket call streaming: restarted on the same data directory, the call is
 *   recorded as ended (reason `shutdown`; its transcript, held in memory, is gone: 404), nothing
 *   is listed as open, and a new call works end to end once `/ready` answers.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { CallStore } from "../../src/calls/store.ts";
import { verifyWebhook } from "../../src/webhooks/signature.ts";
import { silence } from "../asr/support.ts";
import type { TestSocket } from "../asr/ws-client.ts";
import { ChanWebsocketClient } from "../calls/chan-websocket-client.ts";
import {
  AudioSocketPeer,
  audioSocketCall,
  callerAudio,
  callOpen,
  type CallServer,
  newUuid,
  PHONE_TEXTS,
  startCallServer,
  watchCall,
} from "../calls/support.ts";
import { type SawtProcess, startSawt, until, waitForStatus } from "../support/sawt.ts";
import { recordFigures } from "./server.ts";

const SECRET = "whsec-call-faults-0123456789abcdef01234";
const DEADLINE_MS = 3000;
/** A shutdown call's last words get up to 2 s (src/calls/session.ts), its webhook a moment more. */
const AFTER_DEADLINE_MS = 5000;

/** How long the receiver takes to answer: longer than the rest of the shutdown takes. */
const RECEIVER_MS = 800;
let receiver: ReturnType<typeof slowReceiver>;
const servers: CallServer[] = [];
/** Servers restarted on a test server's data directory. */
const restarts: SawtProcess[] = [];

beforeAll(() => {
  receiver = slowReceiver();
});

afterAll(async () => {
  receiver?.stop();
  for (const sawt of restarts) await sawt.stop("SIGKILL");
  for (const server of servers) await server.stop();
});

/**
 * A webhook receiver that answers 200 after {@link RECEIVER_MS}, as a busy one might: it keeps a
 * delivery only once it answered it (a sender that gave up before the answer delivered nothing).
 */
function slowReceiver() {
  const received: { body: string; signature: string | null; event: string | null }[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: async (request) => {
      const body = await request.text();
      await Bun.sleep(RECEIVER_MS);
      if (!request.signal.aborted)
        received.push({
          body,
          signature: request.headers.get("sawt-signature"),
          event: request.headers.get("sawt-event"),
        });
      return new Response(null, { status: 200 });
    },
  });
  return { received, port: server.port!, url: `http://127.0.0.1:${server.port}/hooks`, stop: () => server.stop(true) };
}

/** Streams `samples`, then silence a second at a time until `stop` says so or the peer is gone. */
async function keepTalking(
  stream: (samples: Float32Array) => Promise<void>,
  samples: Float32Array,
  stop: () => boolean,
): Promise<void> {
  await stream(samples);
  for (let i = 0; i < 60 && !stop(); i++) await stream(silence(1, 8000));
}

const finals = (app: TestSocket) => app.events.filter((e) => e.type === "transcript.final").map((e) => e.text);

/** When `promise` settled (performance.now()), or Infinity if not within `ms`. */
const settledAt = (promise: Promise<unknown>, ms: number) =>
  Promise.race([promise.then(() => performance.now()), Bun.sleep(ms).then(() => Number.POSITIVE_INFINITY)]);

describe("Asterisk calls under faults", () => {
  test("does hang up open calls at the SIGTERM drain deadline, not before, with call.ended and the signed webhook, and exit 0", async () => {
    const server = await startCallServer({
      SAWT_DRAIN_TIMEOUT_MS: String(DEADLINE_MS),
      SAWT_CALLS_WEBHOOK_URL: `${receiver.url}/calls`,
      SAWT_CALLS_WEBHOOK_HOSTS: `127.0.0.1:${receiver.port}`,
      SAWT_JOBS_WEBHOOK_SECRET: SECRET,
    });
    servers.push(server);
    let over = false;
    const audiosocket = await audioSocketCall(server, 8000);
    const asterisk = await ChanWebsocketClient.dial(server.sawt.baseUrl, { format: "ulaw", json: false });
    await callOpen(server, asterisk.channelId);
    const asteriskApp = await watchCall(server, asterisk.channelId);
    const talking = [
      keepTalking(
        (s) => audiosocket.peer.stream(s, 8000),
        callerAudio([PHONE_TEXTS[0]], 8000),
        () => over,
      ),
      keepTalking(
        (s) => asterisk.stream(s),
        callerAudio([PHONE_TEXTS[1]], 8000),
        () => over,
      ),
    ];
    // Both callers said something before the SIGTERM: the webhooks must carry it.
    await Promise.all([audiosocket.app.next("transcript.final"), asteriskApp.next("transcript.final")]);

    const peerClosed = settledAt(audiosocket.peer.closed, 30_000);
    const asteriskClosed = settledAt(asterisk.closed, 30_000);
    const appsClosed = [audiosocket.app, asteriskApp].map((app) => settledAt(app.closed, 30_000));
    const sent = performance.now();
    const exited = server.sawt.stop("SIGTERM");

    // Mid-drain: both calls are up, and no new call is taken.
    await Bun.sleep(DEADLINE_MS / 3);
    const newcomer = await AudioSocketPeer.connect(server.audiosocket);
    newcomer.uuid(newUuid());
    newcomer.audioFrame(new Uint8Array(320), 8000);
    const created = await fetch(`${server.sawt.baseUrl}/v1/calls`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": server.key },
      body: JSON.stringify({ format: "slin16" }),
    });
    expect(created.status).toBe(503);
    const lateAsterisk = await ChanWebsocketClient.dial(server.sawt.baseUrl, { format: "ulaw", json: false });
    expect((await lateAsterisk.closed).code).toBe(1013);
    expect(await settledAt(newcomer.closed, DEADLINE_MS)).toBeLessThan(Number.POSITIVE_INFINITY);
    expect(newcomer.frames.map((f) => f.kind)).toEqual([0x00]);
    const list = (await (
      await fetch(`${server.sawt.baseUrl}/v1/calls`, { headers: { "x-api-key": server.key } })
    ).json()) as { data: { id: string }[] };
    expect(list.data.map((c) => c.id).sort()).toEqual([audiosocket.id, asterisk.channelId].sort());
    expect(audiosocket.peer.frames.some((f) => f.kind === 0x00)).toBe(false);
    expect(asterisk.commands.some((c) => c.command === "HANGUP")).toBe(false);
    expect(audiosocket.app.events.some((e) => e.type === "call.ended")).toBe(false);
    expect(asteriskApp.events.some((e) => e.type === "call.ended")).toBe(false);

    // At the deadline: hung up on the peers' wire, call.ended to the applications, then the closes.
    const hangupFrame = await until(() => audiosocket.peer.frames.find((f) => f.kind === 0x00), "the 0x00 frame", {
      timeoutMs: DEADLINE_MS + AFTER_DEADLINE_MS,
    });
    const hangup = await until(() => asterisk.commands.find((c) => c.command === "HANGUP"), "HANGUP", {
      timeoutMs: DEADLINE_MS + AFTER_DEADLINE_MS,
    });
    const ended = await Promise.all(
      [audiosocket.app, asteriskApp].map(async (app) => {
        const event = await app.next("call.ended");
        return { event, at: app.times[app.events.indexOf(event)]! };
      }),
    );
    const closes = await Promise.all([peerClosed, asteriskClosed, ...appsClosed]);
    over = true;
    expect(await exited).toBe(0);
    const exitedAt = performance.now();
    await Promise.all(talking);

    const ms = (at: number) => Math.round(at - sent);
    const figures = {
      deadlineMs: DEADLINE_MS,
      audiosocketHangupMs: ms(hangupFrame.at),
      chanWebsocketHangupMs: ms(hangup.at),
      callEndedMs: ended.map((e) => ms(e.at)),
      closedMs: closes.map(ms),
      exitMs: ms(exitedAt),
    };
    console.log(`SIGTERM drain of two calls: ${JSON.stringify(figures)}`);
    for (const at of [hangupFrame.at, hangup.at, ...ended.map((e) => e.at)]) {
      expect(at - sent).toBeGreaterThanOrEqual(DEADLINE_MS - 300);
      expect(at - sent).toBeLessThanOrEqual(DEADLINE_MS + AFTER_DEADLINE_MS);
    }
    expect(ended.map((e) => e.event)).toEqual([
      { type: "call.ended", call_id: audiosocket.id, reason: "shutdown" },
      { type: "call.ended", call_id: asterisk.channelId, reason: "shutdown" },
    ]);
    // Each close came after what preceded it on its wire, and every one within the bound.
    const [peerAt, asteriskAt, audiosocketAppAt, asteriskAppAt] = closes as [number, number, number, number];
    expect(peerAt).toBeGreaterThanOrEqual(hangupFrame.at);
    expect(asteriskAt).toBeGreaterThanOrEqual(hangup.at);
    expect(audiosocketAppAt).toBeGreaterThanOrEqual(ended[0]!.at);
    expect(asteriskAppAt).toBeGreaterThanOrEqual(ended[1]!.at);
    for (const at of closes) expect(at - sent).toBeLessThanOrEqual(DEADLINE_MS + AFTER_DEADLINE_MS);
    expect((await audiosocket.app.closed).code).toBe(1000);
    expect((await asteriskApp.closed).code).toBe(1000);

    // Both webhooks were delivered before the exit: signed, reason shutdown, the caller's words.
    for (const [id, app] of [
      [audiosocket.id, audiosocket.app],
      [asterisk.channelId, asteriskApp],
    ] as const) {
      const hook = receiver.received.find((r) => JSON.parse(r.body).call_id === id);
      expect(hook).toBeDefined();
      expect(hook!.event).toBe("call.ended");
      expect(verifyWebhook(SECRET, hook!.signature, hook!.body)).toBe(true);
      const body = JSON.parse(hook!.body);
      expect(body).toMatchObject({ type: "call.ended", call_id: id, reason: "shutdown" });
      const said = body.transcript.segments.filter((s: any) => s.speaker === "caller").map((s: any) => s.text);
      expect(said).toEqual(finals(app));
      expect(said.length).toBeGreaterThan(0);
    }
    // calls.db agrees: each call ended at shutdown and its delivery is recorded as delivered.
    const store = new CallStore(server.sawt.dataDir);
    try {
      for (const id of [audiosocket.id, asterisk.channelId]) {
        const call = store.latest(id)!;
        expect(call.reason).toBe("shutdown");
        expect(store.deliveries(call.seq).map((d) => (d as typeof d & { status: string }).status)).toEqual([
          "delivered",
        ]);
      }
    } finally {
      store.close();
    }
    // The webhooks' wait is bounded: the last words' 2 s and the webhooks' 2 s past the deadline, at most.
    expect(exitedAt - sent).toBeLessThanOrEqual(DEADLINE_MS + 6000);
    await recordFigures("call-drain", figures);
  }, 60_000);

  test("does record a call cut by kill -9 as ended after the restart, and take a new call end to end once ready", async () => {
    const server = await startCallServer();
    servers.push(server);
    let over = false;
    const cut = await audioSocketCall(server, 8000);
    const talking = keepTalking(
      (s) => cut.peer.stream(s, 8000),
      callerAudio([PHONE_TEXTS[0]], 8000),
      () => over,
    );
    await cut.app.next("transcript.final");
    server.sawt.proc.kill("SIGKILL");
    await server.sawt.proc.exited;
    expect(await settledAt(cut.peer.closed, 5000)).toBeLessThan(Number.POSITIVE_INFINITY);
    over = true;
    await talking;

    const restarted = performance.now();
    const sawt = await startSawt({ dataDir: server.sawt.dataDir, env: server.sawt.env });
    restarts.push(sawt);
    const again: CallServer = { ...server, sawt, audiosocket: sawt.ports.audiosocket! };
    await waitForStatus(`${sawt.baseUrl}/ready`, 200, 30_000);
    const readyMs = performance.now() - restarted;
    const get = (path: string) => fetch(`${sawt.baseUrl}${path}`, { headers: { "x-api-key": server.key } });
    expect(((await (await get("/v1/calls")).json()) as { data: unknown[] }).data).toEqual([]);
    // Its transcript was in the dead process's memory: the route says so rather than inventing one.
    const transcript = await get(`/v1/calls/${cut.id}/transcript`);
    expect(transcript.status).toBe(404);
    expect(await transcript.text()).toContain("server stopped");

    const next = await audioSocketCall(again, 8000);
    expect(await next.app.next("call.started")).toMatchObject({ call_id: next.id, door: "audiosocket" });
    await next.peer.stream(callerAudio([PHONE_TEXTS[2]], 8000), 8000);
    expect((await next.app.next("transcript.final")).text).toBe(PHONE_TEXTS[2]);
    next.peer.close();
    expect(await next.app.next("call.ended")).toEqual({ type: "call.ended", call_id: next.id, reason: "hangup" });
    await until(
      async () => ((await (await get("/v1/calls")).json()) as { data: unknown[] }).data.length === 0,
      "no open call",
    );
    const stored = await get(`/v1/calls/${next.id}/transcript?format=json`);
    expect(((await stored.json()) as { text: string }).text).toBe(PHONE_TEXTS[2]);

    // The interrupted call's record: ended, reason shutdown, no transcript.
    expect(await sawt.stop("SIGTERM")).toBe(0);
    const store = new CallStore(sawt.dataDir);
    try {
      expect(store.latest(cut.id)).toMatchObject({ id: cut.id, reason: "shutdown", transcript: null });
      expect(store.latest(cut.id)!.ended_at).not.toBeNull();
      expect(store.latest(next.id)).toMatchObject({ reason: "hangup" });
    } finally {
      store.close();
    }
    console.log(`kill -9 with a call streaming: ready again after ${readyMs.toFixed(0)} ms`);
    await recordFigures("call-kill", { readyMs });
  }, 60_000);
});
