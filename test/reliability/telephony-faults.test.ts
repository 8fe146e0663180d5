/**
 * Issue 39, faults on the telephony side, with the real `sawt serve` behind Debian's Kamailio
 * (deploy/kamailio/, probing with OPTIONS every second):
 *
 * - `kill -9` with MRCP sessions open (one SPEAKing): Kamailio takes the box out within two
 *   probes (each unanswered probe fails after fr_timer, 2 s), keeps it out while the restarted
 *   box warms up, and puts it back once it is ready (`/ready` 200, OPTIONS 200); the IVR's next
 *   INVITE through Kamailio gets 200, and the dead sessions' in-dialog requests get 481, not
 *   silence.
 * - SIGTERM with sessions open past `server.drain_timeout_ms`: every open session gets its BYE
 *   at the deadline (not before), its control connection is closed, and the box exits 0.
 *
 * test/interop/mrcp-kamailio.interop.ts covers the graceful side with SIPp (a drained box's new
 * sessions go to another box, a drain deadline's BYE reaches SIPp through Kamailio).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { closeDatabase, openDatabase } from "../../src/store/database.ts";
import { KeyStore } from "../../src/store/keys.ts";
import { installTestPacks } from "../grpc/client.ts";
import { answerOf, MrcpConnection, offer, SipClient } from "../mrcp/client.ts";
import { freePorts } from "../scale/cluster.ts";
import { startKamailio, type Kamailio } from "../scale/kamailio.ts";
import { startSawt, tempDir, type SawtProcess, waitForStatus } from "../support/sawt.ts";
import { recordFigures } from "./server.ts";

/** Kamailio's probe interval (render.sh's default) and its tm fr_timer (kamailio.cfg.in). */
const PROBE_S = 1;
const FR_TIMER_S = 2;
const LONG = "مرحبا بكم في خدمة العملاء. ".repeat(8);

const temp = tempDir("sawt-telephony-faults-");
let kamailio: Kamailio;
let sipPort: number;
let mrcpPort: number;
let keyId: string;
let box: SawtProcess | undefined;
const rtpMin = 32000 + (process.pid % 300) * 20;

function startBox(env: Record<string, string> = {}): Promise<SawtProcess> {
  return startSawt({
    dataDir: join(temp.path, "data"),
    env: {
      SAWT_MODELS_DIR: join(temp.path, "models"),
      SAWT_MRCP_ENABLED: "true",
      SAWT_MRCP_SIP_PORT: String(sipPort),
      SAWT_MRCP_MRCP_PORT: String(mrcpPort),
      SAWT_MRCP_RTP_PORT_MIN: String(rtpMin),
      SAWT_MRCP_RTP_PORT_MAX: String(rtpMin + 19),
      SAWT_MRCP_PEERS: `127.0.0.1/32=${keyId}`,
      ...env,
    },
  });
}

/** A session opened through Kamailio; in-dialog requests go straight to the box, as its Contact says. */
async function openThroughKamailio(
  resources: string[],
): Promise<{ client: SipClient; tag: string; channel: string; mrcp: MrcpConnection }> {
  const client = await SipClient.open(kamailio.port);
  client.raw(client.request("INVITE", { body: offer(resources, 40000 + 2 * Math.floor(Math.random() * 5000)) }));
  const answer = await client.next((r) => r.status >= 200, 10_000);
  expect(answer.status).toBe(200);
  const tag = /tag=([^;\s]+)/.exec(answer.header("to")!)![1]!;
  client.socket.send(Buffer.from(client.request("ACK", { toTag: tag, cseq: 1 })), sipPort, "127.0.0.1");
  const { channel, mrcpPort: port } = answerOf(answer.text);
  const mrcp = await MrcpConnection.open(port);
  return { client, tag, channel, mrcp };
}

async function until(check: () => Promise<boolean> | boolean, timeoutMs: number): Promise<number> {
  const started = performance.now();
  while (!(await check())) {
    if (performance.now() - started > timeoutMs) return Number.POSITIVE_INFINITY;
    await Bun.sleep(50);
  }
  return performance.now() - started;
}

const state = async () => (await kamailio.states())[`sip:127.0.0.1:${sipPort}`] ?? "";

beforeAll(async () => {
  await installTestPacks(join(temp.path, "models"), { voice: true });
  const db = openDatabase(join(temp.path, "data"));
  keyId = new KeyStore(db).create({ name: "ivr", rpm: 10_000 }).id;
  closeDatabase(db);
  const ports = await freePorts(3);
  [sipPort, mrcpPort] = [ports[0]!, ports[1]!];
  box = await startBox();
  kamailio = await startKamailio(temp.path, ports[2]!, [`box1=127.0.0.1:${sipPort}`]);
  await kamailio.waitState([`sip:127.0.0.1:${sipPort}`], "A", 30_000);
}, 90_000);

afterAll(async () => {
  await kamailio?.stop();
  if (box && box.proc.exitCode === null) await box.stop("SIGKILL");
  temp.remove();
});

