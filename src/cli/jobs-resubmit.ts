/**
 * `sawt jobs resubmit --url OTHER [--data-dir DIR]`: a box that died (or is retired) hands its
 * unfinished job files to another box. Reads the job store of `paths.data_dir` (or of a dead box's
 * disk mounted elsewhere, `--data-dir`), submits each unfinished job's queued and running files to
 * the service at `--url` as one new job with the same options and callback URL — source-folder
 * files as paths (the other box must mount the same share under its `jobs.source_dirs`), uploaded
 * files by uploading their spooled copies — then cancels them in this store, so the box does not
 * transcribe them again when it comes back. Run it while this box's service is stopped.
 */
import { basename } from "node:path";
import { JobStore } from "../asr/jobs/store.ts";
import type { JobOptions } from "../asr/jobs/types.ts";
import { loadConfig } from "../config/config.ts";
import { stringFlag, UsageError, type ParsedArgs } from "./args.ts";
import type { JobsClient } from "./jobs-client.ts";

/** The transcription fields of a stored job's options. */
function optionFields(options: JobOptions): Record<string, string | number | string[]> {
  return {
    response_format: options.response_format,
    ...(options.model !== undefined ? { model: options.model } : {}),
    ...(options.prompt !== undefined ? { prompt: options.prompt } : {}),
    ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
    timestamp_granularities: [...options.granularities],
  };
}

/** Moves every unfinished file of the store to the service `client` talks to. */
export async function resubmit(args: ParsedArgs, client: JobsClient): Promise<number> {
  if (stringFlag(args, "url") === undefined) throw new UsageError("resubmit needs --url of the box to take the files");
  const dataDir = stringFlag(args, "data-dir") ?? loadConfig({ file: stringFlag(args, "config") }).paths.data_dir;
  const store = new JobStore(dataDir);
  try {
    const unfinished = [
      ...store.list({ status: "queued", limit: 1_000_000 }),
      ...store.list({ status: "running", limit: 1_000_000 }),
    ];
    let moved = 0;
    for (const job of unfinished) {
      const files = store.files(job.id).filter((f) => f.status === "queued" || f.status === "running");
      if (files.length === 0) continue;
      const fields = optionFields(JSON.parse(job.options) as JobOptions);
      const callback = job.callback_url !== null ? { callback_url: job.callback_url } : {};
      let created: { id: string };
      if (files.every((f) => f.spooled === 0)) {
        created = await client.call("/v1/asr/jobs", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ paths: files.map((f) => f.path), ...fields, ...callback }),
        });
      } else {
        const form = new FormData();
        for (const [name, value] of Object.entries({ ...fields, ...callback }))
          for (const item of Array.isArray(value) ? value : [value])
            form.append(name === "timestamp_granularities" ? "timestamp_granularities[]" : name, String(item));
        for (const file of files) form.append("file", Bun.file(file.path), basename(file.name));
        created = await client.call("/v1/asr/jobs", { method: "POST", body: form });
      }
      store.cancel(job.id);
      moved += files.length;
      process.stdout.write(`${job.id} -> ${created.id} (${files.length} files)\n`);
    }
    process.stderr.write(`resubmitted ${moved} files of ${unfinished.length} unfinished jobs to ${client.base}\n`);
    return 0;
  } finally {
    store.close();
  }
}
