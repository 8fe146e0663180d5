/**
 * The MRCPv2 door (issue 26, acceptance 5) against a real `sawt serve`, with the hand-written test
 * client: time from SPEAK to the first RTP packet over REST's time to first byte for the same text
 * (goal ≤ 1.2); RTP pacing jitter (inter-arrival minus 20 ms, p99; goal ≤ 2 ms on an idle
 * machine); and how many concurrent synth sessions this machine keeps in real time with the tone
 * voice (every stream's packets within 60 ms of their real-time schedule).
 */
import { createSocket, type Socket } from "node:dgram";
import { join } from "node:path";
import { closeDatabase, openDatabase } from "../../src/store/database.ts";
import { KeyStore } from "../../src/store/keys.ts";
import { MrcpConnection, offer, SipClient } from "../mrcp/client.ts";
import { writePiperPack } from "../support/models/tone-voice.ts";
import { startSawt, tempDir, waitForStatus } from "../support/sawt.ts";
import { ARABIC_TEXT_SYMBOLS, idMap } from "../tts/support.ts";
import { median } from "./tts-support.ts";

const RUNS = 5;
const SENTENCE = "مرحبا بكم في خدمة العملاء.";
const PROMPT = Array.from({ length: 10 }, () => SENTENCE).join(" ");
/** What each concurrent session speaks (three sentences: a few seconds in real time). */
const SHORT = Array.from({ length: 3 }, () => SENTENCE).join(" ");

const dir = tempDir("sawt-bench-mrcp-");
const models = join(dir.path, "models");
await writePiperPack(join(models, "yara"), {
  name: "ar_text",
  sampleRate: 22050,
  phonemeIdMap: idMap(ARABIC_TEXT_SYMBOLS),
  phonemeType: "text",
});
const dataDir = join(dir.path, "data");
const db = openDatabase(dataDir);
const created = new KeyStore(db).create({ name: "bench", rpm: 1_000_000 });
closeDatabase(db);
const sipPort = 30000 + (process.pid % 5000);
const sawt = await startSawt({
  dataDir,
  env: {
    SAWT_MODELS_DIR: models,
    SAWT_LOG_LEVEL: "warn",
    SAWT_MRCP_ENABLED: "true",
    SAWT_MRCP_SIP_PORT: String(sipPort),
    SAWT_MRCP_MRCP_PORT: "0",
    SAWT_MRCP_PEERS: `127.0.0.1/32=${created.id}`,
    SAWT_MRCP_MAX_SESSIONS: "1000",
    SAWT_TTS_MAX_QUEUE: "1000",
  },
});
await waitForStatus(`${sawt.baseUrl}/v1/tts/health`);

/** One synth session: SIP dialog, control connection, a socket receiving its RTP. */
async function session(): Promise<{
  speak(text: string, stopAtFirst?: boolean): Promise<{ sent: number; arrivals: number[] }>;
  close(): Promise<void>;
}> {
  const rtp: Socket = createSocket("udp4");
  await new Promise<void>((resolve) => rtp.bind(0, "127.0.0.1", () => resolve()));
  let arrivals: number[] = [];
  rtp.on("message", () => arrivals.push(performance.now()));
  const sip = await SipClient.open(sipPort);
  // A UAC retransmits its INVITE (T1 doubling) until a final answer: loopback UDP can drop too.
  const invite = sip.request("INVITE", {
    body: offer(["speechsynth"], rtp.address().port, "0 101", "recvonly"),
    branch: `z9hG4bKbench${Math.random().toString(36).slice(2)}`,
  });
  let answer: Awaited<ReturnType<typeof sip.next>> | undefined;
  for (let wait = 500; !answer && wait <= 8000; wait *= 2) {
    sip.raw(invite);
    answer = await sip.next((r) => r.status >= 200, wait).catch(() => undefined);
  }
  if (!answer) throw new Error("INVITE never answered");
  if (answer.status !== 200) throw new Error(`INVITE answered ${answer.status} ${answer.text.split("\r\n")[0]}`);
  const tag = /tag=([^;\s]+)/.exec(answer.header("to")!)![1]!;
  sip.raw(sip.request("ACK", { toTag: tag, cseq: 1 }));
  const channel = /a=channel:(\S+)/.exec(answer.text)![1]!;
  const mrcp = await MrcpConnection.open(Number(/m=application (\d+)/.exec(answer.text)![1]));
  let id = 0;
  return {
    async speak(text, stopAtFirst = false) {
      arrivals = [];
      const requestId = ++id;
      const sent = performance.now();
      mrcp.send("SPEAK", requestId, channel, { "Content-Type": "text/plain" }, text);
      if (stopAtFirst) {
        // Playout is real time: the first packet is what is measured, the rest is stopped.
        while (arrivals.length === 0) await Bun.sleep(1);
        const stopId = ++id;
        mrcp.send("STOP", stopId, channel);
        await mrcp.next(new RegExp(` ${stopId} 200 COMPLETE`), 10_000);
      } else await mrcp.next(new RegExp(`SPEAK-COMPLETE ${requestId} `), 300_000);
      return { sent, arrivals: [...arrivals] };
    },
    async close() {
      sip.raw(sip.request("BYE", { toTag: tag }));
      await sip.next();
      mrcp.close();
      sip.close();
      rtp.close();
    },
  };
}

