/**
 * Job webhooks against a local receiver (real server, real HTTP both ways): one signed POST per
 * finished file and one per finished job, each with its own idempotency key; the signature checks
 * out with an independent HMAC over `<t>.<body>` and fails for a tampered body; a receiver that is
 * down (connections refused) gets every delivery once it is back, and the delivery log
 * shows the retries.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { join } from "node:path";
import { verifyWebhook } from "../../../src/webhooks/signature.ts";
import { tempDir, until, type SawtProcess } from "../../support/sawt.ts";
import {
  api,
  startJobsServer,
  submitPaths,
  textOf,
  toneModels,
  waitForJob,
  webhookReceiver,
  writeCalls,
} from "./support.ts";

const SECRET = "whsec-test-0123456789abcdef0123456789";
const FILES = 6;

let models: Awaited<ReturnType<typeof toneModels>>;
let source: ReturnType<typeof tempDir>;
let receiver: ReturnType<typeof webhookReceiver>;
let sawt: SawtProcess;
let key: string;

beforeAll(async () => {
  models = await toneModels();
  source = tempDir("sawt-jobs-hooks-");
  writeCalls(join(source.path, "calls"), FILES);
  receiver = webhookReceiver();
  sawt = await startJobsServer(models.dir, {
    SAWT_JOBS_SOURCE_DIRS: source.path,
    SAWT_JOBS_CALLBACK_HOSTS: `127.0.0.1:${receiver.port}`,
    SAWT_JOBS_WEBHOOK_SECRET: SECRET,
    SAWT_JOBS_WEBHOOK_RETRY_MS: "100",
  });
  key = (await sawt.createKey({ name: "hooks", rpm: 100_000 })).key;
});

afterAll(async () => {
  await sawt?.stop();
  receiver?.stop();
  models?.remove();
  source?.remove();
});

/** The signature as a receiver computes it, written here from the documented scheme. */
function independentCheck(header: string, body: string): boolean {
  const t = /(?:^|,)t=(\d+)/.exec(header)?.[1];
  const v1 = /(?:^|,)v1=([0-9a-f]{64})/.exec(header)?.[1];
  return t !== undefined && v1 === createHmac("sha256", SECRET).update(`${t}.${body}`).digest("hex");
}

const forJob = (id: string) => receiver.received.filter((r) => JSON.parse(r.body).job_id === id);

describe("job webhooks", () => {
  test("does POST one signed webhook per file and one per job, each with its own idempotency key", async () => {
    const created = await submitPaths(sawt, key, { paths: ["calls"], callback_url: receiver.url });
    const job = await waitForJob(sawt, key, created.json.id);
    const hooks = await until(() => forJob(job.id).length >= FILES + 1 && forJob(job.id), "every webhook");
    expect(hooks).toHaveLength(FILES + 1);
    for (const hook of hooks) {
      expect(independentCheck(hook.signature!, hook.body)).toBe(true);
      expect(verifyWebhook(SECRET, hook.signature, hook.body)).toBe(true);
      expect(JSON.parse(hook.body).id).toBe(hook.key);
    }
    expect(new Set(hooks.map((h) => h.key)).size).toBe(FILES + 1);
    const files = hooks.filter((h) => h.event === "file.completed").map((h) => JSON.parse(h.body));
    expect(files.map((f) => f.file.id).sort()).toEqual(job.files.map((f: { id: string }) => f.id));
    for (const f of files) {
      const index = Number(f.file.id.slice(5)) - 1;
      expect(f.text).toBe(textOf(index));
      expect((await api(sawt, key, f.result_url)).json.text).toBe(textOf(index));
    }
    const end = JSON.parse(hooks.find((h) => h.event === "job.completed")!.body);
    expect(end).toMatchObject({ type: "job.completed", job_id: job.id, status: "completed" });
    expect(end.counts.completed).toBe(FILES);
  });

  test("does fail the signature check when the body was tampered with", async () => {
    const hook = receiver.received[0]!;
    const tampered = hook.body.replace(/"status":"completed"/, '"status":"failed"');
    expect(tampered).not.toBe(hook.body);
    expect(independentCheck(hook.signature!, tampered)).toBe(false);
    expect(verifyWebhook(SECRET, hook.signature, tampered)).toBe(false);
    expect(verifyWebhook("another-secret-another-secret-000", hook.signature, hook.body)).toBe(false);
  });

  test("does deliver every webhook once the receiver is back after being down", async () => {
    receiver.stop();
    const created = await submitPaths(sawt, key, { paths: ["calls"], callback_url: receiver.url });
    const job = await waitForJob(sawt, key, created.json.id);
    await until(
      async () =>
        (await api(sawt, key, `/v1/asr/jobs/${job.id}/deliveries`)).json.data.every((d: any) => d.attempts >= 2),
      "a second failed attempt of every delivery",
    );
    receiver.start();
    const hooks = await until(
      () => forJob(job.id).length >= FILES + 1 && forJob(job.id),
      "the deliveries after the outage",
    );
    expect(new Set(hooks.map((h) => h.key)).size).toBe(FILES + 1);
    for (const hook of hooks) expect(independentCheck(hook.signature!, hook.body)).toBe(true);
    const log = await until(async () => {
      const data = (await api(sawt, key, `/v1/asr/jobs/${job.id}/deliveries`)).json.data;
      return data.every((d: any) => d.status === "delivered") && data;
    }, "the log to show every delivery delivered");
    expect(log).toHaveLength(FILES + 1);
    for (const entry of log) expect(entry.attempts).toBeGreaterThanOrEqual(3);
  });
});
