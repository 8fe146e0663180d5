/**
 * gRPC streaming TTS latency: time to the first SynthesizeOnline message against the time to the
 * whole stream, for a multi-sentence Arabic input, on the real server (whatever voice engine is
 * installed; espeak-ng with no packs). The floor is a unary Synthesize of the first sentence alone
 * (pcm): streaming cannot beat synthesising that sentence.
 */
import * as grpc from "@grpc/grpc-js";
import { bearer, clients, unary, waitPortsServing } from "../grpc/client.ts";
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
await waitPortsServing(sawt.ports, ["tts"]);
const { key } = await sawt.createKey({ name: "bench", rpm: 10_000 });
const port = clients(sawt.ports.grpc_tts);

function stream(text: string): Promise<{ firstMs: number; totalMs: number; messages: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let firstMs = 0;
    let messages = 0;
    let bytes = 0;
    const call = port.tts.SynthesizeOnline({ text }, bearer(key)) as grpc.ClientReadableStream<{ audio: Buffer }>;
    call.on("data", (m) => {
      if (messages++ === 0) firstMs = performance.now() - started;
      bytes += m.audio.length;
    });
    call.on("error", reject);
    call.on("end", () => resolve({ firstMs, totalMs: performance.now() - started, messages, bytes }));
  });
}

async function unaryMs(text: string): Promise<number> {
  const started = performance.now();
  const outcome = await unary(port.tts, "Synthesize", { text, response_format: "pcm" }, bearer(key));
  if (outcome.error) throw outcome.error;
  return performance.now() - started;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
await stream(SENTENCES.join(" ")); // warm-up
await unaryMs(SENTENCES[0]!);
const floor = median(
  await (async () => {
    const xs: number[] = [];
    for (let i = 0; i < RUNS; i++) xs.push(await unaryMs(SENTENCES[0]!));
    return xs;
  })(),
);
const rows: string[] = [];
for (const repeat of [1, 4, 16]) {
  const text = Array.from({ length: repeat }, () => SENTENCES.join(" ")).join(" ");
  const runs = [];
  for (let i = 0; i < RUNS; i++) runs.push(await stream(text));
  const first = median(runs.map((r) => r.firstMs));
  const total = median(runs.map((r) => r.totalMs));
  const last = runs.at(-1)!;
  rows.push(
    `| ${SENTENCES.length * repeat} (${[...text].length}) | ${last.messages} / ${(last.bytes / 2 ** 20).toFixed(1)} MiB | ${first.toFixed(1)} | ${total.toFixed(1)} | ${(first / total).toFixed(2)} | ${(first / floor).toFixed(2)} |`,
  );
}
port.close();
await sawt.stop();

console.log(`## gRPC streaming TTS: SynthesizeOnline (grpc-stream.bench.ts)

Arabic IVR sentences over a real gRPC connection to \`sawt serve\` (no packs installed: the built-in
espeak-ng engine speaks), s16le PCM, median of ${RUNS} runs each. The floor is a unary Synthesize of
the first sentence alone (${floor.toFixed(1)} ms): streaming cannot deliver the first audio sooner.

| sentences (code points) | messages / audio | first message ms | whole stream ms | first / whole | first / floor |
|---|---|---|---|---|---|
${rows.join("\n")}
`);