async function restFirstByte(text: string): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${sawt.baseUrl}/v1/tts/audio/speech`, {
    method: "POST",
    headers: { "x-api-key": created.key, "content-type": "application/json" },
    body: JSON.stringify({ input: text, response_format: "pcm", sample_rate: 8000, encoding: "pcm_mulaw" }),
  });
  const reader = response.body!.getReader();
  let first = Number.NaN;
  for (let next = await reader.read(); !next.done; next = await reader.read()) {
    if (Number.isNaN(first)) first = performance.now() - started;
  }
  return first;
}

// 1. First RTP packet after SPEAK vs REST's first byte, same text and rate.
const one = await session();
await one.speak(SENTENCE);
await restFirstByte(SENTENCE);
const rtpFirst: number[] = [];
const restFirst: number[] = [];
for (let i = 0; i < RUNS; i++) {
  const run = await one.speak(PROMPT, true);
  rtpFirst.push(run.arrivals[0]! - run.sent);
  restFirst.push(await restFirstByte(PROMPT));
}

// 2. Pacing jitter over one long prompt (inter-arrival minus 20 ms, whole talk spurts).
const long = await one.speak(PROMPT);
const jitter = long.arrivals.slice(1).map((at, i) => Math.abs(at - long.arrivals[i]! - 20));
jitter.sort((a, b) => a - b);
const p99 = jitter[Math.floor(jitter.length * 0.99)] ?? Number.NaN;
await one.close();

// 3. Concurrent sessions in real time: each packet within 60 ms of start + n·20 ms.
async function sustains(count: number): Promise<{ ok: boolean; worstMs: number }> {
  const sessions = await Promise.all(Array.from({ length: count }, () => session()));
  const runs = await Promise.all(sessions.map((s) => s.speak(SHORT)));
  await Promise.all(sessions.map((s) => s.close()));
  let worst = 0;
  for (const { arrivals } of runs) {
    for (const [n, at] of arrivals.entries()) worst = Math.max(worst, at - (arrivals[0]! + n * 20));
  }
  return { ok: worst <= 60, worstMs: worst };
}
const tried: string[] = [];
let sustained = 0;
for (const count of [1, 2, 4, 8, 16, 32, 64, 128]) {
  const result = await sustains(count);
  process.stderr.write(`mrcp bench: ${count} sessions, worst ${result.worstMs.toFixed(0)} ms\n`);
  tried.push(`${count}: ${result.worstMs.toFixed(0)} ms`);
  if (!result.ok) break;
  sustained = count;
}
await sawt.stop();
dir.remove();

const rtp = median(rtpFirst);
const rest = median(restFirst);
console.log(`## MRCP synthesis (mrcp.bench.ts)

\`sawt serve\` with the MRCPv2 door, the hand-written test client on loopback, the tone voice
(22.05 kHz, sent as PCMU 8 kHz), a ten-sentence Arabic prompt. Medians of ${RUNS} runs.

| measure | value | goal |
|---|---|---|
| SPEAK → first RTP packet (ms) | ${rtp.toFixed(1)} | |
| REST pcm_mulaw 8 kHz → first byte (ms) | ${rest.toFixed(1)} | |
| first RTP packet / REST first byte | ${(rtp / rest).toFixed(2)} | ≤ 1.2 |
| RTP inter-arrival jitter p99 (ms, ${jitter.length} packets) | ${p99.toFixed(2)} | ≤ 2 on an idle machine |
| concurrent synth sessions kept in real time | ${sustained} | |

Concurrent sessions tried (worst packet lateness against its real-time slot, limit 60 ms):
${tried.join(", ")}.
`);
