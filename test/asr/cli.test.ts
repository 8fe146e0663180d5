/**
 * `sawt asr FILE`: offline transcription through the real CLI process, every response format;
 * and what `sawt doctor` says about ASR packs.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { letterToneAudio, writeToneCtcPack } from "../support/models/ctc.ts";
import { writeWhisperPack } from "../support/models/whisper.ts";
import { runCli } from "../support/sawt.ts";
import { concat, encodeFile, ENCODINGS, modelsDir, silence } from "./support.ts";

const TEXT = "سلام عليكم";
let models: ReturnType<typeof modelsDir>;
let file: string;
let env: Record<string, string>;

beforeAll(async () => {
  models = modelsDir();
  await writeToneCtcPack(join(models.dir, "tone-ctc"));
  file = encodeFile(
    concat(silence(0.2), letterToneAudio(TEXT), silence(0.3)),
    16000,
    join(models.dir, "call.mp3"),
    ENCODINGS.mp3!,
  );
  env = { SAWT_MODELS_DIR: models.dir, SAWT_DATA_DIR: join(models.dir, ".data") };
});

afterAll(() => models?.remove());

describe("sawt asr", () => {
  test("does print the json transcript when given a file", async () => {
    const { stdout, code } = await runCli(["asr", file], { env });
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ text: TEXT, language: "ar", dialect: null, duration: expect.any(Number) });
  });

  test("does print text, verbose_json, srt and vtt when asked", async () => {
    expect((await runCli(["asr", file, "--format", "text"], { env })).stdout).toBe(`${TEXT}\n`);
    const verbose = JSON.parse((await runCli(["asr", file, "--format=verbose_json"], { env })).stdout);
    expect(verbose.segments[0].words.map((w: { word: string }) => w.word)).toEqual(TEXT.split(" "));
    expect((await runCli(["asr", file, "--format", "srt"], { env })).stdout).toMatch(
      /^1\n00:00:00,\d{3} --> 00:00:0\d,\d{3}\nسلام عليكم\n/,
    );
    expect((await runCli(["asr", file, "--format", "vtt"], { env })).stdout).toStartWith("WEBVTT\n\n00:00:00.");
  });

  test("does exit 1 with the contract reason when the file is not audio", async () => {
    const junk = join(models.dir, "junk.wav");
    await Bun.write(junk, "RIFF but not really a wav file at all");
    const { stderr, code, stdout } = await runCli(["asr", junk], { env });
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toContain("Couldn't transcribe the file: unsupported or corrupt audio");
  });

  test("does exit 1 when no ASR pack is installed and 2 on a usage error", async () => {
    const empty = modelsDir();
    try {
      const none = await runCli(["asr", file], { env: { SAWT_MODELS_DIR: empty.dir } });
      expect(none.code).toBe(1);
      expect(none.stderr).toContain("no recogniser is installed");
    } finally {
      empty.remove();
    }
    expect((await runCli(["asr"], { env })).code).toBe(2);
    expect((await runCli(["asr", file, "--format", "docx"], { env })).code).toBe(2);
    expect((await runCli(["asr", join(models.dir, "notes.txt")], { env })).stderr).toContain("Invalid file type");
  });
});

describe("sawt doctor on ASR packs", () => {
  test("does list the recognisers and name a broken ASR pack with its reason", async () => {
    const dir = modelsDir();
    try {
      await writeToneCtcPack(join(dir.dir, "tone-ctc"));
      await writeWhisperPack(
        join(dir.dir, "whisper-en"),
        {
          rows: ["x"],
          bands: [[0, 8000]],
          metadata: { is_multilingual: 0, all_language_codes: "en", all_language_tokens: "0" },
        },
        "tiny.en",
      );
      const { stdout } = await runCli(["doctor", "--json"], {
        env: { SAWT_MODELS_DIR: dir.dir, SAWT_DATA_DIR: join(dir.dir, ".data") },
      });
      const check = (JSON.parse(stdout) as { checks: { name: string; status: string; detail: string }[] }).checks.find(
        (c) => c.name === "asr packs",
      );
      expect(check?.status).toBe("warn");
      expect(check?.detail).toContain("recognisers: tone-ctc (nemo-ctc)");
      expect(check?.detail).toContain("whisper-en: English-only Whisper model");
    } finally {
      dir.remove();
    }
  });
});
