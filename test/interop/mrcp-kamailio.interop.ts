/**
 * Issue 36, acceptance 6 (issue 26's, now with registry peers): two real `sawt serve` boxes with the
 * MRCPv2 door behind Debian's Kamailio started from deploy/kamailio/ (dispatcher probing each box
 * with OPTIONS), SIPp pointed at Kamailio and the npm `mrcp` client SPEAKing on the channel each
 * answer names. Sessions spread over both boxes; a box drained with SIGTERM (and
 * server.drain_grace_ms) gets no new session, the other box takes them all, and the SPEAK open on
 * the drained box finishes with 000 normal before the box exits 0; a box's BYE at its drain
 * deadline reaches SIPp.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { closeDatabase, openDatabase } from "../../src/store/database.ts";
import { KeyStore } from "../../src/store/keys.ts";
import { freePorts } from "../scale/cluster.ts";
import { kamcmdBinary, startKamailio, type Kamailio } from "../scale/kamailio.ts";
import { startSawt, tempDir, type SawtProcess } from "../support/sawt.ts";
import { writePiperPack } from "../support/models/tone-voice.ts";
import { ARABIC_TEXT_SYMBOLS, idMap } from "../tts/support.ts";
import { MrcpPeer } from "./peers/mrcp-client.ts";
import { runSipp, type SippRun } from "./peers/sipp.ts";
import { expectCleanRun, freeEvenPort } from "./support.ts";

const SHORT = "مرحبا بكم";
/** Long enough that its audio, paced in real time, outlasts the drain grace and the new sessions. */
const LONG = Array.from({ length: 3 }, () => "مرحبا بكم في خدمة العملاء").join("، ");
const temp = tempDir("sawt-kamailio-interop-");

interface MrcpBox {
  readonly name: string;
  readonly sipPort: number;
  readonly rtpMin: number;
  readonly uri: string;
  process: SawtProcess;
}

const boxes: MrcpBox[] = [];
let kamailio: Kamailio;

/** Starts one box: its own data dir with an API key the loopback peer maps to, fixed SIP port. */
async function startBox(
  name: string,
  sipPort: number,
  rtpMin: number,
  extra: Record<string, string> = {},
): Promise<MrcpBox> {
  const dataDir = join(temp.path, name);
  mkdirSync(dataDir, { recursive: true });
  const db = openDatabase(dataDir);
  const key = new KeyStore(db).create({ name: "ivr", rpm: 10_000 });
  closeDatabase(db);
  const process = await startSawt({
    dataDir,
    env: {
      SAWT_HOST: "127.0.0.1",
      SAWT_MODELS_DIR: join(temp.path, "models"),
      SAWT_MRCP_ENABLED: "true",
      SAWT_MRCP_SIP_PORT: String(sipPort),
      SAWT_MRCP_MRCP_PORT: "0",
      SAWT_MRCP_RTP_PORT_MIN: String(rtpMin),
      SAWT_MRCP_RTP_PORT_MAX: String(rtpMin + 19),
      // The INVITE comes from Kamailio, the MRCP channel and RTP from the IVR: all on loopback here.
      SAWT_MRCP_PEERS: `127.0.0.1/32=${key.id}`,
      SAWT_DRAIN_GRACE_MS: "1500",
      SAWT_DRAIN_TIMEOUT_MS: "30000",
      SAWT_RUNTIME_METRICS_OPEN: "true",
      ...extra,
    },
  });
  return { name, sipPort, rtpMin, uri: `sip:127.0.0.1:${sipPort}`, process };
}

/** SPEAK requests a box finished (every completion cause). */
async function speaks(box: MrcpBox): Promise<number> {
  const text = await (await fetch(`${box.process.baseUrl}/metrics`)).text();
  return text
    .split("\n")
    .filter((l) => l.startsWith("sawt_mrcp_requests_total{") && l.includes('method="SPEAK"'))
    .reduce((sum, l) => sum + Number(l.split(" ").pop()), 0);
}

