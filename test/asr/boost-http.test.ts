/**
 * Phrase boosting through the running service (`sawt serve`, real HTTP) on the constructed CTC
 * pack where «قلب» loses narrowly to «كلب»: `hotwords` (comma list or repeated `hotwords[]`,
 * `phrase:boost`) makes it win, an unrelated list changes nothing, bad lists are 422 naming the
 * field, and the key's phrase list (GET/PUT/DELETE /v1/asr/phrases) is merged into every
 * transcription of that key and of no other.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { encodeWav } from "../../src/audio/wav.ts";
import { NEAR_MISS_GREEDY, NEAR_MISS_PHRASE, writeNearMissCtcPack } from "../support/models/near-miss.ts";
import { startSawt, until, type SawtProcess } from "../support/sawt.ts";
import { call, expectAuth, expectValidation, uploadForm } from "../rest/support.ts";
import { concat, modelsDir, silence } from "./support.ts";

let models: ReturnType<typeof modelsDir>;
let sawt: SawtProcess;
let key: string;
let other: string;
const tone = new Float32Array(16000).map((_, i) => 0.3 * Math.sin((2 * Math.PI * 440 * i) / 16000));
const wav = encodeWav(concat(silence(0.3), tone, silence(0.5)), 16000);

beforeAll(async () => {
  models = modelsDir();
  await writeNearMissCtcPack(join(models.dir, "near-ctc"));
  sawt = await startSawt({ env: { SAWT_MODELS_DIR: models.dir } });
  key = (await sawt.createKey({ name: "boost", rpm: 10_000 })).key;
  other = (await sawt.createKey({ name: "other", rpm: 10_000 })).key;
  const healthy = async () => (await fetch(`${sawt.baseUrl}/v1/asr/health`)).status === 200;
  await until(healthy, "the ASR engine to serve", { timeoutMs: 30_000, everyMs: 100 });
});

afterAll(async () => {
  await sawt?.stop();
  models?.remove();
});

function transcribe(fields: Record<string, string | string[]> = {}, apiKey = key) {
  const form = uploadForm({ name: "call.wav", data: wav });
  for (const [name, value] of Object.entries(fields))
    for (const one of Array.isArray(value) ? value : [value]) form.append(name, one);
  return call(`${sawt.baseUrl}/v1/asr/audio/transcriptions`, {
    method: "POST",
    headers: { "X-API-Key": apiKey },
    body: form,
  });
}

const phrases = (method: string, apiKey = key, query = "") =>
  call(`${sawt.baseUrl}/v1/asr/phrases${query}`, { method, headers: { "X-API-Key": apiKey } });

describe("phrase boosting over REST", () => {
  test("does read the narrow winner without hotwords", async () => {
    const reply = await transcribe();
    expect(reply.status).toBe(200);
    expect(reply.json.text).toBe(NEAR_MISS_GREEDY);
  });

  test("does make a boosted phrase win, as a comma list or repeated hotwords[] with boosts", async () => {
    expect((await transcribe({ hotwords: `سمع,${NEAR_MISS_PHRASE}` })).json.text).toBe(NEAR_MISS_PHRASE);
    expect((await transcribe({ "hotwords[]": ["سمع", `${NEAR_MISS_PHRASE}:2.5`] })).json.text).toBe(NEAR_MISS_PHRASE);
    expect((await transcribe({ hotwords: NEAR_MISS_PHRASE, boost: "0" })).json.text).toBe(NEAR_MISS_GREEDY);
  });

  test("does change nothing with an unrelated list", async () => {
    expect((await transcribe({ hotwords: "سمع:5\nعمر" })).json.text).toBe(NEAR_MISS_GREEDY);
  });

  test("does refuse 10,000 hotwords and ill-formed entries with 422 naming the field", async () => {
    const many = Array.from({ length: 10_000 }, (_, i) => `كلمة${i}`).join(",");
    expectValidation(await transcribe({ hotwords: many }), ["form.hotwords"]);
    expectValidation(await transcribe({ hotwords: `${NEAR_MISS_PHRASE}:11` }), ["form.hotwords"]);
    expectValidation(await transcribe({ hotwords: "<b>x</b>" }), ["form.hotwords"]);
    expectValidation(await transcribe({ hotwords: "x".repeat(101) }), ["form.hotwords"]);
    expectValidation(await transcribe({ hotwords: NEAR_MISS_PHRASE, boost: "high" }), ["form.boost"]);
  });
});

describe("per-key phrase lists", () => {
  test("does store a key's phrases privately and merge them into its transcriptions only", async () => {
    const stored = await call(`${sawt.baseUrl}/v1/asr/phrases`, {
      method: "PUT",
      headers: { "X-API-Key": key, "content-type": "application/json" },
      body: JSON.stringify({ phrases: [{ phrase: NEAR_MISS_PHRASE, boost: 2 }, { phrase: "سمع" }] }),
    });
    expect(stored.status).toBe(200);
    expect(stored.json).toEqual({
      phrases: [
        { phrase: "سمع", boost: 1.5 },
        { phrase: NEAR_MISS_PHRASE, boost: 2 },
      ],
      max_phrases: 1000,
    });
    expect((await phrases("GET")).json.phrases).toHaveLength(2);
    expect((await transcribe()).json.text).toBe(NEAR_MISS_PHRASE);
    // Another key sees none of it and is not boosted.
    expect((await phrases("GET", other)).json.phrases).toEqual([]);
    expect((await transcribe({}, other)).json.text).toBe(NEAR_MISS_GREEDY);
    // The request's boost wins for a phrase in both lists.
    expect((await transcribe({ hotwords: `${NEAR_MISS_PHRASE}:0` })).json.text).toBe(NEAR_MISS_GREEDY);
    expect((await phrases("DELETE", other, `?phrase=${encodeURIComponent(NEAR_MISS_PHRASE)}`)).json).toEqual({
      deleted: 0,
    });
    expect((await phrases("DELETE", key, `?phrase=${encodeURIComponent(NEAR_MISS_PHRASE)}`)).json).toEqual({
      deleted: 1,
    });
    expect((await transcribe()).json.text).toBe(NEAR_MISS_GREEDY);
    expect((await phrases("DELETE")).json).toEqual({ deleted: 1 });
    expect((await phrases("GET")).json.phrases).toEqual([]);
  });

  test("does refuse ill-formed phrase lists with 422 naming the entry's field", async () => {
    const put = (body: unknown) =>
      call(`${sawt.baseUrl}/v1/asr/phrases`, {
        method: "PUT",
        headers: { "X-API-Key": key, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    expectValidation(await put({ phrases: [{ phrase: "قلب", boost: 20 }] }), ["body.phrases.0.boost"]);
    expectValidation(await put({ phrases: [{ phrase: "  " }] }), ["body.phrases.0.phrase"]);
    expectValidation(await put({ phrases: [] }), ["body.phrases"]);
    const many = Array.from({ length: 1001 }, (_, i) => ({ phrase: `p${i}` }));
    expectValidation(await put({ phrases: many }), ["body.phrases"]);
    expectAuth(await phrases("GET", "wrong-key"), 401, "Invalid API key");
  });
});
