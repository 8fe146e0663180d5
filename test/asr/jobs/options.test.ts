/**
 * A job takes every option a synchronous transcription takes (issue #28: channels and speakers,
 * written forms, redaction, phrase boosting, language): for a two-channel call submitted with
 * them, each result equals the synchronous REST answer for the same file and fields, in every
 * format those options change.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { tempDir, type SawtProcess } from "../../support/sawt.ts";
import { encodeChannels, twoChannelCall } from "../channels-support.ts";
import { api, startJobsServer, submitUploads, toneModels, waitForJob } from "./support.ts";

const FIELDS: Record<string, string> = {
  channels: "split",
  speakers: "agent,customer",
  itn: "false",
  redact: "pci",
  hotwords: "سلام:2",
  language: "ar",
};

let models: Awaited<ReturnType<typeof toneModels>>;
let dir: ReturnType<typeof tempDir>;
let sawt: SawtProcess;
let key: string;
let call: string;

beforeAll(async () => {
  models = await toneModels();
  dir = tempDir("sawt-jobs-options-");
  call = encodeChannels(twoChannelCall(), 16000, join(dir.path, "call.wav"), ["-c:a", "pcm_s16le"]);
  sawt = await startJobsServer(models.dir);
  key = (await sawt.createKey({ name: "jobs-options", rpm: 1_000_000 })).key;
});

afterAll(async () => {
  await sawt?.stop();
  models?.remove();
  dir?.remove();
});

/** The synchronous answer for the call with FIELDS in `format`. */
async function synchronous(format: string): Promise<string> {
  const form = new FormData();
  for (const [name, value] of Object.entries(FIELDS)) form.append(name, value);
  form.append("response_format", format);
  form.append("file", Bun.file(call), "call.wav");
  const reply = await api(sawt, key, "/v1/asr/audio/transcriptions", { method: "POST", body: form });
  expect(reply.status).toBe(200);
  return reply.text;
}

describe("transcription job options", () => {
  test("does give a two-channel call with speakers, itn, redact, hotwords and language the synchronous answer", async () => {
    const submitted = await submitUploads(sawt, key, [call], FIELDS);
    expect(submitted.status).toBe(202);
    const job = await waitForJob(sawt, key, submitted.json.id);
    expect(job.status).toBe("completed");
    const file = job.files[0].id;
    for (const format of ["verbose_json", "diarized_json", "vtt", "srt", "json"]) {
      const result = await api(sawt, key, `/v1/asr/jobs/${job.id}/files/${file}/result?response_format=${format}`);
      expect(result.status).toBe(200);
      expect(result.text).toBe(await synchronous(format));
    }
    // The options reached the transcription: both speakers label their own segments.
    const diarized = (await api(sawt, key, `/v1/asr/jobs/${job.id}/files/${file}/result?response_format=diarized_json`))
      .json;
    expect(new Set(diarized.segments.map((s: { speaker: string }) => s.speaker))).toEqual(
      new Set(["agent", "customer"]),
    );
  });

  test("does refuse an unknown redaction class when the job is submitted, naming the field", async () => {
    const reply = await submitUploads(sawt, key, [call], { redact: "pci,secrets" });
    expect(reply.status).toBe(422);
    expect(reply.json.errors[0].field).toBe("form.redact");
  });
});
