/**
 * Dialect over the whole call: the mean of the dialect-id logits over the first
 * `asr.dialect_seconds` of speech decides the call's dialect (with a softmax confidence) and the
 * route to a dialect pack — declared by the pack's own `dialect.txt` here — while each segment
 * keeps its own dialect in verbose_json.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { callDialect, decide, meanLogits } from "../../src/asr/dialect/call.ts";
import { renderTranscript } from "../../src/transcripts/formats.ts";
import { writeToneCtcPack } from "../support/models/ctc.ts";
import { writeDialectPack } from "../support/models/dialect.ts";
import { writeWhisperPack } from "../support/models/whisper.ts";
import { concat, modelsDir, readyEngine, silence, sine } from "./support.ts";

const LABELS = ["ar-najdi", "ar-egyptian"];

describe("call-level dialect arithmetic", () => {
  test("does weight each stretch's logits by its seconds inside the budget", () => {
    const najdi = { logits: new Float32Array([4, 0]), seconds: 2 };
    const egyptian = { logits: new Float32Array([0, 4]), seconds: 3 };
    expect(callDialect([najdi, egyptian], LABELS, 30)?.dialect).toBe("ar-egyptian");
    // Only the first 2 s count: the Najdi stretch alone.
    expect(callDialect([najdi, egyptian], LABELS, 2)?.dialect).toBe("ar-najdi");
    // 2 s of Najdi and the first 1 s of Egyptian: mean [8/3, 4/3].
    expect(
      Array.from(
        meanLogits([
          { logits: najdi.logits, weight: 2 },
          { logits: egyptian.logits, weight: 1 },
        ])!,
      ),
    ).toEqual([8 / 3, 4 / 3].map(Math.fround));
  });

  test("does report the winning label's softmax probability as confidence", () => {
    expect(decide(new Float32Array([Math.log(3), 0]), LABELS)).toEqual({ dialect: "ar-najdi", confidence: 0.75 });
    expect(decide(null, LABELS)).toBeNull();
  });
});

describe("dialect over the whole call", () => {
  let models: ReturnType<typeof modelsDir>;
  beforeAll(async () => {
    models = modelsDir();
    await writeToneCtcPack(join(models.dir, "tone-ctc"));
    await writeWhisperPack(join(models.dir, "whisper-egy"), { rows: ["ازيك يا باشا"], bands: [[0, 8000]] });
    writeFileSync(join(models.dir, "whisper-egy", "dialect.txt"), "egyptian\n");
    await writeDialectPack(join(models.dir, "dialect-id"), {
      labels: ["ar-najdi", "egyptian"],
      bands: [
        [0, 1000],
        [2000, 4000],
      ],
    });
  });
  afterAll(() => models?.remove());

  /** 2 s that sound Najdi, a long pause, then 3 s that sound Egyptian: two segments over 30 s. */
  const call = () => concat(silence(0.3), sine(500, 2), silence(28), sine(3000, 3), silence(0.3));

  test("does decide the call's dialect over its first seconds of speech and route by that decision", async () => {
    const engine = await readyEngine(models.dir, { SAWT_ASR_PACK: "tone-ctc" });
    try {
      expect(engine.details.dialect_packs).toEqual({ "ar-egyptian": "whisper-egy" });
      const transcript = await engine.service.transcribeSamples(call());
      // The first segment alone would say Najdi; the mean over both says Egyptian and routes.
      expect(transcript.dialect).toBe("ar-egyptian");
      expect(transcript.model).toBe("whisper-egy");
      expect(transcript.dialectConfidence).toBeGreaterThan(0.5);
      expect(transcript.dialectConfidence).toBeLessThanOrEqual(1);
      expect(transcript.segments.map((s) => [s.dialect, s.text])).toEqual([
        ["ar-najdi", "ازيك يا باشا"],
        ["ar-egyptian", "ازيك يا باشا"],
      ]);
      const verbose = JSON.parse(renderTranscript(transcript, "verbose_json").body);
      expect(verbose.segments.map((s: { dialect: string }) => s.dialect)).toEqual(["ar-najdi", "ar-egyptian"]);
      expect(verbose.model).toBe("whisper-egy");
      const json = JSON.parse(renderTranscript(transcript, "json").body);
      expect(json).toEqual({
        text: transcript.text,
        language: "ar",
        dialect: "ar-egyptian",
        duration: transcript.duration,
        dialect_confidence: transcript.dialectConfidence,
      });
    } finally {
      await engine.release();
    }
  });

  test("does look only at asr.dialect_seconds of speech", async () => {
    const engine = await readyEngine(models.dir, { SAWT_ASR_PACK: "tone-ctc", SAWT_ASR_DIALECT_SECONDS: "2" });
    try {
      expect((await engine.service.transcribeSamples(call())).dialect).toBe("ar-najdi");
    } finally {
      await engine.release();
    }
  });

  test("does keep the pack a call names with model over the dialect route", async () => {
    const engine = await readyEngine(models.dir, { SAWT_ASR_PACK: "tone-ctc" });
    try {
      const transcript = await engine.service.transcribeSamples(call(), { model: "tone-ctc" });
      expect(transcript.dialect).toBe("ar-egyptian");
      expect(transcript.text).not.toContain("ازيك");
    } finally {
      await engine.release();
    }
  });
});
