/**
 * The webhooks a job's events queue (docs/jobs.md, "Webhooks"): `file.completed` and
 * `file.failed` when a file ends, `job.completed` when the job's last file ended or the job was
 * cancelled. The store writes them in the same transaction as the state they report; the sender
 * (./sender.ts) delivers them.
 */
import type { FileCounts, NewDelivery } from "../store.ts";
import type { FileRow, JobRow } from "../types.ts";
import type { FileEnd } from "../worker/protocol.ts";

/** The URL path of a file's result. */
export function resultPath(jobId: string, fileId: string): string {
  return `/v1/asr/jobs/${jobId}/files/${fileId}/result`;
}

/** The webhooks a file's end queues: the file's, and the job's when it was the last one. */
export function endDeliveries(
  file: FileRow,
  outcome: FileEnd,
  inlineChars: number,
): (job: JobRow, counts: FileCounts) => { file: NewDelivery; job: NewDelivery } {
  return (job, counts) => ({
    file: {
      event: outcome.status === "completed" ? "file.completed" : "file.failed",
      body: {
        job_id: job.id,
        file: {
          id: file.id,
          name: file.name,
          status: outcome.status,
          ...(outcome.status === "failed" ? { error: outcome.error } : {}),
        },
        ...(outcome.status === "completed" ? { result_url: resultPath(job.id, file.id) } : {}),
        ...(outcome.status === "completed" && outcome.transcript.text.length <= inlineChars
          ? { text: outcome.transcript.text }
          : {}),
      },
    },
    job: jobEndDelivery(job, counts),
  });
}

/** The `job.completed` webhook (also sent for a failed or cancelled job). */
export function jobEndDelivery(job: JobRow, counts: FileCounts): NewDelivery {
  return { event: "job.completed", body: { job_id: job.id, status: job.status, counts } };
}
