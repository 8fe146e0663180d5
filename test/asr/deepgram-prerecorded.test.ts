/**
 * Deepgram's pre-recorded `POST /v1/listen` on a real `sawt serve` (tone CTC recogniser), sent by
 * fetch as developers.deepgram.com documents it: raw linear16 and WAV bodies, utterances, channels
 * apart, the response's metadata, and the refusals in Deepgram's error body (a URL body is never
 * fetched). The live socket on the same route is ./deepgram.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { letterToneAudio } from "../support/models/ctc.ts";
import type { SawtProcess } from "../support/sawt.ts";
import { pcm16 } from "./format-support.ts";
import { concat, encodeFile, ENCODINGS, modelsDir, silence, startToneCtcSawt } from "./support.ts";

const TEXT = "سلام عليكم";
const RAW = "encoding=linear16&sample_rate=16000&language=ar";
let models: ReturnType<typeof modelsDir>;
let sawt: SawtProcess;
let key: string;

beforeAll(async () => {
  ({ models, sawt } = await startToneCtcSawt());
  key = (await sawt.createKey({ name: "deepgram", rpm: 10_000 })).key;
});

afterAll(async () => {
  await sawt?.stop("SIGKILL");
  models?.remove();
});

describe("POST /v1/listen (pre-recorded)", () => {
  const post = (query: string, body: RequestInit["body"], type = "audio/wav") =>
    fetch(`${sawt.baseUrl}/v1/listen?${query}`, {
      method: "POST",
      headers: { authorization: `Token ${key}`, "content-type": type },
      body,
    });

  test("does transcribe raw linear16 and a WAV alike, with utterances when asked", async () => {
    const audio = concat(silence(0.5), letterToneAudio(TEXT), silence(1), letterToneAudio("مرحبا"), silence(0.5));
    const raw = (await (await post(RAW, pcm16(audio), "application/octet-stream")).json()) as any;
    const path = encodeFile(audio, 16000, join(models.dir, "post.wav"), ENCODINGS.wav!);
    const wav = await post("language=ar&utterances=true", Bun.file(path));
    expect(wav.headers.get("dg-request-id")).toBe(wav.headers.get("x-request-id"));
    const body = (await wav.json()) as any;
    expect(raw.results.channels[0].alternatives[0].transcript).toBe(`${TEXT} مرحبا`);
    expect(body.results.channels[0].alternatives[0].transcript).toBe(`${TEXT} مرحبا`);
    expect(body.results.utterances.map((u: { transcript: string }) => u.transcript)).toEqual([TEXT, "مرحبا"]);
    expect(body.metadata).toMatchObject({
      sha256: createHash("sha256")
        .update(await Bun.file(path).bytes())
        .digest("hex"),
      channels: 1,
      models: [expect.any(String)],
    });
  });

  test("does transcribe interleaved raw channels apart with multichannel", async () => {
    const left = concat(silence(0.3), letterToneAudio("سلام"), silence(0.5));
    const right = concat(silence(0.3), letterToneAudio("مرحبا"), silence(0.5));
    const length = Math.max(left.length, right.length);
    const stereo = new Float32Array(length * 2);
    for (let i = 0; i < length; i++) [stereo[2 * i], stereo[2 * i + 1]] = [left[i] ?? 0, right[i] ?? 0];
    const reply = (await (await post(`${RAW}&channels=2&multichannel=true`, pcm16(stereo))).json()) as any;
    expect(reply.results.channels.map((c: any) => c.alternatives[0].transcript)).toEqual(["سلام", "مرحبا"]);
    expect(reply.metadata.channels).toBe(2);
  });

  test("does refuse a URL body, an empty body and a bad query in Deepgram's body, fetching nothing", async () => {
    const url = await post("language=ar", JSON.stringify({ url: "http://127.0.0.1:9/a.wav" }), "application/json");
    expect(url.status).toBe(400);
    // A refusal after the key was admitted carries the key's rate-limit headers, as on REST.
    expect(url.headers.get("x-ratelimit-limit")).toBe("10000");
    expect(((await url.json()) as { err_msg: string }).err_msg).toContain("URL");
    const empty = await post("language=ar", new Uint8Array(0));
    expect([empty.status, ((await empty.json()) as { err_code: string }).err_code]).toEqual([400, "Bad Request"]);
    const query = await post("language=fr", new Uint8Array(10));
    expect([query.status, ((await query.json()) as { err_code: string }).err_code]).toEqual([
      400,
      "INVALID_QUERY_PARAMETER",
    ]);
  });
});
