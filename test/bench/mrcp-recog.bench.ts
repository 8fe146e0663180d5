/**
 * The MRCPv2 recogniser when the caller's RTP stops (issue 36, acceptance 7): a caller speaks
 * (the tone CTC recogniser's code for a short Arabic phrase, PCMU in real-time 20 ms packets) and
 * then sends no more RTP, or only RFC 3389 comfort noise, or keeps sending silence. The time from
 * the caller's last speech packet to RECOGNITION-COMPLETE, beside Speech-Complete-Timeout: the
 * silence that ends the utterance is counted on the wall clock from the last frame received, so
 * the three callers should get their result alike, about the timeout after they stopped. Against
 * a real `sawt serve`, with the hand-written test client. Medians of 5 runs per case.
 */
import { createSocket } from "node:dgram";
import { join } from "node:path";
import { encodeG711 } from "../../src/audio/g711.ts";
import { floatToInt16 } from "../../src/audio/wav.ts";
import { buildRtp } from "../../src/media/rtp-packet.ts";
import { closeDatabase, openDatabase } from "../../src/store/database.ts";
import { KeyStore } from "../../src/store/keys.ts";
import { concat, silence } from "../asr/support.ts";
import { MrcpConnection, offer, SipClient } from "../mrcp/client.ts";
import { letterToneAudio, writeToneCtcPack } from "../support/models/ctc.ts";
import { startSawt, tempDir, waitForStatus } from "../support/sawt.ts";
import { median } from "./tts-support.ts";

const RUNS = 5;
const TIMEOUTS = [500, 800, 1200];
const dir = tempDir("sawt-bench-mrcp-recog-");
const models = join(dir.path, "models");
await writeToneCtcPack(join(models, "tone-ctc"));
const dataDir = join(dir.path, "data");
const db = openDatabase(dataDir);
const created = new KeyStore(db).create({ name: "bench", rpm: 1_000_000 });
closeDatabase(db);
const sipPort = 30000 + (process.pid % 5000);
const sawt = await startSawt({
  dataDir,
  env: {
    SAWT_MODELS_DIR: models,
    SAWT_ASR_PACK: "tone-ctc",
    SAWT_STREAMING_PARTIAL_INTERVAL_MS: "0",
    SAWT_LOG_LEVEL: "warn",
    SAWT_MRCP_ENABLED: "true",
    SAWT_MRCP_SIP_PORT: String(sipPort),
    SAWT_MRCP_MRCP_PORT: "0",
    SAWT_MRCP_PEERS: `127.0.0.1/32=${created.id}`,
  },
});
await waitForStatus(`${sawt.baseUrl}/v1/asr/health`);

const speech = encodeG711(floatToInt16(concat(silence(0.3, 8000), letterToneAudio("سلام عليكم", 8000))), "pcm_mulaw");
const quiet = encodeG711(floatToInt16(silence(4, 8000)), "pcm_mulaw");

type After = "nothing" | "comfort noise" | "silence";

/** One recognition: speech, then `after`; ms from the last speech packet to RECOGNITION-COMPLETE. */
async function recognise(after: After, completeMs: number): Promise<number> {
  const rtp = createSocket("udp4");
  await new Promise<void>((resolve) => rtp.bind(0, "127.0.0.1", () => resolve()));
  const sip = await SipClient.open(sipPort);
  sip.raw(sip.request("INVITE", { body: offer(["speechrecog"], rtp.address().port, "0 101") }));
  const answer = await sip.next((r) => r.status >= 200, 8000);
  const tag = /tag=([^;\s]+)/.exec(answer.header("to")!)![1]!;
  sip.raw(sip.request("ACK", { toTag: tag, cseq: 1 }));
  const channel = /a=channel:(\S+)/.exec(answer.text)![1]!;
  const to = Number(/m=audio (\d+)/.exec(answer.text)![1]);
  const mrcp = await MrcpConnection.open(Number(/m=application (\d+)/.exec(answer.text)![1]));
  mrcp.send(
    "RECOGNIZE",
    1,
    channel,
    { "Content-Type": "text/uri-list", "Speech-Complete-Timeout": String(completeMs), "Recognition-Timeout": "20000" },
    "builtin:speech/transcribe",
  );
  await mrcp.next(/ 1 200 IN-PROGRESS/);
  let sequence = 0;
  let timestamp = 0;
  const send = (payloadType: number, payload: Uint8Array, ticks: number) => {
    rtp.send(
      buildRtp({ payloadType, marker: sequence === 0, sequence: sequence++, timestamp, ssrc: 7 }, payload),
      to,
      "127.0.0.1",
    );
    timestamp += ticks;
  };
  const start = performance.now();
  let n = 0;
  for (let i = 0; i < speech.length; i += 160, n++) {
    send(0, speech.subarray(i, i + 160), 160);
    const wait = start + (n + 1) * 20 - performance.now();
    if (wait > 0) await Bun.sleep(wait);
  }
  const lastSpeech = performance.now();
  const done = mrcp.next(/RECOGNITION-COMPLETE 1 COMPLETE/, 30_000).then((m) => ({ at: performance.now(), m }));
  let finished = false;
  void done.then(() => (finished = true));
  if (after !== "nothing") {
    for (let i = 0; !finished && i < quiet.length; i += 160, n++) {
      if (after === "silence") send(0, quiet.subarray(i, i + 160), 160);
      else if (i % 1600 === 0) send(13, Uint8Array.of(60), 1600);
      const wait = start + (n + 1) * 20 - performance.now();
      if (wait > 0) await Bun.sleep(wait);
    }
  }
  const { at, m } = await done;
  if (!m.includes("Completion-Cause: 000 success")) throw new Error(`not 000 success: ${m.split("\r\n")[0]}`);
  sip.raw(sip.request("BYE", { toTag: tag }));
  await sip.next();
  mrcp.close();
  sip.close();
  rtp.close();
  return at - lastSpeech;
}

const rows: string[] = [];
await recognise("silence", 800); // warm-up
for (const completeMs of TIMEOUTS) {
  for (const after of ["nothing", "comfort noise", "silence"] as const) {
    const times: number[] = [];
    for (let i = 0; i < RUNS; i++) times.push(await recognise(after, completeMs));
    const m = median(times);
    process.stderr.write(`mrcp-recog bench: ${completeMs} ms, ${after}: ${m.toFixed(0)} ms\n`);
    rows.push(`| ${completeMs} | ${after} | ${m.toFixed(0)} | ${(m / completeMs).toFixed(2)} |`);
  }
}
await sawt.stop();
dir.remove();

console.log(`## MRCP recognition when the caller's RTP stops (mrcp-recog.bench.ts)

\`sawt serve\` with the MRCPv2 door and the tone CTC recogniser, the hand-written test client on
loopback: the caller speaks a short phrase in real-time PCMU packets, then sends nothing more, only
RFC 3389 comfort noise (a packet every 200 ms), or silence. Time from the last speech packet to
RECOGNITION-COMPLETE (always \`000 success\`), medians of ${RUNS} runs. Missing audio is silence on
the wall clock from the last frame received, so a caller that stops sending gets its result as
soon as one that sends silence; the result follows the timeout by the endpointer's last VAD
window and the final decode.

| Speech-Complete-Timeout (ms) | after the speech | last packet → result (ms) | / timeout |
|---|---|---|---|
${rows.join("\n")}
`);
