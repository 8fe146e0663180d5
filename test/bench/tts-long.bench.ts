/**
 * Long-input synthesis: time and peak memory for 6.4k … 51.2k code points of Arabic through the
 * real service (front-end, espeak phonemes, one ONNX run per sentence, sentence silence, level,
 * encoding), each size in its own process so peak RSS is that size's alone. The voice is the
 * constructed tone voice at 16 kHz with length_scale 0.25 (20 ms per id): about as many seconds
 * of audio per character as real speech. Linear behaviour shows as a flat time-per-character
 * column and memory growing with the audio, not faster.
 */
import "../support/families.ts";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { codePointLength } from "../../src/tts/frontend/index.ts";
import { writePiperPack } from "../support/models/tone-voice.ts";
import { startEngine, speechRequest } from "../tts/support.ts";
import { tempDir } from "../support/sawt.ts";

const SIZES = [6400, 12800, 25600, 51200];
const IPA = "abdfhijklmnqrstuwzðħʃʒʔʕˤχɣθːeoɡvˈˌ" + ".,?!:;";
const SENTENCES = [
  "مرحبا بكم في خدمة العملاء، كيف يمكنني مساعدتك اليوم؟",
  "رصيد حسابك الحالي 1250 ريال، وآخر عملية كانت في 14 مارس.",
  "يرجى الانتظار قليلا حتى نحول مكالمتك إلى الموظف المختص.",
  "شكرا لاتصالك بنا، نتمنى لك يوما سعيدا!",
];

/** Arabic text of exactly `size` code points, cut at a space. */
function textOf(size: number): string {
  let text = "";
  for (let i = 0; codePointLength(text) < size + 80; i++) text += SENTENCES[i % SENTENCES.length] + " ";
  const points = Array.from(text).slice(0, size);
  while (points.length < size) points.push(" ");
  return points.join("");
}

interface Sample {
  chars: number;
  format: string;
  sentences: number;
  audioSeconds: number;
  seconds: number;
  rssBeforeMb: number;
  peakRssMb: number;
}

async function child(size: number, format: string, modelsDir: string): Promise<void> {
  const engine = await startEngine(modelsDir);
  const warm = speechRequest({ input: SENTENCES.join(" "), response_format: format });
  await engine.service.synthesize(warm);
  Bun.gc(true);
  const rssBeforeMb = process.memoryUsage().rss / 2 ** 20;
  const input = textOf(size);
  const request = speechRequest({ input, response_format: format });
  const sentences = engine.packs.voices.get("Yara")!.sentences(input).length;
  const started = performance.now();
  const result = await engine.service.synthesize(request);
  const seconds = (performance.now() - started) / 1000;
  const peakRssMb = process.resourceUsage().maxRSS / 1024;
  const sample: Sample = {
    chars: codePointLength(input),
    format,
    sentences,
    audioSeconds: result.durationSeconds,
    seconds,
    rssBeforeMb,
    peakRssMb,
  };
  await engine.release();
  process.stdout.write(JSON.stringify(sample) + "\n");
}

async function parent(): Promise<void> {
  const dir = tempDir("sawt-bench-tts-");
  const models = join(dir.path, "models");
  mkdirSync(models);
  const map: Record<string, number> = {};
  Array.from(IPA).forEach((symbol, i) => (map[symbol] = 4 + i));
  await writePiperPack(join(models, "yara"), {
    name: "ar_bench",
    sampleRate: 16000,
    phonemeIdMap: map,
    espeakVoice: "ar",
    lengthScale: 0.25,
  });
  const samples: Sample[] = [];
  for (const format of ["pcm", "mp3"]) {
    for (const size of SIZES) {
      const proc = Bun.spawn([process.execPath, import.meta.path, "--child", String(size), format, models], {
        stdout: "pipe",
        stderr: "inherit",
        env: { ...process.env, SAWT_LOG_LEVEL: "warn" },
      });
      const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
      if (code !== 0) throw new Error(`benchmark child for ${size} ${format} exited ${code}`);
      samples.push(JSON.parse(out.trim().split("\n").pop()!) as Sample);
    }
  }
  dir.remove();

  const rows = samples.map((s) => {
    const base = samples.find((b) => b.format === s.format)!;
    const perChar = (s.seconds / s.chars) * 1e6;
    const basePerChar = (base.seconds / base.chars) * 1e6;
    return `| ${s.format} | ${s.chars.toLocaleString("en-US")} | ${s.sentences} | ${(s.audioSeconds / 60).toFixed(1)} | ${s.seconds.toFixed(2)} | ${perChar.toFixed(0)} | ${(perChar / basePerChar).toFixed(2)} | ${((s.seconds / s.audioSeconds) * 1000).toFixed(2)} | ${s.peakRssMb.toFixed(0)} | ${(s.peakRssMb - s.rssBeforeMb).toFixed(0)} | ${((s.peakRssMb - s.rssBeforeMb) / ((s.audioSeconds * 16000 * 4) / 2 ** 20)).toFixed(2)} |`;
  });
  console.log(`## TTS long input (tts-long.bench.ts)

Each row is one process synthesising Arabic text of the given length (numbers included) with the
constructed tone voice (espeak phonemes, 16 kHz, 20 ms per id), \`pcm\` (in-process) and \`mp3\`
(ffmpeg). *µs/char ratio* is time per character relative to the smallest input: 1.00 means
linear. *ΔRSS / PCM* is peak memory growth over the float32 PCM size of the audio.

| format | chars | sentences | audio (min) | time (s) | µs/char | µs/char ratio | ms per audio s | peak RSS (MB) | ΔRSS (MB) | ΔRSS / PCM |
|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|
${rows.join("\n")}
`);
}

if (process.argv[2] === "--child") await child(Number(process.argv[3]), process.argv[4]!, process.argv[5]!);
else await parent();
