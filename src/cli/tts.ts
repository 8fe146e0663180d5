/**
 * `sawt tts`: offline one-shot synthesis with the installed packs, the same validation, voice
 * rules (D1–D5) and encoders as the server, and no server. Audio goes to a file or stdout; what
 * was actually used (voice, dialect, engine, fallback) goes to stderr.
 */
import type { FieldNaming } from "../errors/fields.ts";
import { parseSpeech } from "../tts/schema.ts";
import { writeFileSync } from "node:fs";
import "../app/families.ts";
import { loadConfig } from "../config/config.ts";
import { AppError, Detail } from "../errors/taxonomy.ts";
import { log, parseLevel, setLogLevel } from "../log/logger.ts";
import { Admission } from "../serving/admission.ts";
import { chooseDevice } from "../onnx/devices.ts";
import { useDevice } from "../onnx/sessions.ts";
import { createTtsEngine } from "../tts/loader.ts";
import { parseArgs, stringFlag, UsageError } from "./args.ts";
import type { Command } from "./command.ts";
import type { SpeechAnalysis } from "../tts/types.ts";

const flags = {
  config: "value",
  text: "value",
  file: "value",
  voice: "value",
  dialect: "value",
  format: "value",
  speed: "value",
  "sample-rate": "value",
  out: "value",
  quiet: "boolean",
  analyze: "boolean",
  json: "boolean",
} as const;

function numberFlag(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n))
    throw new UsageError(`--${name} must be a number, got ${JSON.stringify(value)}`);
  return n;
}

async function readText(args: ReturnType<typeof parseArgs>): Promise<string> {
  const text = stringFlag(args, "text");
  const file = stringFlag(args, "file");
  if ((text === undefined) === (file === undefined)) throw new UsageError("give exactly one of --text or --file");
  if (text !== undefined) return text;
  return file === "-" ? await new Response(Bun.stdin.stream()).text() : await Bun.file(file!).text();
}

/** Speech fields named as this command's flags, for 422 messages. */
const CLI_FIELDS: FieldNaming = {
  root: "arguments",
  rename: {
    input: "--text",
    voice: "--voice",
    dialect: "--dialect",
    response_format: "--format",
    speed: "--speed",
    sample_rate: "--sample-rate",
  },
};