/** Open sessions on a box (its gauge). */
async function sessions(box: MrcpBox): Promise<number> {
  const text = await (await fetch(`${box.process.baseUrl}/metrics`)).text();
  return Number(/^sawt_mrcp_sessions (\d+)/m.exec(text)?.[1] ?? Number.NaN);
}

/**
 * SIPp placing `calls` sessions through Kamailio, each SPEAKing `text` on the box that answered
 * (the mrcp client connects where the SDP answer says) and holding `holdMs`; resolves each SPEAK's
 * completion cause, and SIPp's result.
 */
async function speakThroughKamailio(
  text: string,
  options: { calls?: number; limit?: number; holdMs: number; scenario?: string; onCall?: (n: number) => void },
): Promise<{ causes: string[]; sipp: Awaited<SippRun["done"]> }> {
  const calls = options.calls ?? 1;
  const ports: number[] = [];
  for (let i = 0; i < calls; i++) ports.push(await freeEvenPort());
  const sipp = runSipp({
    scenario: options.scenario ?? "session.xml",
    target: `127.0.0.1:${kamailio.port}`,
    rows: ports.map((port) => [port, "speechsynth", "0 8"]),
    calls,
    limit: options.limit ?? 1,
    rate: options.limit ?? 1,
    holdMs: options.holdMs,
    timeoutMs: 120_000,
  });
  const speaking: Promise<string>[] = [];
  for (let n = 1; n <= calls; n++) {
    const call = (await sipp.calls(n, 30_000))[n - 1]!;
    options.onCall?.(n);
    speaking.push(
      (async () => {
        const peer = await MrcpPeer.open(Number(call.mrcp));
        try {
          const id = peer.send("SPEAK", call.channel!, { "content-type": "text/plain" }, text);
          const complete = await peer.event("SPEAK-COMPLETE", id, 60_000);
          await sipp.done;
          return complete.headers["completion-cause"] ?? "";
        } catch (error) {
          // A session the server ended (its drain deadline) never completes its SPEAK.
          return `ended: ${error instanceof Error ? error.message : String(error)}`;
        } finally {
          peer.close();
        }
      })(),
    );
  }
  const causes = await Promise.all(speaking);
  return { causes, sipp: await sipp.done };
}

beforeAll(async () => {
  await writePiperPack(join(temp.path, "models", "yara"), {
    name: "ar_text",
    sampleRate: 16000,
    phonemeIdMap: idMap(ARABIC_TEXT_SYMBOLS),
    phonemeType: "text",
  });
  const ports = await freePorts(5);
  const rtpBase = 30000 + (process.pid % 500) * 40;
  boxes.push(...(await Promise.all([startBox("box1", ports[0]!, rtpBase), startBox("box2", ports[1]!, rtpBase + 20)])));
  kamailio = await startKamailio(
    temp.path,
    ports[2]!,
    boxes.map((b) => `${b.name}=127.0.0.1:${b.sipPort}`),
  );
  await kamailio.waitState(
    boxes.map((b) => b.uri),
    "A",
    30_000,
  );
}, 90_000);

afterAll(async () => {
  await kamailio?.stop();
  await Promise.all(boxes.map((b) => (b.process.proc.exitCode === null ? b.process.stop("SIGKILL") : undefined)));
  temp.remove();
});

