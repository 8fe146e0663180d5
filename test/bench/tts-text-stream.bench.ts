/**
 * Streaming text in (issue 40, acceptance 6): words arrive 50 ms apart, as an LLM writes them, over
 * Sawt's TTS WebSocket (`text` messages) and Deepgram's (`Speak` messages). For each sentence, the
 * time from sending its last word to receiving its first audio, against that sentence's own
 * synthesis time on the same path (the one-request message for the sentence alone, to its audio).
 * Streaming text costs nothing when the ratio is near 1: a sentence starts the moment it is
 * complete, and earlier sentences' audio never holds it back. Goal: ≤ 1.2.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { prepareText } from "../../src/tts/frontend/index.ts";
import { writePiperPack } from "../support/models/tone-voice.ts";
import { startSawt, tempDir, waitForStatus } from "../support/sawt.ts";
import { median, MULTI_INPUT, speakTimed, TEXT_MAP } from "./tts-support.ts";

const ROUNDS = 7;
const WORD_GAP_MS = 50;
const WORDS = MULTI_INPUT.split(/(?= )/u);
const SENTENCES = prepareText(MULTI_INPUT, "ar").map((s) => s.text);

const dir = tempDir("sawt-bench-text-stream-");
const models = join(dir.path, "models");
mkdirSync(models);
// A voice whose sentences cost real time (tens of ms), as a neural voice's do.
await writePiperPack(join(models, "yara"), {
  name: "ar_bench-cost",
  sampleRate: 16000,
  phonemeIdMap: TEXT_MAP,
  phonemeType: "text",
  costRepeats: 300,
});
const sawt = await startSawt({
  env: { SAWT_MODELS_DIR: models, SAWT_RUNTIME_INTRA_OP_THREADS: "1", SAWT_LOG_LEVEL: "warn" },
});
await waitForStatus(`${sawt.baseUrl}/v1/tts/health`);
const { key } = await sawt.createKey({ name: "bench", rpm: 1_000_000 });
const ws = sawt.baseUrl.replace("http", "ws");

/** How one path streams words and tells audio from its other messages. */
interface Path {
  readonly name: string;
  readonly url: string;
  readonly headers: Record<string, string>;
  word(text: string): string;
  end(): string[];
}

const PATHS: Path[] = [
  {
    name: "TTS WebSocket `text` messages",
    url: `${ws}/v1/tts/ws`,
    headers: { "x-api-key": key },
    word: (text) => JSON.stringify({ type: "text", text }),
    end: () => [JSON.stringify({ type: "close" })],
  },
  {
    name: "Deepgram WebSocket `Speak` messages",
    url: `${ws}/v1/speak?model=Yara&sample_rate=16000`,
    headers: { Authorization: `Token ${key}` },
    word: (text) => JSON.stringify({ type: "Speak", text }),
    end: () => [JSON.stringify({ type: "Flush" })],
  },
];

/**
 * One round: words 50 ms apart; each sentence's first audio frame, in ms after the word that
 * completed it was sent. Every sentence's audio comes in one frame, in order.
 */
function round(path: Path): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(path.url, { headers: path.headers } as unknown as string[]);
    socket.binaryType = "arraybuffer";
    const lastWordAt: number[] = [];
    const latencies: number[] = [];
    socket.onmessage = (event) => {
      if (typeof event.data === "string") return;
      latencies.push(performance.now() - lastWordAt[latencies.length]!);
      if (latencies.length === SENTENCES.length) {
        socket.close();
        resolve(latencies);
      }
    };
    socket.onerror = () => reject(new Error("websocket error"));
    socket.onopen = async () => {
      for (const word of WORDS) {
        socket.send(path.word(word));
        if (/[.!?؟]$/u.test(word)) lastWordAt.push(performance.now());
        await Bun.sleep(WORD_GAP_MS);
      }
      for (const message of path.end()) socket.send(message);
    };
  });
}

/** Each sentence's own synthesis on the socket: the one-request message, to its audio (median). */
async function alone(): Promise<number[]> {
  const url = `${ws}/v1/tts/ws`;
  const out: number[] = [];
  for (const sentence of SENTENCES) {
    const times: number[] = [];
    for (let i = 0; i < ROUNDS + 2; i++) times.push((await speakTimed(url, key, { input: sentence })).firstAudioMs);
    out.push(median(times.slice(2)));
  }
  return out;
}

const synth = await alone();
const rows: string[] = [];
let worst = 0;
for (const path of PATHS) {
  await round(path); // warm-up
  const rounds: number[][] = [];
  for (let i = 0; i < ROUNDS; i++) rounds.push(await round(path));
  SENTENCES.forEach((_, k) => {
    const latency = median(rounds.map((r) => r[k]!));
    const ratio = latency / synth[k]!;
    worst = Math.max(worst, ratio);
    rows.push(`| ${path.name} | ${k + 1} | ${synth[k]!.toFixed(1)} | ${latency.toFixed(1)} | ${ratio.toFixed(2)} |`);
  });
}

await sawt.stop();
dir.remove();

console.log(`## Streaming text in: words 50 ms apart (tts-text-stream.bench.ts)

${WORDS.length} words of ${SENTENCES.length} Arabic sentences sent ${WORD_GAP_MS} ms apart, as an LLM writes them, on the
constructed 16 kHz text voice made to cost real time per sentence (300 dense MatMuls a run), 1 ONNX
thread; median of ${ROUNDS} rounds after a warm-up. *Synthesis*: the sentence alone as the TTS
WebSocket's one-request message, from sending it to its audio. *After last word*: from sending the
word that completes the sentence to its first audio frame. The ratio is the cost of streaming the
text in (goal ≤ 1.2; worst here ${worst.toFixed(2)}).

| path | sentence | synthesis (ms) | after last word (ms) | ratio |
|---|---:|---:|---:|---:|
${rows.join("\n")}
`);
