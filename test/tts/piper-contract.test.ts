/**
 * The Piper and sherpa-onnx VITS contracts end to end through the real TTS service: constructed
 * tone voices (real ONNX sessions) whose audio spells the ids they were fed, so the exact id
 * sequence, length_scale, sid and sample rate are read back from the service's own output.
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
import { tempDir } from "../support/sawt.ts";
import {
  ARABIC_IPA_SYMBOLS,
  ARABIC_TEXT_SYMBOLS,
  decodeSentences,
  expectedIds,
  idMap,
  pcmToFloat,
  silenceRuns,
  startEngine,
  wavToFloat,
  speechRequest,
} from "./support.ts";

const TEXT_MAP = idMap(ARABIC_TEXT_SYMBOLS);
/** The Piper id contract on the text as written; diacritisation has its own tests (test/tts/arabic). */
const TEXT_AS_WRITTEN = { SAWT_TTS_TASHKEEL: "off" };
const IPA_MAP = idMap(ARABIC_IPA_SYMBOLS);
const INPUT = "مرحبا بكم. كيف حالك؟";

type Engine = Awaited<ReturnType<typeof startEngine>>;

/** The ids the text voice must receive for `text`: Piper's sequence over NFD code points. */
function textVoiceIds(text: string): number[][] {
  return prepareText(text, "ar").map((s) => expectedIds(Array.from(s.text.normalize("NFD")), TEXT_MAP));
}

async function speak(
  engine: Engine,
  body: Record<string, unknown>,
): Promise<{
  samples: Float32Array;
  sampleRate: number;
  result: Awaited<ReturnType<Engine["service"]["synthesize"]>>;
}> {
  const result = await engine.service.synthesize(speechRequest({ response_format: "pcm", ...body }));
  return { samples: pcmToFloat(result.audio), sampleRate: result.sampleRate, result };
}

describe("Piper text-phoneme voice", () => {
  const dir = tempDir("sawt-tts-piper-");
  let engine: Engine;
  beforeAll(async () => {
    await writePiperPack(join(dir.path, "models", "yara"), {
      name: "ar_text-x_low",
      sampleRate: 16000,
      phonemeIdMap: TEXT_MAP,
      phonemeType: "text",
    });
    engine = await startEngine(join(dir.path, "models"), TEXT_AS_WRITTEN);
  });
  afterAll(async () => {
    await engine.release();
    dir.remove();
  });

  test("does feed the model ^ _ (p _)* $ per sentence when the text has two sentences", async () => {
    const { samples, sampleRate, result } = await speak(engine, { input: INPUT });
    expect(result.engine).toBe("piper");
    expect(sampleRate).toBe(16000);
    const decoded = decodeSentences(samples, sampleRate, 1);
    expect(decoded.map((d) => d.ids)).toEqual(textVoiceIds(INPUT));
  });

  test("does put 0.2 s of silence between sentences and none after the last when speaking", async () => {
    const { samples, sampleRate } = await speak(engine, { input: INPUT });
    expect(silenceRuns(samples, sampleRate)).toEqual([0.2 * sampleRate]);
    const ids = textVoiceIds(INPUT);
    const segment = toneBaseSamples(sampleRate);
    expect(samples.length).toBe((ids[0]!.length + ids[1]!.length) * segment + 0.2 * sampleRate);
  });

  for (const [speed, lengthScale] of [
    [0.5, 2],
    [2.0, 0.5],
    [9, 0.5],
    [0.1, 2],
    [1.25, 0.8],
  ] as const) {
    test(`does use length_scale ${lengthScale} when speed is ${speed}`, async () => {
      const { samples, sampleRate } = await speak(engine, { input: "مرحبا", speed });
      const [decoded] = decodeSentences(samples, sampleRate, lengthScale);
      expect(decoded!.ids).toEqual(textVoiceIds("مرحبا")[0]!);
      expect(samples.length).toBe(decoded!.ids.length * toneSegmentSamples(toneBaseSamples(sampleRate), lengthScale));
    });
  }

  test("does keep the model's sample rate in WAV and report it when no sample_rate is asked", async () => {
    const result = await engine.service.synthesize(speechRequest({ input: "مرحبا", response_format: "wav" }));
    const wav = wavToFloat(result.audio);
    expect(wav.sampleRate).toBe(16000);
    expect(result.sampleRate).toBe(16000);
    expect(decodeSentences(wav.samples, wav.sampleRate, 1)[0]!.ids).toEqual(textVoiceIds("مرحبا")[0]!);
  });
});

