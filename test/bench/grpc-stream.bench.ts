/**
 * gRPC streaming TTS latency: time to the first SynthesizeOnline message against the time to the
 * whole stream, for a multi-sentence Arabic input, on the real server (whatever voice engine is
 * installed; espeak-ng with no packs). The floor is a unary Synthesize of the first sentence alone
 * (pcm): streaming cannot beat synthesising that sentence.
 */
import * as grpc from "@grpc/grpc-js";
import { bearer, clients, unary, waitBothServing } from "../grpc/client.ts";
import { startSawt } from "../support/sawt.ts";

const SENTENCES = [
  "مرحبا بكم في خدمة العملاء.",
  "نحن سعداء بخدمتكم اليوم.",
  "يرجى الاستماع إلى الخيارات التالية بعناية.",
  "للاستفسار عن رصيد حسابك اضغط واحد.",
  "لتحويل الأموال اضغط اثنين.",
  "للتحدث مع أحد ممثلي خدمة العملاء اضغط ثلاثة.",
  "شكرا لاتصالكم وطاب يومكم.",
  "نتمنى لكم يوما سعيدا.",
];
const RUNS = 5;

const sawt = await startSawt({ env: { SAWT_LOG_LEVEL: "warn" } });
await waitBothServing(sawt.ports);
const { key } = await sawt.createKey({ name: "bench", rpm: 10_000 });
const port = clients(sawt.ports.grpc_tts);

function stream(text: string): Promise<{ firstMs: number; totalMs: number; messages: number; bytes: number; sentences: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let firstMs = 0;
    let messages = 0;
    let bytes = 0;
    let sentences = 0;
    const call = port.tts.SynthesizeOnline({ text }, bearer(key)) as grpc.ClientReadableStream<{ audio: Buffer; sentence_end: boolean }>;
    call.on("data", (m) => {
      if (messages++ === 0) firstMs = performance.now() - started;
      bytes += m.audio.length;
      if (m.sentence_end) sentences++;
    });
    call.on("error", reject);
    call.on("end", () => resolve({ firstMs, totalMs: performance.now() - started, messages, bytes, sentences }));
  });
}

async function unaryMs(text: string): Promise<number> {
  const started = performance.now();
  const outcome = await unary(port.tts, "Synthesize", { text, response_format: "pcm" }, bearer(key));
  if (outcome.error) throw outcome.error;
  return performance.now() - started;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const text = SENTENCES.join(" ");
await stream(text); // warm-up
await unaryMs(SENTENCES[0]!);
const runs = [];
const floors = [];
for (let i = 0; i < RUNS; i++) {
  runs.push(await stream(text));
  floors.push(await unaryMs(SENTENCES[0]!));
}
port.close();
await sawt.stop();

const first = median(runs.map((r) => r.firstMs));
const total = median(runs.map((r) => r.totalMs));
const floor = median(floors);
const last = runs.at(-1)!;
console.log(`## gRPC streaming TTS (SynthesizeOnline)

${SENTENCES.length} Arabic sentences (${[...text].length} code points) over a real gRPC connection to \`sawt serve\`,
median of ${RUNS} runs; the stream sent ${last.messages} messages, ${last.sentences} sentences, ${last.bytes} bytes of s16le PCM.

| measure | ms | ratio |
|---|---|---|
| first audio message | ${first.toFixed(1)} | ${(first / total).toFixed(2)} of the whole stream |
| whole stream | ${total.toFixed(1)} | 1.00 |
| unary Synthesize of the first sentence alone (floor) | ${floor.toFixed(1)} | first message / floor = ${(first / floor).toFixed(2)} |
`);
