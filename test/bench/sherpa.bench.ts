/**
 * Sawt against sherpa-onnx-node (decisions §6), the strongest open peer, on the same model: one
 * constructed sherpa-onnx VITS pack (the tone voice with sherpa's Piper metadata, `voice=ar`, and
 * tokens.txt of espeak's Arabic IPA) loaded by both. Both phonemise with espeak-ng's Arabic voice
 * (sherpa from the system espeak-ng-data, Sawt through libespeak-ng; no tashkeel pack, so neither
 * diacritises), map phonemes to ids the Piper way and run one inference per sentence on one ONNX
 * thread. sherpa-onnx runs in a child process: it carries its own onnxruntime, which must not
 * share a process with onnxruntime-node. Audio lengths are compared to show the work matches.
 */
import "../support/families.ts";
import { existsSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { writeSherpaVitsPack } from "../support/models/tone-voice.ts";
import { tempDir } from "../support/sawt.ts";
import { ARABIC_IPA_SYMBOLS, idMap, startEngine, speechRequest } from "../tts/support.ts";
import { median, timeRuns } from "./tts-support.ts";

const RUNS = 30;
const WARMUP = 5;
const ESPEAK_DATA = "/usr/lib/x86_64-linux-gnu/espeak-ng-data";
// No digits: sherpa-onnx does not read numbers as words, Sawt's front-end does.
const INPUTS = [
  ["short (1 sentence)", "مرحبا بكم في خدمة العملاء"],
  [
    "multi-sentence",
    "مرحبا بكم في خدمة العملاء، كيف يمكنني مساعدتك اليوم؟ يرجى الانتظار قليلا حتى نحول مكالمتك إلى الموظف المختص. شكرا لاتصالك بنا، نتمنى لك يوما سعيدا!",
  ],
] as const;

/** One engine's result for one input: median ms per utterance and audio length. */
interface Measured {
  ms: number;
  seconds: number;
}

/** What the sherpa child reports: per-input measurements, or why it could not measure. */
type ChildReport = { ok: true; results: Measured[] } | { ok: false; reason: string };

async function sherpaChild(modelDir: string): Promise<void> {
  let report: ChildReport;
  try {
    // sherpa-onnx-node is CommonJS without type declarations; its N-API addon comes from the
    // sherpa-onnx-linux-x64 optional dependency.
    const sherpa = createRequire(import.meta.path)("sherpa-onnx-node") as {
      OfflineTts: new (
        config: unknown,
      ) => {
        sampleRate: number;
        generate(request: { text: string; sid: number; speed: number }): { samples: Float32Array; sampleRate: number };
      };
    };
    const tts = new sherpa.OfflineTts({
      model: {
        vits: { model: join(modelDir, "model.onnx"), tokens: join(modelDir, "tokens.txt"), dataDir: ESPEAK_DATA },
        numThreads: 1,
        provider: "cpu",
        debug: 0,
      },
      maxNumSentences: 1,
    });
    const results: Measured[] = [];
    for (const [, text] of INPUTS) {
      const audio = tts.generate({ text, sid: 0, speed: 1 });
      const ms = median(await timeRuns(RUNS, WARMUP, async () => tts.generate({ text, sid: 0, speed: 1 })));
      results.push({ ms, seconds: audio.samples.length / audio.sampleRate });
    }
    report = { ok: true, results };
  } catch (error) {
    report = { ok: false, reason: (error instanceof Error ? error.message : String(error)).split("\n")[0]! };
  }
  process.stdout.write(JSON.stringify(report) + "\n");
}

async function runSherpa(modelDir: string): Promise<ChildReport> {
  if (!existsSync(ESPEAK_DATA))
    return { ok: false, reason: `no espeak-ng data at ${ESPEAK_DATA} (Debian package espeak-ng-data)` };
  const proc = Bun.spawn([process.execPath, import.meta.path, "--sherpa", modelDir], {
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  const last = out.trim().split("\n").pop();
  if (code === 0 && last?.startsWith("{")) return JSON.parse(last) as ChildReport;
  return { ok: false, reason: `sherpa-onnx child exited ${code}: ${err.trim().split("\n").pop() ?? "no output"}` };
}

async function parent(): Promise<void> {
  const dir = tempDir("sawt-bench-sherpa-");
  const models = join(dir.path, "models");
  mkdirSync(models);
  const pack = join(models, "yara");
  await writeSherpaVitsPack(pack, { sampleRate: 16000, phonemeIdMap: idMap(ARABIC_IPA_SYMBOLS), espeakVoice: "ar" });

  const sherpa = await runSherpa(pack);
  const engine = await startEngine(models);
  const sawt: Measured[] = [];
  for (const [, input] of INPUTS) {
    const speak = () => engine.service.synthesize(speechRequest({ input, response_format: "pcm" }));
    const { durationSeconds } = await speak();
    sawt.push({ ms: median(await timeRuns(RUNS, WARMUP, speak)), seconds: durationSeconds });
  }
  await engine.release();
  dir.remove();

  const head = `## Sawt vs sherpa-onnx-node (sherpa.bench.ts)

The same constructed sherpa-onnx VITS pack (tone voice, 16 kHz, \`voice=ar\`, espeak IPA tokens)
through Sawt's TTS service in-process (\`pcm\`) and sherpa-onnx-node 1.13.8's \`OfflineTts.generate\`
(VITS config, system espeak-ng-data, \`maxNumSentences\` 1), 1 ONNX thread each, median of ${RUNS} runs
after ${WARMUP} warm-up. Both phonemise Arabic with espeak-ng and run one inference per sentence; the
audio length columns show they fed the model comparable ids (the tone voice's audio length is
its id count; Sawt adds 0.2 s of silence between sentences, sherpa-onnx none here). The tone
model is nearly free, so this compares the two engines' text-to-ids and serving cost, not
neural inference.
`;
  if (!sherpa.ok) {
    console.log(
      `${head}\nsherpa-onnx-node: not measured: ${sherpa.reason}\n\n| input | Sawt (ms) | Sawt audio (s) |\n|---|---:|---:|\n${INPUTS.map(([name], i) => `| ${name} | ${sawt[i]!.ms.toFixed(2)} | ${sawt[i]!.seconds.toFixed(2)} |`).join("\n")}\n`,
    );
    return;
  }
  const rows = INPUTS.map(([name], i) => {
    const s = sawt[i]!;
    const o = sherpa.results[i]!;
    return `| ${name} | ${s.ms.toFixed(2)} | ${o.ms.toFixed(2)} | ${(s.ms / o.ms).toFixed(2)} | ${s.seconds.toFixed(2)} | ${o.seconds.toFixed(2)} | ${(s.seconds / o.seconds).toFixed(2)} |`;
  });
  console.log(`${head}
| input | Sawt (ms) | sherpa-onnx-node (ms) | Sawt / sherpa | Sawt audio (s) | sherpa audio (s) | audio ratio |
|---|---:|---:|---:|---:|---:|---:|
${rows.join("\n")}
`);
}

if (process.argv[2] === "--sherpa") await sherpaChild(process.argv[3]!);
else await parent();
