/**
 * The soak's running job: one transcription job (three files from the source folder, a webhook
 * to the local listener) always under way; when it ends the next is submitted. Each submission
 * must be accepted (202), each job must end completed with every file completed (the worker is
 * paused while live work runs, so a job may take long, never fail).
 */
import type { Box } from "../box.ts";
import { Breach, emptyStats, tally, type SoakBackground } from "./row.ts";

async function oneJob(box: Box, stopped: () => boolean): Promise<string> {
  const headers = { "x-api-key": box.key, "content-type": "application/json" };
  const submitted = await fetch(`${box.sawt.baseUrl}/v1/asr/jobs`, {
    method: "POST",
    headers,
    body: JSON.stringify({ paths: ["a.wav", "b.wav", "sub"], callback_url: `http://127.0.0.1:${box.hook.port}/soak` }),
  });
  const created = (await submitted.json()) as { id?: string };
  if (submitted.status !== 202 || !created.id) throw new Breach(`job submission answered ${submitted.status}`);
  for (;;) {
    const response = await fetch(`${box.sawt.baseUrl}/v1/asr/jobs/${created.id}`, { headers });
    const job = (await response.json()) as { status: string; counts: Record<string, number> };
    if (job.status === "completed" && job.counts.completed === 3) return "completed";
    if (!["queued", "running"].includes(job.status))
      throw new Breach(`job ended ${job.status} ${JSON.stringify(job.counts)}`);
    // At the soak's end a job still under way is cancelled: it was running, which is all it owed.
    if (stopped()) {
      await fetch(`${box.sawt.baseUrl}/v1/asr/jobs/${created.id}/cancel`, { method: "POST", headers });
      return "under way at the end";
    }
    await Bun.sleep(250);
  }
}

export const runningJob: SoakBackground = {
  name: "running job",
  start(box) {
    const stats = emptyStats();
    let stop = false;
    const loop = (async () => {
      while (!stop) await tally(stats, () => oneJob(box, () => stop));
    })();
    return {
      async stop() {
        stop = true;
        await loop;
        return stats;
      },
    };
  },
};