describe("SIPp through Kamailio in front of two Sawt boxes", () => {
  test("does spread SIPp's sessions over both boxes", async () => {
    const before = await Promise.all(boxes.map(speaks));
    const { causes, sipp } = await speakThroughKamailio(SHORT, { calls: 4, limit: 4, holdMs: 3000 });
    expectCleanRun(sipp, 4);
    expect(sipp.failed).toBe(0);
    expect(causes).toEqual(Array(4).fill("000 normal"));
    const perBox = (await Promise.all(boxes.map(speaks))).map((n, i) => n - before[i]!);
    console.info(`SPEAKs per box through Kamailio: ${perBox.join(", ")}`);
    expect(perBox.reduce((a, b) => a + b, 0)).toBe(4);
    for (const n of perBox) expect(n).toBeGreaterThanOrEqual(1);
  }, 90_000);

  test("does send new sessions to the other box while a drained box finishes its open SPEAK", async () => {
    const open = speakThroughKamailio(LONG, { holdMs: 16_000 });
    // The box the long SPEAK landed on.
    let drained: MrcpBox | undefined;
    const deadline = Date.now() + 10_000;
    while (!drained && Date.now() < deadline) {
      const counts = await Promise.all(boxes.map(sessions));
      drained = boxes[counts.indexOf(1)];
      await Bun.sleep(50);
    }
    expect(drained).toBeDefined();
    const other = boxes.find((b) => b !== drained)!;
    await Bun.sleep(500); // the SPEAK is under way
    const otherBefore = await speaks(other);
    const sessionLines = () => drained!.process.logs.filter((l) => l.includes('"mrcp session"')).length;
    const drainedSessions = sessionLines();
    drained!.process.proc.kill("SIGTERM");

    // New sessions at once (inside the drain grace: the box refuses them with 503 and Kamailio
    // tries the other box) and after Kamailio's probe took the box out.
    const later = await speakThroughKamailio(SHORT, { calls: 3, holdMs: 2500 });
    expect(later.sipp.code).toBe(0);
    expect(later.causes).toEqual(Array(3).fill("000 normal"));
    // ... while the drained box still had its session open (the SPEAK still speaking).
    expect(await sessions(drained!)).toBe(1);
    console.info(kamailio.logs.filter((l) => l.includes("sawt:")).join("\n"));
    expect((await kamailio.states())[drained!.uri]).toStartWith("I");
    expect((await speaks(other)) - otherBefore).toBe(3);

    const first = await open;
    expect(first.causes).toEqual(["000 normal"]);
    expect(first.sipp.code).toBe(0);
    // The drained box served only the open session, then exited cleanly.
    expect(await drained!.process.proc.exited).toBe(0);
    expect(sessionLines() - drainedSessions).toBe(1);
  }, 120_000);

  test("does deliver the BYE a box sends at its drain deadline to SIPp, with the other box disabled by kamcmd", async () => {
    // Bring back the box drained above, with a short drain deadline; take the other out by hand.
    const index = boxes.findIndex((b) => b.process.proc.exitCode !== null);
    expect(index).toBeGreaterThanOrEqual(0);
    const old = boxes[index]!;
    const box = await startBox(old.name, old.sipPort, old.rtpMin, { SAWT_DRAIN_TIMEOUT_MS: "2000" });
    boxes[index] = box;
    const other = boxes[1 - index]!;
    await kamailio.waitState([box.uri], "A", 10_000);
    const disabled = Bun.spawnSync([
      kamcmdBinary(),
      "-s",
      `unix:${kamailio.ctl}`,
      "dispatcher.set_state",
      "d",
      "1",
      other.uri,
    ]);
    expect(disabled.exitCode).toBe(0);
    expect((await kamailio.states())[other.uri]).toStartWith("D");
    try {
      let answered = false;
      const run = speakThroughKamailio(LONG, {
        holdMs: 0,
        scenario: "session-ended-by-server.xml",
        onCall: () => (answered = true),
      });
      const deadline = Date.now() + 10_000;
      while ((!answered || (await sessions(box)) !== 1) && Date.now() < deadline) await Bun.sleep(50);
      expect(await sessions(other)).toBe(0);
      box.process.proc.kill("SIGTERM");
      expect(await box.process.proc.exited).toBe(0);
      const result = await run;
      // The session was still speaking at the deadline: the box ended it with a BYE, sent
      // straight to SIPp's Contact (no Record-Route from this Kamailio), which SIPp answered.
      expect(result.causes[0]).toStartWith("ended:");
      expect(result.sipp.code).toBe(0);
      expect(result.sipp.messages).toMatch(/^BYE sip:ivr@/m);
      expect(box.process.logs.some((l) => l.includes('"mrcp session"') && l.includes('"shutdown"'))).toBe(true);
    } finally {
      Bun.spawnSync([kamcmdBinary(), "-s", `unix:${kamailio.ctl}`, "dispatcher.set_state", "ap", "1", other.uri]);
    }
  }, 60_000);
});
