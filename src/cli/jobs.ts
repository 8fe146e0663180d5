/**
 * `sawt jobs`: transcription jobs of a running service over its REST API (issue #28) — submit
 * files or folders (uploaded, or as paths under the server's source folders), list, show with a
 * progress bar on a terminal, fetch results, cancel — and `resubmit`, which moves the unfinished
 * files of a box that died to another box (docs/scale-out.md).
 */
import { readdirSync, statSync, writeFileSync, mkdirSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { allowedExtension } from "../audio/upload.ts";
import { intFlag, parseArgs, stringFlag, UsageError, type ParsedArgs } from "./args.ts";
import { jobsClient, type JobsClient } from "./jobs-client.ts";
import type { Command } from "./command.ts";
import { resubmit } from "./jobs-resubmit.ts";

const flags = {
  config: "value",
  url: "value",
  key: "value",
  paths: "boolean",
  format: "value",
  language: "value",
  model: "value",
  callback: "value",
  wait: "boolean",
  status: "value",
  limit: "value",
  out: "value",
  json: "boolean",
  "data-dir": "value",
} as const;

/** Audio files of the arguments: files as given, folders walked (sorted). */
function audioFiles(args: readonly string[]): string[] {
  const out: string[] = [];
  const walk = (path: string) => {
    const stat = statSync(path);
    if (stat.isDirectory()) for (const name of readdirSync(path).sort()) walk(join(path, name));
    else if (stat.isFile() && allowedExtension(path) !== undefined) out.push(path);
  };
  for (const arg of args) walk(resolve(arg));
  return out;
}

/** `[#####.....] 12/40 done, 1 failed` (one line, redrawn on a terminal). */
function progressLine(job: any): string {
  const c = job.counts;
  const total = c.queued + c.running + c.completed + c.failed + c.cancelled;
  const done = c.completed + c.failed + c.cancelled;
  const width = 30;
  const filled = total === 0 ? width : Math.round((done / total) * width);
  return `[${"#".repeat(filled)}${".".repeat(width - filled)}] ${done}/${total} ${job.status}${c.failed ? `, ${c.failed} failed` : ""}`;
}

/** Polls the job until it ends, drawing progress on a terminal; resolves to the last GET. */
async function follow(client: JobsClient, id: string): Promise<any> {
  const tty = process.stderr.isTTY === true;
  for (;;) {
    const job = await client.call(`/v1/asr/jobs/${id}`);
    const ended = ["completed", "failed", "cancelled"].includes(job.status);
    if (tty) process.stderr.write(`\r${progressLine(job)}${ended ? "\n" : ""}`);
    else if (ended) process.stderr.write(`${progressLine(job)}\n`);
    if (ended) return job;
    await Bun.sleep(500);
  }
}

async function submit(args: ParsedArgs, client: JobsClient): Promise<number> {
  if (args.positional.length < 2) throw new UsageError("submit needs at least one DIR or FILE");
  const targets = args.positional.slice(1);
  const fields: Record<string, string> = {};
  for (const [flag, field] of [
    ["format", "response_format"],
    ["language", "language"],
    ["model", "model"],
    ["callback", "callback_url"],
  ] as const) {
    const value = stringFlag(args, flag);
    if (value !== undefined) fields[field] = value;
  }
  let job: any;
  if (args.flags.paths === true) {
    job = await client.call("/v1/asr/jobs", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ paths: targets, ...fields }),
    });
  } else {
    const files = audioFiles(targets);
    if (files.length === 0) throw new UsageError("no audio files found");
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    for (const file of files) form.append("file", Bun.file(file), basename(file));
    job = await client.call("/v1/asr/jobs", { method: "POST", body: form });
  }
  process.stdout.write(`${args.flags.json ? JSON.stringify(job) : job.id}\n`);
  if (args.flags.wait === true) {
    const ended = await follow(client, job.id);
    return ended.status === "completed" ? 0 : 1;
  }
  return 0;
}

