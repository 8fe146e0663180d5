/**
 * `sawt asr FILE`: offline one-shot transcription without a server. Loads the ASR packs from the
 * configured models directory exactly as `sawt serve` does, transcribes one file through the same
 * service (hardened ffmpeg decoding included) and prints it in the requested response format.
 */
import { extname } from "node:path";
import { existsSync } from "node:fs";
import { buildAsrEngine } from "../asr/loader.ts";
import { renderTranscript } from "../transcripts/formats.ts";
import { granularities, parseTranscriptionForm, transcriptionOptions, type TranscriptionForm } from "../asr/schema.ts";
import { TRANSCRIPT_FORMATS, UPLOAD_EXTENSIONS, type TranscriptFormat } from "../asr/types.ts";
import "../app/families.ts";
import { loadConfig } from "../config/config.ts";
import { AppError, Detail } from "../errors/taxonomy.ts";
import { log, setLogLevel } from "../log/logger.ts";
import { Admission } from "../serving/admission.ts";
import { parseArgs, stringFlag, UsageError } from "./args.ts";
import type { Command } from "./command.ts";

const flags = {
  config: "value",
  format: "value",
  model: "value",
  prompt: "value",
  temperature: "value",
  "timestamp-granularities": "value",
} as const;

/** The flags as the REST form would carry them, validated by the same schema. */
function formOf(args: ReturnType<typeof parseArgs>): TranscriptionForm {
  const fields: Record<string, string> = {};
  const put = (field: string, flag: string) => {
    const value = stringFlag(args, flag);
    if (value !== undefined) fields[field] = value;
  };
  put("response_format", "format");
  put("model", "model");
  put("prompt", "prompt");
  put("temperature", "temperature");
  put("timestamp_granularities", "timestamp-granularities");
  try {
    return parseTranscriptionForm(fields);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    const problems = error.fields.map((f) => `${f.field.replace(/^form\./, "")}: ${f.message}`).join("; ");
    throw new UsageError(problems || error.detail);
  }
}

/** The offline transcription command. */
export const asrCommand: Command = {
  name: "asr",
  usage: `Usage:
  sawt asr FILE [--format json|text|verbose_json|srt|vtt] [--model PACK] [--prompt TEXT]
               [--temperature 0..1] [--timestamp-granularities segment,word] [--config FILE]

Transcribes FILE with the ASR packs in paths.models_dir and prints the transcript to stdout in
the given format (default json: {"text","language","dialect","duration"}). FILE must have one of
the upload extensions: ${UPLOAD_EXTENSIONS.join(", ")}.
--model, --prompt, --temperature and --timestamp-granularities mean what the REST form fields
model, prompt, temperature and timestamp_granularities[] mean (the same service path).
Exit 0 on success; 1 when the file cannot be transcribed or no ASR pack is installed; 2 on usage errors.`,
  flags,
  async run(argv) {
    const args = parseArgs(argv, flags);
    const [file, ...extra] = args.positional;
    if (file === undefined) throw new UsageError("asr needs a FILE");
    if (extra.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(extra[0])}`);
    const format = stringFlag(args, "format") ?? "json";
    if (!(TRANSCRIPT_FORMATS as readonly string[]).includes(format))
      throw new UsageError(`--format must be one of ${TRANSCRIPT_FORMATS.join(", ")}`);
    const form = formOf(args);
    const config = loadConfig({ file: stringFlag(args, "config") });
    // stdout carries the transcript; only problems go to the (stderr) log.
    setLogLevel(config.log.level === "debug" ? "debug" : "warn");
    if (!(UPLOAD_EXTENSIONS as readonly string[]).includes(extname(file).slice(1).toLowerCase())) {
      process.stderr.write(`sawt asr: ${Detail.invalidFileType}: allowed ${UPLOAD_EXTENSIONS.join(", ")}\n`);
      return 1;
    }
    if (!existsSync(file)) {
      process.stderr.write(`sawt asr: no such file: ${file}\n`);
      return 1;
    }
    const admission = new Admission({
      name: "asr",
      concurrency: 1,
      maxQueue: 1,
      queueTimeoutMs: config.asr.queue_timeout_ms,
      busyDetail: Detail.asrBusy,
      timeoutDetail: Detail.asrTimeout,
    });
    const engine = await buildAsrEngine(config, admission, log.child({ command: "asr" }));
    if (!engine.ok) {
      process.stderr.write(`sawt asr: ${engine.reason} (models dir ${config.paths.models_dir})\n`);
      return 1;
    }
    try {
      const transcript = await engine.service.transcribeFile(file, transcriptionOptions(form));
      const rendered = renderTranscript(transcript, format as TranscriptFormat, { granularities: granularities(form) });
      process.stdout.write(rendered.body.endsWith("\n") ? rendered.body : `${rendered.body}\n`);
      return 0;
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      process.stderr.write(`sawt asr: ${error.detail}\n`);
      return 1;
    } finally {
      await engine.release();
    }
  },
};