describe("Piper espeak-phoneme multi-speaker voice", () => {
  const dir = tempDir("sawt-tts-espeak-");
  let engine: Engine;
  beforeAll(async () => {
    await writePiperPack(join(dir.path, "models", "Yara"), {
      name: "ar_JO-test-medium",
      sampleRate: 22050,
      phonemeIdMap: IPA_MAP,
      espeakVoice: "ar",
      speakerIdMap: { "ar-najdi": 0, other: 1, "ar-hijazi": 2, third: 3, fourth: 4, qassimi: 5 },
    });
    engine = await startEngine(join(dir.path, "models"), TEXT_AS_WRITTEN);
  });
  afterAll(async () => {
    await engine.release();
    dir.remove();
  });

  test("does feed espeak's phonemes with punctuation, skipping symbols the map lacks, when phoneme_type is espeak", async () => {
    const { samples, sampleRate } = await speak(engine, { input: INPUT });
    const phonemes = await phonemizeSentences(prepareText(INPUT, "ar"), "ar");
    const expected = phonemes.map((p) => expectedIds(p, IPA_MAP));
    // The stress marks espeak emits have no id here: skipped, not fed.
    expect(phonemes.flat()).toContain("ˈ");
    expect(decodeSentences(samples, sampleRate, 1).map((d) => d.ids)).toEqual(expected);
    expect(expected[0]).toContain(IPA_MAP["."]!);
  });

  for (const [dialect, sid] of [
    [undefined, 0],
    ["ar-hijazi", 2],
    ["ar-qassimi", 5],
  ] as const) {
    test(`does feed sid ${sid} when the dialect is ${dialect ?? "omitted"}`, async () => {
      const { samples, sampleRate, result } = await speak(engine, { input: "مرحبا", ...(dialect ? { dialect } : {}) });
      expect(result.dialect).toBe(dialect ?? "ar-najdi");
      const [decoded] = decodeSentences(samples, sampleRate, 1);
      const sids = new Set(decoded!.amplitude.map(sidFromAmplitude));
      expect([...sids]).toEqual([sid]);
    });
  }
});

describe("sherpa-onnx VITS pack", () => {
  const dir = tempDir("sawt-tts-sherpa-");
  let engine: Engine;
  beforeAll(async () => {
    await writeSherpaVitsPack(join(dir.path, "models", "yara"), {
      sampleRate: 24000,
      phonemeIdMap: IPA_MAP,
      espeakVoice: "ar",
      numSpeakers: 3,
    });
    engine = await startEngine(join(dir.path, "models"), TEXT_AS_WRITTEN);
  });
  afterAll(async () => {
    await engine.release();
    dir.remove();
  });

  test("does feed tokens.txt ids in Piper's sequence at the model's rate when the pack is sherpa-onnx", async () => {
    const { samples, sampleRate, result } = await speak(engine, { input: INPUT });
    expect(result.engine).toBe("vits");
    expect(sampleRate).toBe(24000);
    const phonemes = await phonemizeSentences(prepareText(INPUT, "ar"), "ar");
    const decoded = decodeSentences(samples, sampleRate, 1);
    expect(decoded.map((d) => d.ids)).toEqual(phonemes.map((p) => expectedIds(p, IPA_MAP)));
    expect(new Set(decoded.flatMap((d) => d.amplitude.map(sidFromAmplitude)))).toEqual(new Set([0]));
  });

  test("does halve the segments when speed is 2 on a sherpa-onnx pack", async () => {
    const { samples, sampleRate } = await speak(engine, { input: "مرحبا", speed: 2 });
    const [decoded] = decodeSentences(samples, sampleRate, 0.5);
    const phonemes = await phonemizeSentences(prepareText("مرحبا", "ar"), "ar");
    expect(decoded!.ids).toEqual(expectedIds(phonemes[0]!, IPA_MAP));
    expect(decoded!.segmentSamples).toBe(toneSegmentSamples(toneBaseSamples(24000), 0.5));
  });
});
