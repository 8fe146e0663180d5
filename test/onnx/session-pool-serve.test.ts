/**
 * Session pools in the running server (issue #19): each voice pack opens `tts.concurrency`
 * lanes of cores ÷ N threads plus an all-cores solo session, `runtime.pack_sessions` overrides N
 * per pack (1: one plain session), a VITS voice's one-thread lanes run its decoder lifted to 2-D,
 * and concurrent syntheses through a pool give exactly the audio
 * of a lone one (every member runs the same model).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { ConfigError, loadConfig } from "../../src/config/config.ts";
import { writePiperMediumPacks } from "../support/models/piper-medium.ts";
import { writePiperPack } from "../support/models/tone-voice.ts";
import { startSawt, tempDir, waitForStatus, type SawtProcess } from "../support/sawt.ts";
import { ARABIC_IPA_SYMBOLS, ARABIC_TEXT_SYMBOLS, idMap } from "../tts/support.ts";

const dir = tempDir("sawt-pool-serve-");
const models = join(dir.path, "models");
let sawt: SawtProcess;
let key: string;

beforeAll(async () => {
  for (const folder of ["yara", "sherine", "myriam"])
    await writePiperPack(join(models, folder), {
      name: "ar_text",
      sampleRate: 16000,
      phonemeIdMap: idMap(ARABIC_TEXT_SYMBOLS),
      phonemeType: "text",
      costRepeats: 30,
    });
  // A voice of real VITS shape, whose lanes run its decoder lifted to 2-D (onnx/conv-lift.ts).
  await writePiperMediumPacks(
    { piper: join(models, "yara_en"), sherpa: join(dir.path, "sherpa-medium") },
    { phonemeIdMap: idMap(ARABIC_IPA_SYMBOLS) },
  );
  sawt = await startSawt({
    env: {
      SAWT_MODELS_DIR: models,
      SAWT_TTS_CONCURRENCY: "2",
      SAWT_RUNTIME_INTRA_OP_THREADS: "2",
      SAWT_RUNTIME_PROVIDER: "cpu",
      SAWT_RUNTIME_PACK_SESSIONS: "sherine=3\nmyriam=1",
    },
  });
  await waitForStatus(`${sawt.baseUrl}/ready`);
  ({ key } = await sawt.createKey({ name: "pool", rpm: 1000 }));
});

afterAll(async () => {
  await sawt?.stop();
  dir.remove();
});

/** The `session pool opened` log records, by model label. */
function poolLogs(): Map<string, Record<string, unknown>> {
  const pools = new Map<string, Record<string, unknown>>();
  for (const line of sawt.logs) {
    if (!line.includes('"session pool opened"')) continue;
    const record = JSON.parse(line) as Record<string, unknown>;
    pools.set(String(record.model), record);
  }
  return pools;
}

async function speak(voice: string, text: string): Promise<Uint8Array> {
  const response = await fetch(`${sawt.baseUrl}/v1/tts/audio/speech`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ input: text, voice, response_format: "pcm" }),
  });
  expect(response.status).toBe(200);
  return new Uint8Array(await response.arrayBuffer());
}

describe("session pools in sawt serve", () => {
  test("does open tts.concurrency lanes per voice, or the pack's own count, and one session for 1", () => {
    const pools = poolLogs();
    expect(pools.get("yara/ar_text.onnx")).toMatchObject({ lanes: 2, lane_threads: 1, solo_threads: 2 });
    expect(pools.get("sherine/ar_text.onnx")).toMatchObject({ lanes: 3, lane_threads: 1, solo_threads: 2 });
    expect(pools.has("myriam/ar_text.onnx")).toBe(false);
    expect(pools.size).toBe(3);
  });

  test("does run a VITS voice's one-thread lanes with the decoder's 23 convolutions lifted, and no others", () => {
    const pools = poolLogs();
    expect(pools.get("yara_en/ar_JO-bench-medium.onnx")).toMatchObject({
      lanes: 2,
      lane_threads: 1,
      lane_lifted_convolutions: 23,
    });
    // The tone voices have no convolutions: nothing to lift, which is no reason to warn.
    expect(pools.get("yara/ar_text.onnx")).toMatchObject({ lane_lifted_convolutions: 0 });
    expect(sawt.logs.filter((l) => l.includes('"convolutions not lifted"'))).toEqual([]);
  });

  test("does give concurrent syntheses through a pool exactly the audio of a lone one", async () => {
    const texts = ["مرحبا بكم", "شكرا لاتصالكم", "يرجى الانتظار", "مع السلامة"];
    const alone = [];
    for (const text of texts) alone.push(await speak("Yara", text));
    for (let round = 0; round < 3; round++) {
      const together = await Promise.all(texts.map((text) => speak("Yara", text)));
      for (let i = 0; i < texts.length; i++)
        expect(Buffer.from(together[i]!).equals(Buffer.from(alone[i]!))).toBe(true);
    }
  });
});

describe("runtime.lift_convolutions", () => {
  test("does run every model as written when false", async () => {
    const plain = await startSawt({
      env: {
        SAWT_MODELS_DIR: models,
        SAWT_TTS_CONCURRENCY: "2",
        SAWT_RUNTIME_INTRA_OP_THREADS: "2",
        SAWT_RUNTIME_PROVIDER: "cpu",
        SAWT_RUNTIME_LIFT_CONVOLUTIONS: "false",
      },
    });
    try {
      await waitForStatus(`${plain.baseUrl}/ready`);
      const line = plain.logs.find((l) => l.includes('"session pool opened"') && l.includes("yara_en/"));
      expect(JSON.parse(line!)).toMatchObject({ lanes: 2, lane_threads: 1, lane_lifted_convolutions: 0 });
    } finally {
      await plain.stop();
    }
  });
});

describe("runtime.pack_sessions", () => {
  test("does accept pack=N from 1 to 16 and name the setting when an entry is wrong", () => {
    const env = (value: string) => ({ SAWT_RUNTIME_PACK_SESSIONS: value });
    expect(loadConfig({ env: env("yara=1\nwhisper-large=16") }).runtime.pack_sessions).toEqual([
      "yara=1",
      "whisper-large=16",
    ]);
    for (const bad of ["yara=0", "yara=17", "yara", "=2", "a/b=2", "yara=two"]) {
      expect(() => loadConfig({ env: env(bad) })).toThrow(ConfigError);
      expect(() => loadConfig({ env: env(bad) })).toThrow(/runtime\.pack_sessions .*pack=N/);
    }
  });
});
