/**
 * Deepgram-compatible live STT (`GET /v1/listen`) against the OpenAI realtime door for the same
 * audio on the same server (issue 40: goal Deepgram / realtime ≤ 1.05): both run the live core, so
 * what differs is the door (its parsing, its messages). One real `sawt serve` with the constructed
 * tone CTC recogniser (a real ONNX model); each stream is the same utterances at real time in 20 ms
 * chunks of 16 kHz linear16, the same endpointing (500 ms of silence, OpenAI's other server_vad
 * defaults) and interim results on. Latency: from the chunk that completes an utterance's
 * end-of-speech silence to its final (Deepgram `Results` is_final, realtime `…completed`). Streams
 * alternate between the doors, so drift on a shared machine touches both alike; the ratio is of
 * medians within this run.
 */
import { join } from "node:path";
import { concat, modelsDir, silence } from "../asr/support.ts";
import { pcm16 } from "../asr/format-support.ts";
import { connect, realtimeSession, type TestSocket } from "../asr/ws-client.ts";
import { letterToneAudio, writeToneCtcPack } from "../support/models/ctc.ts";
import { startSawt, until } from "../support/sawt.ts";
import { median } from "./tts-support.ts";

const RATE = 16000;
const CHUNK_BYTES = 640; // 20 ms of linear16
const SILENCE_MS = 500;
const UTTERANCES = 5;
const ROUNDS = 3;

const models = modelsDir();
await writeToneCtcPack(join(models.dir, "tone-ctc"));
const sawt = await startSawt({ env: { SAWT_MODELS_DIR: models.dir, SAWT_LOG_LEVEL: "warn" } });
const { key } = await sawt.createKey({ name: "bench", rpm: 100_000 });
const ws = sawt.baseUrl.replace(/^http/, "ws");

// The stream: a lead-in, then each utterance followed by 1.2 s of silence.
const speech = letterToneAudio("سلام عليكم ورحمة الله");
const lead = silence(0.5);
const gap = silence(1.2);
const audio = concat(lead, ...Array.from({ length: UTTERANCES }, () => concat(speech, gap)));
/** The chunk that completes each utterance's end-of-speech silence. */
const decisions = Array.from({ length: UTTERANCES }, (_, n) => {
  const speechEnd = lead.length + n * (speech.length + gap.length) + speech.length;
  return Math.ceil(((speechEnd + (SILENCE_MS * RATE) / 1000) * 2) / CHUNK_BYTES);
});

/** Streams `audio` at real time through `sendChunk`; the send time of every chunk. */
async function paced(sendChunk: (bytes: Uint8Array) => void): Promise<number[]> {
  const pcm = pcm16(audio);
  const sent: number[] = [];
  const start = performance.now();
  for (let i = 0, at = 0; at < pcm.length; i++, at += CHUNK_BYTES) {
    const wait = start + i * 20 - performance.now();
    if (wait > 0) await Bun.sleep(wait);
    sendChunk(pcm.subarray(at, at + CHUNK_BYTES));
    sent.push(performance.now());
  }
  return sent;
}

/** The latencies of one stream: each final's arrival after its utterance's deciding chunk. */
async function run(
  client: TestSocket,
  send: (bytes: Uint8Array) => void,
  isFinal: (event: any) => boolean,
): Promise<number[]> {
  const sent = await paced(send);
  await until(() => client.events.filter(isFinal).length >= UTTERANCES || undefined, "every final", {
    timeoutMs: 10_000,
  });
  const arrivals = client.events.flatMap((e, i) => (isFinal(e) ? [client.times[i]!] : []));
  client.ws.close();
  return decisions.map((chunk, n) => arrivals[n]! - sent[Math.min(chunk, sent.length - 1)]!);
}

const deepgram = async () => {
  const query = `encoding=linear16&sample_rate=${RATE}&endpointing=${SILENCE_MS}&interim_results=true&language=ar`;
  const client = await connect(`${ws}/v1/listen?${query}`, { headers: { authorization: `Token ${key}` } });
  const final = (e: any) => e.type === "Results" && e.is_final && e.channel.alternatives[0].transcript !== "";
  return run(client, (bytes) => client.ws.send(bytes), final);
};

const realtime = async () => {
  const client = await realtimeSession(sawt.baseUrl, key, {
    type: "transcription",
    audio: {
      input: {
        format: { type: "audio/pcm", rate: RATE },
        transcription: { language: "ar" },
        turn_detection: { type: "server_vad", silence_duration_ms: SILENCE_MS },
      },
    },
  });
  const final = (e: any) => e.type === "conversation.item.input_audio_transcription.completed" && e.transcript !== "";
  const append = (bytes: Uint8Array) =>
    client.sendJson({ type: "input_audio_buffer.append", audio: Buffer.from(bytes).toString("base64") });
  return run(client, append, final);
};

const latencies = { deepgram: [] as number[], realtime: [] as number[] };
// One untimed stream each warms both doors.
await deepgram();
await realtime();
for (let round = 0; round < ROUNDS; round++) {
  latencies.deepgram.push(...(await deepgram()));
  latencies.realtime.push(...(await realtime()));
}
await sawt.stop("SIGKILL");
models.remove();

const p90 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length * 0.9)]!;
const row = (name: string, values: number[]) =>
  `| ${name} | ${values.length} | ${median(values).toFixed(1)} | ${p90(values).toFixed(1)} |`;
const ratio = median(latencies.deepgram) / median(latencies.realtime);
console.log(`## Deepgram-compatible live STT against the realtime door (deepgram-stt.bench.ts)

Final latency of Deepgram's \`/v1/listen\` WebSocket and of the OpenAI realtime door for the same
audio on one \`sawt serve\` (constructed tone CTC recogniser, energy VAD): ${ROUNDS} streams per door
of ${UTTERANCES} utterances at real time in 20 ms chunks of 16 kHz linear16, endpointing
${SILENCE_MS} ms of silence on both, interim results on; streams alternate between the doors.
Latency: from the chunk that completes an utterance's end-of-speech silence to its final.

| Door | Finals | Median latency (ms) | p90 latency (ms) |
|---|---|---|---|
${row("Deepgram /v1/listen", latencies.deepgram)}
${row("realtime /v1/realtime", latencies.realtime)}

Deepgram / realtime median final latency: **${ratio.toFixed(2)}** (goal ≤ 1.05).
`);
process.exit(0);
