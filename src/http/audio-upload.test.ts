import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { AppError, Detail } from "../errors/taxonomy.ts";
import { tempDir } from "../../test/support/sawt.ts";
import { receiveAudioUpload as receiveUpload } from "./audio-upload.ts";

const dir = tempDir("sawt-upload-");
afterAll(() => dir.remove());

const AUDIO = new Uint8Array(Array.from({ length: 300_000 }, (_, i) => (i * 7919) % 256));

function request(form: FormData): Request {
  return new Request("http://sawt.test/v1/asr/audio/transcriptions", { method: "POST", body: form });
}

describe("receiveUpload", () => {
  test("does write the file part byte for byte to a private temp file and collect the fields", async () => {
    const form = new FormData();
    form.append("language", "ar");
    form.append("file", new Blob([AUDIO]), "مكالمة.WAV");
    form.append("response_format", "srt");
    const upload = await receiveUpload(request(form), { dataDir: dir.path, maxUploadMb: 1 });
    try {
      expect(upload.extension).toBe("wav");
      expect(upload.bytes).toBe(AUDIO.length);
      expect(upload.fields).toEqual({ language: "ar", response_format: "srt" });
      expect(statSync(upload.path).mode & 0o777).toBe(0o600);
      expect(Buffer.compare(readFileSync(upload.path), Buffer.from(AUDIO))).toBe(0);
    } finally {
      await upload.remove();
    }
    expect(existsSync(upload.path)).toBe(false);
  });

  test("does refuse a file over the limit with 413 and leave nothing behind", async () => {
    const form = new FormData();
    form.append("file", new Blob([new Uint8Array(1024 * 1024 + 1)]), "big.mp3");
    const error = (await receiveUpload(request(form), { dataDir: dir.path, maxUploadMb: 1 }).catch(
      (e) => e,
    )) as AppError;
    expect([error.status, error.detail]).toEqual([413, "File exceeds maximum size of 1 MB"]);
  });

  test("does refuse a second file part", async () => {
    const form = new FormData();
    form.append("file", new Blob(["a"]), "a.wav");
    form.append("file", new Blob(["b"]), "b.wav");
    const error = (await receiveUpload(request(form), { dataDir: dir.path, maxUploadMb: 1 }).catch(
      (e) => e,
    )) as AppError;
    expect(error.status).toBe(400);
  });

  test("does answer No selected file when the file part is a plain field", async () => {
    const form = new FormData();
    form.append("file", "not a file");
    const error = (await receiveUpload(request(form), { dataDir: dir.path, maxUploadMb: 1 }).catch(
      (e) => e,
    )) as AppError;
    expect(error.detail).toBe(Detail.noFile);
  });
});

test("does leave no temp files after every outcome above", () => {
  expect(readdirSync(`${dir.path}/tmp`)).toEqual([]);
});
