/**
 * The acceptance path over the wire: `sawt serve` with constructed packs, a real key, and
 * POST /v1/tts/audio/speech (wav/pcm). The audio that comes back spells the ids the models were
 * fed, so ids, length_scale (speed), sid (dialect speaker), sample rate, the X-TTS-* headers and
 * the fallbacks are all checked from what a client receives.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { phonemizeSentences } from "../../src/tts/espeak/phonemes.ts";
import { prepareText } from "../../src/tts/frontend/index.ts";
import { sidFromAmplitude } from "../support/models/tone-decoder.ts";
import {
  toneBaseSamples,
  toneSegmentSamples,
  writePiperPack,
  writeSherpaVitsPack,
} from "../support/models/tone-voice.ts";
import { startSawt, tempDir, waitForStatus, type SawtProcess } from "../support/sawt.ts";
import {
  ARABIC_IPA_SYMBOLS,
  ARABIC_TEXT_SYMBOLS,
  decodeSentences,
  expectedIds,
  idMap,
  pcmToFloat,
  wavToFloat,
} from "./support.ts";

const IPA_MAP = idMap(ARABIC_IPA_SYMBOLS);
const TEXT_MAP = idMap(ARABIC_TEXT_SYMBOLS);
const INPUT = "مرحبا بكم. كيف حالك؟";

async function espeakIds(text: string): Promise<number[][]> {
  return (await phonemizeSentences(prepareText(text, "ar"), "ar")).map((p) => expectedIds(p, IPA_MAP));
}

describe("POST /v1/tts/audio/speech with constructed packs", () => {
  const dir = tempDir("sawt-tts-http-");
  const models = join(dir.path, "models");
  let sawt: SawtProcess;
  let key: string;
  beforeAll(async () => {
    // Yara: Piper espeak voice with dialect speakers. Sherine: Piper text voice. Myriam: sherpa-onnx VITS.
    await writePiperPack(join(models, "yara"), {
      name: "ar_yara",
      sampleRate: 22050,
      phonemeIdMap: IPA_MAP,
      espeakVoice: "ar",
      speakerIdMap: { "ar-najdi": 0, "ar-hijazi": 1, "ar-qassimi": 2 },
    });
    await writePiperPack(join(models, "sherine"), {
      name: "ar_sherine",
      sampleRate: 16000,
      phonemeIdMap: TEXT_MAP,
      phonemeType: "text",
    });
    await writeSherpaVitsPack(join(models, "myriam"), { sampleRate: 24000, phonemeIdMap: IPA_MAP, espeakVoice: "ar" });
    // The Piper id contract on the text as written; diacritisation has its own tests (test/tts/arabic).
    sawt = await startSawt({ env: { SAWT_MODELS_DIR: models, SAWT_TTS_TASHKEEL: "off" } });
    await waitForStatus(`${sawt.baseUrl}/v1/tts/health`);
    ({ key } = await sawt.createKey({ name: "tts-http", rpm: 10_000 }));
  });
  afterAll(async () => {
    await sawt.stop();
    dir.remove();
  });

  async function speak(body: Record<string, unknown>, headers: Record<string, string> = {}) {
    const res = await fetch(`${sawt.baseUrl}/v1/tts/audio/speech`, {
      method: "POST",
      headers: { "content-type": "application/json", "X-API-Key": key, ...headers },
      body: JSON.stringify({ input: INPUT, response_format: "wav", ...body }),
    });
    const bytes = new Uint8Array(await res.arrayBuffer());
    if (res.status !== 200) throw new Error(`status ${res.status}: ${new TextDecoder().decode(bytes)}`);
    const header = (name: string) => res.headers.get(name);
    const audio =
      header("content-type") === "audio/wav"
        ? wavToFloat(bytes)
        : { samples: pcmToFloat(bytes), sampleRate: Number(header("x-sample-rate")) };
    return { ...audio, header };
  }

  test("does feed Yara's pack espeak ids ^ _ (p _)* $ per sentence and report it in the headers", async () => {
    const { samples, sampleRate, header } = await speak({});
    expect([header("x-tts-voice"), header("x-tts-dialect"), header("x-tts-engine"), header("x-tts-fallback")]).toEqual([
      "Yara",
      "ar-najdi",
      "piper",
      null,
    ]);
    expect(sampleRate).toBe(22050);
    expect(header("x-sample-rate")).toBe("22050");
    expect(decodeSentences(samples, sampleRate, 1).map((d) => d.ids)).toEqual(await espeakIds(INPUT));
  });

  for (const [speed, lengthScale] of [
    [0.5, 2],
    [2.0, 0.5],
    [9, 0.5],
  ] as const) {
    test(`does run the model with length_scale ${lengthScale} when speed is ${speed}`, async () => {
      const { samples, sampleRate } = await speak({ input: "مرحبا", speed, response_format: "pcm" });
      const [decoded] = decodeSentences(samples, sampleRate, lengthScale);
      expect(decoded!.ids).toEqual((await espeakIds("مرحبا"))[0]!);
      expect(samples.length).toBe(decoded!.ids.length * toneSegmentSamples(toneBaseSamples(sampleRate), lengthScale));
    });
  }

  test("does pick the dialect's speaker sid in a multi-speaker pack, from the body or the header", async () => {
    const sidOf = async (body: Record<string, unknown>, headers: Record<string, string> = {}) => {
      const { samples, sampleRate } = await speak({ input: "مرحبا", ...body }, headers);
      return [...new Set(decodeSentences(samples, sampleRate, 1)[0]!.amplitude.map(sidFromAmplitude))];
    };
    expect(await sidOf({})).toEqual([0]);
    expect(await sidOf({ dialect: "ar-hijazi" })).toEqual([1]);
    expect(await sidOf({}, { "X-TTS-Dialect": "ar-qassimi" })).toEqual([2]);
    expect(await sidOf({ dialect: "ar-hijazi" }, { "X-TTS-Dialect": "ar-qassimi" })).toEqual([1]);
  });

  test("does speak Sherine's text voice with the letters themselves at its own rate", async () => {
    const { samples, sampleRate, header } = await speak({ voice: "Sherine", response_format: "pcm" });
    expect([header("x-tts-voice"), header("x-tts-dialect"), header("content-type")]).toEqual([
      "Sherine",
      "ar-egyptian",
      "audio/pcm",
    ]);
    expect(sampleRate).toBe(16000);
    const expected = prepareText(INPUT, "ar").map((s) => expectedIds(Array.from(s.text.normalize("NFD")), TEXT_MAP));
    expect(decodeSentences(samples, sampleRate, 1).map((d) => d.ids)).toEqual(expected);
  });

  test("does speak the sherpa-onnx pack when the dialect is ar-levantine", async () => {
    const { samples, sampleRate, header } = await speak({ dialect: "ar-levantine" });
    expect([header("x-tts-voice"), header("x-tts-dialect"), header("x-tts-engine")]).toEqual([
      "Myriam",
      "ar-levantine",
      "vits",
    ]);
    expect(header("x-tts-fallback")).toBe("Yara does not speak ar-levantine, Myriam used");
    expect(sampleRate).toBe(24000);
    expect(decodeSentences(samples, sampleRate, 1).map((d) => d.ids)).toEqual(await espeakIds(INPUT));
  });

  test("does resample to sample_rate and say so in X-Sample-Rate", async () => {
    const { sampleRate, header } = await speak({ sample_rate: 8000 });
    expect(sampleRate).toBe(8000);
    expect(header("x-sample-rate")).toBe("8000");
  });

  test("does fall back from the removed voice Nouf to Yara with X-TTS-Fallback", async () => {
    const { header, sampleRate } = await speak({ voice: "Nouf" });
    expect([header("x-tts-voice"), header("x-tts-engine"), header("x-tts-fallback")]).toEqual([
      "Yara",
      "piper",
      "unknown voice, default Yara used",
    ]);
    expect(sampleRate).toBe(22050);
  });

  test("does speak Yara_en through espeak-ng when no English pack is installed", async () => {
    const { header, samples } = await speak({ input: "Thank you for calling.", voice: "Yara_en" });
    expect([header("x-tts-voice"), header("x-tts-dialect"), header("x-tts-engine")]).toEqual([
      "Yara_en",
      "en",
      "espeak-ng",
    ]);
    expect(samples.length).toBeGreaterThan(0);
  });
});

describe("POST /v1/tts/audio/speech with tts.strict_voices and no packs", () => {
  const empty = tempDir("sawt-tts-http-empty-");
  let sawt: SawtProcess;
  let key: string;
  beforeAll(async () => {
    sawt = await startSawt({ env: { SAWT_TTS_STRICT_VOICES: "true", SAWT_MODELS_DIR: empty.path } });
    await waitForStatus(`${sawt.baseUrl}/v1/tts/health`);
    ({ key } = await sawt.createKey({ name: "strict" }));
  });
  afterAll(async () => {
    await sawt.stop();
    empty.remove();
  });

  test("does answer 400 Invalid voice with the allowed list when the voice is unknown", async () => {
    const res = await fetch(`${sawt.baseUrl}/v1/tts/audio/speech`, {
      method: "POST",
      headers: { "content-type": "application/json", "X-API-Key": key },
      body: JSON.stringify({ input: "مرحبا", voice: "Atheer" }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: "http_error",
      detail: "Invalid voice. Allowed: Yara, Sherine, Myriam, Yara_en",
      code: "HTTP_400",
    });
  });

  test("does speak a known voice with espeak-ng when no packs exist", async () => {
    const res = await fetch(`${sawt.baseUrl}/v1/tts/audio/speech`, {
      method: "POST",
      headers: { "content-type": "application/json", "X-API-Key": key },
      body: JSON.stringify({ input: "مرحبا", voice: "Myriam", response_format: "wav" }),
    });
    expect(res.status).toBe(200);
    expect([res.headers.get("x-tts-voice"), res.headers.get("x-tts-dialect"), res.headers.get("x-tts-engine")]).toEqual(
      ["Myriam", "ar-levantine", "espeak-ng"],
    );
    expect(wavToFloat(new Uint8Array(await res.arrayBuffer())).samples.some((x) => Math.abs(x) > 0.05)).toBe(true);
  });
});
