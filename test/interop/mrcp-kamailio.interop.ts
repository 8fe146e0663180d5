/**
 * Issue 26, acceptance 4: two real `sawt serve` boxes with the MRCPv2 door behind Debian's
 * Kamailio started from deploy/kamailio/ (dispatcher probing each box with OPTIONS), UniMRCP's umc
 * pointed at Kamailio. Sessions spread over both boxes; a box drained with SIGTERM (and
 * server.drain_grace_ms) gets no new session, the other box takes them all, and the SPEAK open on
 * the drained box finishes with 000 normal before the box exits 0.
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
import { umcPrefix, umcRoot } from "./umc.ts";

const SHORT = "مرحبا بكم";
/** Long enough that its audio, paced in real time, outlasts the drain grace and the new sessions. */
const LONG = Array.from({ length: 4 }, () => "مرحبا بكم في خدمة العملاء").join("، ");
const found = umcPrefix();
const prefix = "prefix" in found ? found.prefix : "";
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

/** umc's synthesizer scenario speaking data/speak-ar.txt, umc recording 8 kHz linear PCM. */
const SCENARIO = `<?xml version="1.0" encoding="UTF-8"?>
<umcscenario name="synth" class="Synthesizer" profile="uni2">
  <resource-discovery enable="0"/>
  <speak enable="1" content-type="text/plain" content-location="speak-ar.txt"/>
  <termination enable="1"><capabilities><codec name="LPCM" rates="8000"/></capabilities></termination>
</umcscenario>`;

/** A umc root whose "uni2" profile points at Kamailio, speaking `text`. */
function umcThroughKamailio(text: string) {
  const root = umcRoot(prefix, kamailio.port, "PCMU telephone-event/101/8000");
  root.data("speak-ar.txt", text);
  root.scenario("synthesizer.xml", SCENARIO);
  return root;
}

const completions = (log: string) => log.match(/Completion-Cause: 000 normal/g)?.length ?? 0;

beforeAll(async () => {
  if ("missing" in found) throw new Error(found.missing);
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

describe("umc through Kamailio in front of two Sawt boxes", () => {
  test("does spread umc's sessions over both boxes", async () => {
    const before = await Promise.all(boxes.map(speaks));
    const root = umcThroughKamailio(SHORT);
    try {
      const log = await root.run(["run synth", "run synth", "run synth", "run synth"], { gapMs: 3000, waitMs: 2000 });
      if (process.env.UMC_DEBUG) console.error(log);
      expect(completions(log)).toBe(4);
    } finally {
      root.remove();
    }
    const perBox = (await Promise.all(boxes.map(speaks))).map((n, i) => n - before[i]!);
    console.info(`SPEAKs per box through Kamailio: ${perBox.join(", ")}`);
    expect(perBox.reduce((a, b) => a + b, 0)).toBe(4);
    for (const n of perBox) expect(n).toBeGreaterThanOrEqual(1);
  }, 60_000);

  test("does send new sessions to the other box while a drained box finishes its open SPEAK", async () => {
    const open = umcThroughKamailio(LONG);
    const later = umcThroughKamailio(SHORT);
    try {
      const openRun = open.run(["run synth"], { waitMs: 25_000 });
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
      const laterLog = await later.run(["run synth", "run synth", "run synth"], { gapMs: 3000, waitMs: 2000 });
      expect(completions(laterLog)).toBe(3);
      // ... while the drained box still had its session open (the SPEAK still speaking).
      expect(await sessions(drained!)).toBe(1);
      console.info(kamailio.logs.filter((l) => l.includes("sawt:")).join("\n"));
      expect((await kamailio.states())[drained!.uri]).toStartWith("I");
      expect((await speaks(other)) - otherBefore).toBe(3);

      const openLog = await openRun;
      if (process.env.UMC_DEBUG) console.error(openLog);
      expect(openLog).toContain("SPEAK-COMPLETE");
      expect(completions(openLog)).toBe(1);
      // The drained box served only the open session, then exited cleanly.
      expect(await drained!.process.proc.exited).toBe(0);
      expect(sessionLines() - drainedSessions).toBe(1);
    } finally {
      open.remove();
      later.remove();
    }
  }, 90_000);

  test("does deliver the BYE a box sends at its drain deadline to the IVR, with the other box disabled by kamcmd", async () => {
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
    const root = umcThroughKamailio(LONG);
    try {
      const run = root.run(["run synth"], { waitMs: 8000 });
      const deadline = Date.now() + 10_000;
      while ((await sessions(box)) !== 1 && Date.now() < deadline) await Bun.sleep(50);
      expect(await sessions(other)).toBe(0);
      box.process.proc.kill("SIGTERM");
      expect(await box.process.proc.exited).toBe(0);
      const log = await run;
      if (process.env.UMC_DEBUG) console.error(log);
      // The session was still speaking at the deadline: the box ended it with a BYE, sent
      // straight to umc's Contact (no Record-Route from this Kamailio).
      expect(log).toContain("nua_i_bye");
      expect(box.process.logs.some((l) => l.includes('"mrcp session"') && l.includes('"shutdown"'))).toBe(true);
    } finally {
      root.remove();
      Bun.spawnSync([kamcmdBinary(), "-s", `unix:${kamailio.ctl}`, "dispatcher.set_state", "ap", "1", other.uri]);
    }
  }, 60_000);
});
