/**
 * Transcription jobs behind HAProxy (deploy/haproxy): jobs are created on whichever box the
 * balancer picks, and every later URL of a job (GET, result, cancel) reaches the box that owns it,
 * which its id names; another box does not know the job. When the owner dies its jobs answer 503
 * through the balancer, and once it is back they are there again.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { haproxyBinary, shareLoadKey, startBox, startCluster, type Cluster } from "./cluster.ts";
import { tempDir } from "../support/sawt.ts";
import { writeCalls } from "../asr/jobs/support.ts";

const haproxy = haproxyBinary();
let cluster: Cluster;
let key: string;
let audio: ReturnType<typeof tempDir>;
let files: string[];

beforeAll(async () => {
  audio = tempDir("sawt-jobs-lb-");
  files = writeCalls(audio.path, 2);
  cluster = await startCluster(haproxy, {
    count: 2,
    async prepare(c) {
      key = await shareLoadKey(c);
    },
  });
}, 90_000);

afterAll(async () => {
  await cluster?.stop();
  audio?.remove();
});

const front = (path: string, init: RequestInit = {}) =>
  fetch(`http://127.0.0.1:${cluster.front.http}${path}`, { ...init, headers: { "X-API-Key": key } });

async function submit(): Promise<string> {
  const form = new FormData();
  for (const file of files) form.append("file", Bun.file(file), "call.wav");
  const reply = await front("/v1/asr/jobs", { method: "POST", body: form });
  expect(reply.status).toBe(202);
  return ((await reply.json()) as { id: string }).id;
}

describe("jobs behind HAProxy", () => {
  test("does route every URL of a job to the box its id names", async () => {
    const ids = await Promise.all(Array.from({ length: 6 }, submit));
    for (const id of ids) {
      const owner = cluster.boxes.find((b) => id.startsWith(`job_${b.name}_`))!;
      const other = cluster.boxes.find((b) => b !== owner)!;
      expect(owner).toBeDefined();
      for (let i = 0; i < 6; i++) expect((await front(`/v1/asr/jobs/${id}`)).status).toBe(200);
      const direct = await fetch(`${other.url}/v1/asr/jobs/${id}`, { headers: { "X-API-Key": key } });
      expect(direct.status).toBe(404);
    }
  });

  test("does answer 503 for a dead box's jobs and serve them again once it is back", async () => {
    const id = await submit();
    const owner = cluster.boxes.find((b) => id.startsWith(`job_${b.name}_`))!;
    await owner.process!.stop("SIGKILL");
    expect((await front(`/v1/asr/jobs/${id}`)).status).toBe(503);
    await startBox(owner);
    const back = await front(`/v1/asr/jobs/${id}`);
    expect(back.status).toBe(200);
    expect(((await back.json()) as { files: unknown[] }).files).toHaveLength(2);
  }, 60_000);
});
