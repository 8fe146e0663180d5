/**
 * `sawt models list|verify` report what the engines' registries see: every valid pack (voice,
 * speaker encoder) serves something, broken or unrecognised folders are named with why, and
 * verify checks SHA256SUMS.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { writeSpeakerEncoderPack } from "../support/models/speaker-encoder.ts";
import { writePiperPack } from "../support/models/tone-voice.ts";
import { runCli, tempDir } from "../support/sawt.ts";

const dir = tempDir("sawt-models-");
const models = join(dir.path, "models");
const env = { SAWT_MODELS_DIR: models, SAWT_DATA_DIR: join(dir.path, "data") };

beforeAll(async () => {
  mkdirSync(models, { recursive: true });
  await writeSpeakerEncoderPack(models);
  await writePiperPack(join(models, "yara"), {
    name: "ar_text",
    sampleRate: 16000,
    phonemeIdMap: { a: 4 },
    phonemeType: "text",
  });
  mkdirSync(join(models, "sherine"));
  writeFileSync(join(models, "sherine", "voice.onnx"), "not a model");
  mkdirSync(join(models, "notes"));
  writeFileSync(join(models, "notes", "readme.txt"), "hello");
});
afterAll(() => dir.remove());

describe("sawt models", () => {
  test("does list what each folder serves as the engines see it", async () => {
    const result = await runCli(["models", "list", "--json"], { env });
    expect(result.code).toBe(0);
    const { packs } = JSON.parse(result.stdout) as {
      packs: Array<{ name: string; serves?: string; problems: string[] }>;
    };
    const byName = Object.fromEntries(packs.map((p) => [p.name, p]));
    expect(byName["yara"]).toMatchObject({ serves: "TTS voice Yara (piper)", problems: [] });
    expect(byName["speaker-encoder"]).toMatchObject({ serves: "voice cloning speaker encoder", problems: [] });
    expect(byName["sherine"]!.serves).toBeUndefined();
    expect(byName["sherine"]!.problems[0]).toContain("Piper voice");
    expect(byName["notes"]!.problems).toEqual(["no pack family recognises these files"]);
  });

  test("does fail verify on a checksum mismatch and pass once the sums match", async () => {
    const clean = { ...env, SAWT_MODELS_DIR: join(dir.path, "clean") };
    mkdirSync(clean.SAWT_MODELS_DIR);
    await writeSpeakerEncoderPack(clean.SAWT_MODELS_DIR);
    const pack = join(clean.SAWT_MODELS_DIR, "speaker-encoder");
    const digest = new Bun.CryptoHasher("sha256")
      .update(await Bun.file(join(pack, "model.onnx")).bytes())
      .digest("hex");
    writeFileSync(join(pack, "SHA256SUMS"), `${"0".repeat(64)}  model.onnx\n`);
    const bad = await runCli(["models", "verify"], { env: clean });
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain("model.onnx checksum mismatch");
    writeFileSync(join(pack, "SHA256SUMS"), `${digest}  model.onnx\n`);
    const good = await runCli(["models", "verify"], { env: clean });
    expect(good.code).toBe(0);
    expect(good.stdout).toContain("1 checked against SHA256SUMS");
  });
});