describe("the telephony side under faults", () => {
  test("does come back after kill -9 with sessions open: out within two probes, back once ready, INVITE 200", async () => {
    const sessions = await Promise.all([
      openThroughKamailio(["speechsynth"]),
      openThroughKamailio(["speechsynth", "speechrecog"]),
    ]);
    sessions[0]!.mrcp.send("SPEAK", 1, sessions[0]!.channel, { "Content-Type": "text/plain" }, LONG);
    await sessions[0]!.mrcp.next(/ 1 200 IN-PROGRESS/);
    box!.proc.kill("SIGKILL");
    await box!.proc.exited;
    const outMs = await until(async () => (await state()).startsWith("I"), 15_000);
    console.log(`kill -9: out of Kamailio's dispatcher after ${outMs.toFixed(0)} ms`);
    expect(outMs).toBeLessThanOrEqual((2 * PROBE_S + FR_TIMER_S + 1) * 1000);

    // Restart on the same data dir and ports; Kamailio must not send sessions before it is ready.
    const restarted = performance.now();
    box = await startBox();
    let readyAt = Number.POSITIVE_INFINITY;
    let activeAt = Number.POSITIVE_INFINITY;
    while (activeAt === Number.POSITIVE_INFINITY && performance.now() - restarted < 60_000) {
      const now = performance.now();
      if (readyAt === Number.POSITIVE_INFINITY && (await fetch(`${box.baseUrl}/ready`)).status === 200) readyAt = now;
      if ((await state()).startsWith("A")) activeAt = now;
      await Bun.sleep(50);
    }
    console.log(
      `restart: ready after ${(readyAt - restarted).toFixed(0)} ms, back in the dispatcher after ${(activeAt - restarted).toFixed(0)} ms`,
    );
    expect(activeAt).toBeGreaterThanOrEqual(readyAt - 100);
    expect(activeAt - readyAt).toBeLessThanOrEqual((2 * PROBE_S + 1) * 1000);

    // The IVR's next INVITE gets 200 from the restarted box; the dead dialogs get 481.
    const next = await openThroughKamailio(["speechsynth"]);
    for (const old of sessions) {
      old.client.socket.send(Buffer.from(old.client.request("BYE", { toTag: old.tag })), sipPort, "127.0.0.1");
      expect((await old.client.next((r) => r.status >= 200, 5000)).status).toBe(481);
      old.mrcp.close();
      old.client.close();
    }
    next.client.socket.send(Buffer.from(next.client.request("BYE", { toTag: next.tag })), sipPort, "127.0.0.1");
    expect((await next.client.next((r) => r.status >= 200, 5000)).status).toBe(200);
    next.mrcp.close();
    next.client.close();
    await recordFigures("telephony-kill", { outMs, readyMs: readyAt - restarted, backMs: activeAt - restarted });
  }, 120_000);

  test("does end every open session with a BYE at the SIGTERM drain deadline, and exit 0", async () => {
    await box!.stop("SIGKILL");
    const deadlineMs = 3000;
    box = await startBox({ SAWT_DRAIN_TIMEOUT_MS: String(deadlineMs) });
    // Kamailio may not have noticed the restart yet (still "A" from before the kill): sessions
    // opened before the box is ready were refused (503 from the box, 500 from Kamailio while the
    // port was closed).
    await waitForStatus(`${box.baseUrl}/ready`, 200, 30_000);
    await kamailio.waitState([`sip:127.0.0.1:${sipPort}`], "A", 30_000);
    const sessions = await Promise.all([1, 2, 3].map(() => openThroughKamailio(["speechsynth"])));
    sessions[0]!.mrcp.send("SPEAK", 1, sessions[0]!.channel, { "Content-Type": "text/plain" }, LONG);
    await sessions[0]!.mrcp.next(/ 1 200 IN-PROGRESS/);
    const closed = sessions.map(
      (s) => new Promise<number>((resolve) => s.mrcp.socket.once("close", () => resolve(performance.now()))),
    );
    const sent = performance.now();
    box.proc.kill("SIGTERM");
    const byes = await Promise.all(
      sessions.map(async (s) => {
        const bye = await s.client.next((r) => r.text.startsWith("BYE "), deadlineMs + 10_000);
        expect(bye.text).toContain(`Call-ID: ${s.client.callId}`);
        return performance.now() - sent;
      }),
    );
    const closedAfter = (await Promise.all(closed)).map((at) => at - sent);
    console.log(
      `SIGTERM: BYEs after ${byes.map((ms) => ms.toFixed(0)).join(", ")} ms, control connections closed after ${closedAfter.map((ms) => ms.toFixed(0)).join(", ")} ms`,
    );
    for (const ms of byes) {
      expect(ms).toBeGreaterThanOrEqual(deadlineMs - 300);
      expect(ms).toBeLessThanOrEqual(deadlineMs + 5000);
    }
    expect(await box.proc.exited).toBe(0);
    for (const s of sessions) s.client.close();
    await recordFigures("telephony-drain", { deadlineMs, byeMs: byes, closedMs: closedAfter });
  }, 60_000);
});
