/** `sawt tts --analyze`: the reading an operator sees, the same as POST /v1/tts/analyze answers. */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { runCli, tempDir } from "../../support/sawt.ts";
import { REFERENCE_INPUT, REFERENCE_OUTPUT } from "./support.ts";

describe("sawt tts --analyze", () => {
  const dir = tempDir("sawt-arabic-cli-");
  const models = join(dir.path, "models");
  mkdirSync(models);
  afterAll(() => dir.remove());
  const env = { SAWT_MODELS_DIR: models, SAWT_DATA_DIR: join(dir.path, "data") };

  test("does print the normalised and diacritised text and phonemes without --out", async () => {
    const { code, stdout } = await runCli(
      ["tts", "--analyze", "--text", `${REFERENCE_INPUT}. الرقم 13`, "--dialect", "ar-egyptian"],
      { env },
    );
    expect(code).toBe(0);
    expect(stdout).toContain("voice=Sherine dialect=ar-egyptian engine=espeak-ng tashkeel=built-in ssml=false");
    expect(stdout).toContain(`  diacritized: ${REFERENCE_OUTPUT}.`);
    expect(stdout).toContain("  normalized:  الرقم تلتاشر");
    expect(stdout).toMatch(/ {2}phonemes: {4}\S+/u);
  });

  test("does print the analysis as JSON with --json, SSML breaks included", async () => {
    const { code, stdout } = await runCli(
      ["tts", "--analyze", "--json", "--text", `<speak>${REFERENCE_INPUT}<break time="1s"/></speak>`],
      { env },
    );
    expect(code).toBe(0);
    const analysis = JSON.parse(stdout);
    expect(analysis).toMatchObject({ voice: "Yara", ssml: true, tashkeel: "built-in" });
    expect(analysis.sentences.map((s: any) => s.diacritized ?? s.seconds)).toEqual([REFERENCE_OUTPUT, 1]);
  });

  test("does exit 2 naming the problem when the SSML is malformed", async () => {
    const { code, stderr } = await runCli(["tts", "--analyze", "--text", "<speak><b>x</b></speak>"], { env });
    expect(code).toBe(2);
    expect(stderr).toContain("Invalid SSML: unsupported element <b>");
  });
});
