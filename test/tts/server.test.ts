/**
 * The TTS engine inside the real server: `sawt serve` loads the packs at start-up, reports what
 * serves each voice and which packs are broken in /v1/tts/health, and logs broken packs.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { writePiperPack } from "../support/models/tone-voice.ts";
import { startSawt, tempDir, waitForStatus, type SawtProcess } from "../support/sawt.ts";
import { ARABIC_TEXT_SYMBOLS, idMap } from "./support.ts";

describe("TTS engine in sawt serve", () => {
  const dir = tempDir("sawt-tts-server-");
  const models = join(dir.path, "models");
  let sawt: SawtProcess;
  beforeAll(async () => {
    await writePiperPack(join(models, "Yara"), {
      name: "ar_text",
      sampleRate: 16000,
      phonemeIdMap: idMap(ARABIC_TEXT_SYMBOLS),
      phonemeType: "text",
    });
    await writePiperPack(join(models, "myriam"), {
      name: "ar_broken",
      sampleRate: 16000,
      phonemeIdMap: idMap("ab"),
      phonemeType: "espeak",
      espeakVoice: "",
    });
    sawt = await startSawt({ env: { SAWT_MODELS_DIR: models } });
  });
  afterAll(async () => {
    await sawt.stop();
    dir.remove();
  });

  test("does report each voice's engine and the broken pack in /v1/tts/health when started", async () => {
    const body = (await (await waitForStatus(`${sawt.baseUrl}/v1/tts/health`)).json()) as Record<string, unknown>;
    expect(body.status).toBe("healthy");
    expect(body.voices).toEqual({ Yara: "piper", Sherine: "piper", Myriam: "piper", Yara_en: "espeak-ng" });
    expect(body.packs).toEqual([
      { name: "Yara", voice: "Yara", family: "piper", sampleRate: 16000, phonemeType: "text", speakers: 1 },
    ]);
    expect(body.broken_packs).toEqual([{ pack: "myriam", reason: "espeak.voice is required for phoneme_type espeak" }]);
    expect((body.espeak as { available: boolean }).available).toBe(true);
    const broken = sawt.logs
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.msg === "tts pack broken, skipped");
    expect(broken.map((l) => l.pack)).toEqual(["myriam"]);
  });
});
