/**
 * Issue #18, acceptance 5: `bun run bundle -- --models DIR` carries the packs of DIR — folders
 * and archives as published — into the bundle, validated as `sawt models install` validates
 * them; `install.sh --root` lays them into /var/lib/sawt/models and the installed binary lists
 * them as serving. A pack that cannot load fails the build instead of shipping.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { LETTER_TONES, writeToneCtcPack } from "../support/models/ctc.ts";
import { writePiperPack } from "../support/models/tone-voice.ts";
import { sileroPackDir } from "../support/fixtures/models.ts";
import { tempDir } from "../support/sawt.ts";
import { sh } from "../models/archives.ts";
import { buildTestBundle, runInstaller } from "./bundle-support.ts";

const work = tempDir("sawt-bundle-models-");
const models = join(work.path, "models");
const root = join(work.path, "root");
let bundle = "";

beforeAll(async () => {
  await writePiperPack(join(models, "Yara"), {
    name: "ar_JO-letters-medium",
    sampleRate: 16000,
    phonemeType: "text",
    phonemeIdMap: Object.fromEntries(LETTER_TONES),
  });
  await writeToneCtcPack(join(models, "tone-ctc"));
  // The real Silero VAD as an operator carries it: a .tar.gz of its folder.
  sh(["tar", "-czf", join(models, "silero-vad.tar.gz"), "-C", dirname(sileroPackDir()), "silero-vad"]);
  bundle = buildTestBundle(join(work.path, "out"), { models });
}, 240_000);

afterAll(() => work.remove());

describe("a bundle built with --models", () => {
  test("does carry each pack validated, with its SHA256SUMS, and say so in manifest.json", () => {
    const manifest = JSON.parse(readFileSync(join(bundle, "manifest.json"), "utf8")) as { model_packs: string[] };
    expect(manifest.model_packs).toEqual(["Yara", "silero-vad", "tone-ctc"]);
    for (const pack of manifest.model_packs)
      expect(sh(["sha256sum", "--check", "--quiet", "SHA256SUMS"], join(bundle, "models", pack))).toBe("");
  });

  test("does install with install.sh --root, and the installed binary lists its packs as serving", async () => {
    const result = await runInstaller(bundle, ["--root", root, "--no-key"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("copying model pack silero-vad");
    const env = {
      ...process.env,
      SAWT_CONFIG: join(root, "etc/sawt/sawt.toml"),
      SAWT_MODELS_DIR: join(root, "var/lib/sawt/models"),
      SAWT_DATA_DIR: join(root, "var/lib/sawt"),
    };
    const listed = Bun.spawnSync([join(root, "opt/sawt/current/sawt"), "models", "list", "--json"], {
      env,
      cwd: "/",
      stdout: "pipe",
      stderr: "pipe",
    });
    const packs = (JSON.parse(listed.stdout.toString()) as { packs: Array<Record<string, unknown>> }).packs;
    expect(packs.map((p) => [p.name, p.serves, p.problems])).toEqual([
      ["Yara", "TTS voice Yara (piper)", []],
      ["silero-vad", "ASR vad (silero-vad)", []],
      ["tone-ctc", "ASR recognizer (nemo-ctc)", []],
    ]);
    expect(packs.every((p) => typeof p.warm_up_ms === "number" && p.provider === "cpu")).toBe(true);
  }, 120_000);

  test("does refuse to build when a pack cannot load", () => {
    const broken = join(work.path, "broken-models", "Myriam");
    mkdirSync(broken, { recursive: true });
    writeFileSync(join(broken, "ar.onnx"), "not a model");
    writeFileSync(join(broken, "ar.onnx.json"), "{}");
    expect(() => buildTestBundle(join(work.path, "out-broken"), { models: join(work.path, "broken-models") })).toThrow(
      /model pack Myriam refused: /,
    );
  }, 240_000);
});
