/**
 * Acceptance 1 and 2 with no packs installed: POST /v1/tts/analyze returns libtashkeel's published
 * reference diacritisation character for character, and the text handed to the espeak-ng worker
 * for synthesis is exactly that text (observed on the real path, src/tts/espeak/library.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, type InProcessSawt } from "../../support/in-process.ts";
import { tempDir } from "../../support/sawt.ts";
import { espeakSynthesisTexts, post, REFERENCE_INPUT, REFERENCE_OUTPUT } from "./support.ts";

describe("analyze and espeak-ng with the built-in diacritiser (no packs)", () => {
  const models = tempDir("sawt-arabic-none-");
  let sawt: InProcessSawt;
  let key: string;
  beforeAll(async () => {
    sawt = await startInProcess({ SAWT_MODELS_DIR: models.path });
    await sawt.server.enginesSettled;
    key = sawt.server.ctx.keys.create({ name: "arabic", rpm: 10_000 }).key;
  });
  afterAll(async () => {
    await sawt.close();
    models.remove();
  });

  test("does return the published reference diacritisation when analysing the README sentence", async () => {
    const { status, body, headers } = await post(sawt.baseUrl, "/v1/tts/analyze", key, { input: REFERENCE_INPUT });
    expect(status).toBe(200);
    expect(headers.get("x-tts-engine")).toBe("espeak-ng");
    expect(body.tashkeel).toBe("built-in");
    expect(body.sentences).toHaveLength(1);
    expect(body.sentences[0].normalized).toBe(REFERENCE_INPUT);
    expect(body.sentences[0].diacritized).toBe(REFERENCE_OUTPUT);
    expect(body.sentences[0].phonemes.length).toBeGreaterThan(10);
    expect([body.sentences[0].voice, body.sentences[0].engine]).toEqual(["Yara", "espeak-ng"]);
  });

  test("does hand espeak-ng exactly the diacritised text when synthesising", async () => {
    const texts = await espeakSynthesisTexts(async () => {
      const res = await fetch(`${sawt.baseUrl}/v1/tts/audio/speech`, {
        method: "POST",
        headers: { "content-type": "application/json", "X-API-Key": key },
        body: JSON.stringify({ input: REFERENCE_INPUT, response_format: "pcm" }),
      });
      expect(res.status).toBe(200);
      expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(1000);
    });
    expect(texts).toEqual([REFERENCE_OUTPUT]);
  });

  test("does keep the marks the author wrote through analyze and synthesis", async () => {
    // The author reads the name with a damma the model would not choose; the rest is filled in.
    const input = "اتصل بمُحمد الآن";
    const { body } = await post(sawt.baseUrl, "/v1/tts/analyze", key, { input });
    const diacritized: string = body.sentences[0].diacritized;
    expect(diacritized).toContain("بِمُ");
    expect(diacritized.replace(/[\u064B-\u0652]/gu, "")).toBe(input.replace(/[\u064B-\u0652]/gu, ""));
    const texts = await espeakSynthesisTexts(() =>
      fetch(`${sawt.baseUrl}/v1/tts/audio/speech`, {
        method: "POST",
        headers: { "content-type": "application/json", "X-API-Key": key },
        body: JSON.stringify({ input, response_format: "pcm" }),
      }).then((r) => r.arrayBuffer()),
    );
    expect(texts).toEqual([diacritized]);
  });

  test("does read numbers the speaking dialect's way in analyze", async () => {
    const say = async (dialect: string) =>
      (await post(sawt.baseUrl, "/v1/tts/analyze", key, { input: "الرقم 13", dialect })).body.sentences[0];
    expect(await say("ar-egyptian")).toMatchObject({ voice: "Sherine", normalized: "الرقم تلتاشر" });
    expect(await say("ar-levantine")).toMatchObject({ voice: "Myriam", normalized: "الرقم تلتعش" });
    expect(await say("ar-najdi")).toMatchObject({ voice: "Yara", normalized: "الرقم ثلاثة عشر" });
  });
});
