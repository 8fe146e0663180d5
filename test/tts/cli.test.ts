/**
 * `sawt tts` as an operator runs it: a real process over a models directory, audio to a file or
 * stdout, what was used on stderr, the API's validation as exit code 2.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { prepareText } from "../../src/tts/frontend/index.ts";
import { ffprobe } from "../support/audio.ts";
import { writePiperPack } from "../support/models/tone-voice.ts";
import { cliCommand, ROOT, runCli, tempDir } from "../support/sawt.ts";
import { ARABIC_TEXT_SYMBOLS, decodeSentences, expectedIds, idMap, pcmToFloat, wavToFloat } from "./support.ts";

const MAP = idMap(ARABIC_TEXT_SYMBOLS);

/** Runs `sawt tts` keeping stdout as bytes. */
async function ttsBytes(
  args: string[],
  env: Record<string, string>,
): Promise<{ stdout: Uint8Array; stderr: string; code: number }> {
  const proc = Bun.spawn([...cliCommand(), "tts", ...args], {
    cwd: ROOT,
    env: { ...process.env, SAWT_LOG_LEVEL: "warn", ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).bytes(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { stdout, stderr, code };
}

describe("sawt tts", () => {
  const dir = tempDir("sawt-tts-cli-");
  const models = join(dir.path, "models");
  const empty = join(dir.path, "empty-models");
  beforeAll(async () => {
    await writePiperPack(join(models, "yara"), {
      name: "ar_text",
      sampleRate: 16000,
      phonemeIdMap: MAP,
      phonemeType: "text",
    });
    mkdirSync(empty);
  });
  afterAll(() => dir.remove());

  test("does write a WAV of the pack's ids to --out and report what spoke on stderr", async () => {
    const out = join(dir.path, "hello.wav");
    const { code, stderr } = await runCli(["tts", "--text", "مرحبا بكم", "--format", "wav", "--out", out], {
      env: { SAWT_MODELS_DIR: models },
    });
    expect(code).toBe(0);
    expect(stderr).toContain("voice=Yara dialect=ar-najdi engine=piper format=wav sample_rate=16000");
    const wav = wavToFloat(new Uint8Array(await Bun.file(out).arrayBuffer()));
    const [sentence] = prepareText("مرحبا بكم", "ar");
    expect(decodeSentences(wav.samples, wav.sampleRate, 1)[0]!.ids).toEqual(
      expectedIds(Array.from(sentence!.text.normalize("NFD")), MAP),
    );
  });

  test("does read --file, apply --speed and write raw PCM to stdout when --out is -", async () => {
    const file = join(dir.path, "text.txt");
    await Bun.write(file, "مرحبا");
    const { code, stdout } = await ttsBytes(
      ["--file", file, "--speed", "2", "--format", "pcm", "--out", "-", "--quiet"],
      { SAWT_MODELS_DIR: models },
    );
    expect(code).toBe(0);
    const [decoded] = decodeSentences(pcmToFloat(stdout), 16000, 0.5);
    expect(decoded!.ids).toEqual(expectedIds(Array.from("مرحبا".normalize("NFD")), MAP));
  });

  test("does speak with espeak-ng and resample when no pack is installed and --sample-rate is given", async () => {
    const out = join(dir.path, "sherine.mp3");
    const { code, stderr } = await runCli(
      ["tts", "--text", "أهلا وسهلا", "--voice", "Sherine", "--sample-rate", "8000", "--out", out],
      { env: { SAWT_MODELS_DIR: empty } },
    );
    expect(code).toBe(0);
    expect(stderr).toContain("voice=Sherine dialect=ar-egyptian engine=espeak-ng format=mp3 sample_rate=8000");
    const probe = ffprobe(out);
    expect(probe).toMatchObject({ codecName: "mp3", sampleRate: 8000, channels: 1 });
  });

  test("does exit 2 with the API's detail when the input is invalid", async () => {
    const empty1 = await runCli(["tts", "--text", "  ", "--out", "-"], { env: { SAWT_MODELS_DIR: empty } });
    expect(empty1.code).toBe(2);
    expect(empty1.stderr).toContain("Text cannot be empty");
    const format = await runCli(["tts", "--text", "x", "--format", "ogg", "--out", "-"], {
      env: { SAWT_MODELS_DIR: empty },
    });
    expect(format.code).toBe(2);
    expect(format.stderr).toContain("Invalid format. Allowed: aac, flac, mp3, opus, pcm, wav");
    const missing = await runCli(["tts", "--text", "x"], { env: { SAWT_MODELS_DIR: empty } });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("--out FILE|- is required");
  });
});