/** The tts command. */
export const ttsCommand: Command = {
  name: "tts",
  usage: `Usage: sawt tts (--text TEXT | --file FILE) --out FILE|- [options]

Speaks TEXT with the packs in paths.models_dir (or the built-in espeak-ng engine) exactly as
POST /v1/tts/audio/speech would, and writes the audio to FILE ("-": stdout). What was used —
voice, dialect, engine and any fallback — is printed on stderr.

With --analyze nothing is synthesised: it prints how the text will be read, as
POST /v1/tts/analyze answers — per sentence the normalised text, the diacritised text and the
phonemes the voice is fed, and which voice, dialect and engine would speak (--json: the JSON).

Options:
  --text TEXT        text to speak (plain text, or SSML starting with <speak)
  --file FILE        read the text from a UTF-8 file ("-": stdin)
  --voice V          Yara (default), Sherine, Myriam, Yara_en
  --dialect D        ar-najdi, ar-hijazi, ar-qassimi, ar-egyptian, ar-levantine
  --format F         mp3 (default), wav, opus, flac, aac, pcm (s16le mono)
  --speed S          speaking rate, clamped to 0.5-2.0 (default 1.0)
  --sample-rate R    resample the output to R Hz (8000-48000)
  --out FILE|-       where the audio goes
  --analyze          print how the text will be read instead of synthesising it
  --json             with --analyze: print the analysis as JSON
  --quiet            print nothing on stderr but errors
  --config FILE      TOML config (default: $SAWT_CONFIG)

Logs: warnings and errors only, unless SAWT_LOG_LEVEL says otherwise.
Exit codes: 0 written, 2 bad arguments or input (the same 400/422 rules as the API), 1 failure.`,
  flags,
  async run(argv) {
    const args = parseArgs(argv, flags);
    const out = stringFlag(args, "out");
    const analyze = args.flags.analyze === true;
    if (out === undefined && !analyze) throw new UsageError("--out FILE|- is required");
    const config = loadConfig({ file: stringFlag(args, "config") });
    setLogLevel(parseLevel(process.env.SAWT_LOG_LEVEL) ?? "warn");
    const body = {
      input: await readText(args),
      voice: stringFlag(args, "voice"),
      dialect: stringFlag(args, "dialect"),
      response_format: stringFlag(args, "format"),
      speed: numberFlag(stringFlag(args, "speed"), "speed"),
      sample_rate: numberFlag(stringFlag(args, "sample-rate"), "sample-rate"),
    };

    const device = await chooseDevice(config.runtime.provider, config.runtime.intra_op_threads);
    useDevice(device, { liftConvolutions: config.runtime.lift_convolutions });
    const admission = new Admission({
      name: "tts",
      concurrency: 1,
      maxQueue: 0,
      queueTimeoutMs: config.tts.queue_timeout_ms,
      busyDetail: Detail.ttsBusy,
      timeoutDetail: Detail.ttsTimeout,
    });
    const engine = await createTtsEngine(config, { admission, log });
    try {
      if (engine.unusable) throw new Error(`TTS cannot speak: ${engine.unusable}`);
      const request = parseSpeech(body, { naming: CLI_FIELDS }, config);
      if (analyze) {
        const analysis = await engine.service.analyze(request);
        process.stdout.write(args.flags.json ? `${JSON.stringify(analysis, null, 2)}\n` : formatAnalysis(analysis));
        return 0;
      }
      const result = await engine.service.synthesize(request);
      if (out === "-") await writeAll(result.audio);
      else writeFileSync(out!, result.audio);
      if (!args.flags.quiet) {
        const fallback = result.fallback ? ` fallback="${result.fallback}"` : "";
        process.stderr.write(
          `voice=${result.voice} dialect=${result.dialect} engine=${result.engine} format=${result.format} sample_rate=${result.sampleRate} duration=${result.durationSeconds.toFixed(2)}s${fallback}\n`,
        );
      }
      return 0;
    } catch (error) {
      if (error instanceof AppError && (error.kind === "bad_request" || error.kind === "validation")) {
        const fields = error.fields.map((f) => `\n  ${f.field}: ${f.message}`).join("");
        process.stderr.write(`sawt tts: ${error.detail}${fields}\n`);
        return 2;
      }
      throw error;
    } finally {
      await engine.release();
    }
  },
};

/** The analysis as text: one block per sentence (or break), for a prompt author to read. */
export function formatAnalysis(analysis: SpeechAnalysis): string {
  const fallback = analysis.fallback ? ` fallback="${analysis.fallback}"` : "";
  const lines = [
    `voice=${analysis.voice} dialect=${analysis.dialect} engine=${analysis.engine} tashkeel=${analysis.tashkeel} ssml=${analysis.ssml}${fallback}`,
  ];
  analysis.sentences.forEach((item, i) => {
    if (item.type === "break") {
      lines.push(`[${i + 1}] break ${item.seconds}s`);
      return;
    }
    lines.push(
      `[${i + 1}] ${item.voice} (${item.dialect}, ${item.engine}, speed ${item.speed})`,
      `  normalized:  ${item.normalized}`,
      `  diacritized: ${item.diacritized}`,
      `  phonemes:    ${item.phonemes}`,
    );
  });
  return `${lines.join("\n")}\n`;
}

async function writeAll(bytes: Uint8Array): Promise<void> {
  await new Promise<void>((resolve, reject) =>
    process.stdout.write(bytes, (error) => (error ? reject(error) : resolve())),
  );
}