async function results(args: ParsedArgs, client: JobsClient, id: string): Promise<number> {
  const job = await client.call(`/v1/asr/jobs/${id}`);
  const format = stringFlag(args, "format") ?? "text";
  const out = stringFlag(args, "out");
  if (out) mkdirSync(out, { recursive: true });
  const extension = format === "verbose_json" ? "json" : format === "text" ? "txt" : format;
  let failed = 0;
  for (const file of job.files) {
    if (file.status !== "completed") {
      process.stderr.write(`${file.name}: ${file.status}${file.error ? ` (${file.error})` : ""}\n`);
      failed++;
      continue;
    }
    const body = await client.text(`/v1/asr/jobs/${id}/files/${file.id}/result?response_format=${format}`);
    if (out) writeFileSync(join(out, `${file.id}-${basename(file.name).replace(/\.[^.]*$/, "")}.${extension}`), body);
    else process.stdout.write(`== ${file.name}\n${body}${body.endsWith("\n") ? "" : "\n"}`);
  }
  return failed === 0 ? 0 : 1;
}

/** The jobs command. */
export const jobsCommand: Command = {
  name: "jobs",
  usage: `Usage:
  sawt jobs submit [--paths] [--format F] [--language ar] [--model PACK] [--callback URL] [--wait] DIR|FILE…
  sawt jobs list [--status S] [--limit N] [--json]
  sawt jobs show ID [--json]
  sawt jobs results ID [--format F] [--out DIR]
  sawt jobs cancel ID
  sawt jobs resubmit --url OTHER [--data-dir DIR]

submit    uploads the audio files (folders are walked) as one job and prints its id; with --paths
          the arguments are paths on the server, under its jobs.source_dirs (nothing is uploaded).
          --wait follows the job (a progress bar on a terminal); exit 1 unless it completed.
list      the key's jobs, newest first.
show      one job: status, counts, each file (a progress bar on a terminal while it runs).
results   every completed file's transcript (--format text by default), to stdout or --out DIR.
cancel    cancels the job's unfinished files.
resubmit  reads this box's job store (paths.data_dir, or --data-dir of a dead box's disk), submits
          every unfinished file to the service at --url as new jobs (same options and callback),
          and cancels them here, so the box does not redo them when it returns.

Options:
  --url URL     the service (default http://<server.host>:<server.http_port> from the config)
  --key KEY     API key (default env SAWT_API_KEY)
  --config FILE TOML config`,
  flags,
  async run(argv) {
    const args = parseArgs(argv, flags);
    const [action, id] = args.positional;
    if (action === "resubmit") return resubmit(args, jobsClient(args));
    const client = jobsClient(args);
    const needId = () => {
      if (!id) throw new UsageError(`${action} needs a job id`);
      return encodeURIComponent(id);
    };
    switch (action) {
      case "submit":
        return submit(args, client);
      case "list": {
        const status = stringFlag(args, "status");
        const query = `limit=${intFlag(args, "limit", 20)}${status ? `&status=${encodeURIComponent(status)}` : ""}`;
        const page = await client.call(`/v1/asr/jobs?${query}`);
        if (args.flags.json) process.stdout.write(`${JSON.stringify(page)}\n`);
        else
          for (const job of page.data)
            process.stdout.write(`${job.id}  ${new Date(job.created_at * 1000).toISOString()}  ${progressLine(job)}\n`);
        return 0;
      }
      case "show": {
        const job = await client.call(`/v1/asr/jobs/${needId()}`);
        if (args.flags.json) process.stdout.write(`${JSON.stringify(job)}\n`);
        else {
          for (const file of job.files)
            process.stdout.write(
              `${file.id}  ${file.status.padEnd(9)}  ${file.name}${file.error ? `  (${file.error})` : ""}\n`,
            );
          if (process.stderr.isTTY && !["completed", "failed", "cancelled"].includes(job.status))
            await follow(client, job.id);
          else process.stderr.write(`${progressLine(job)}\n`);
        }
        return 0;
      }
      case "results":
        return results(args, client, needId());
      case "cancel": {
        const job = await client.call(`/v1/asr/jobs/${needId()}/cancel`, { method: "POST" });
        process.stderr.write(`${progressLine(job)}\n`);
        return 0;
      }
      default:
        throw new UsageError(
          `unknown action ${JSON.stringify(action ?? "")}: submit, list, show, results, cancel, resubmit`,
        );
    }
  },
};
