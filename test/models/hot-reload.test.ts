/**
 * Hot reload (issue #18, acceptance 1 and 4) against the real service process: packs installed
 * with `sawt models install` (through the admin API), by SIGHUP and by
 * `POST /v1/admin/models/reload` are served without a restart; a synthesis started before the
 * install finishes on the old pack; 100 requests in flight across a reload all succeed, and the
 * old generation's memory is given back once it drains.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { encodeWav } from "../../src/audio/wav.ts";
import { LETTER_TONES, letterToneAudio, writeToneCtcPack } from "../support/models/ctc.ts";
import { writePiperPack, writeSherpaVitsPack } from "../support/models/tone-voice.ts";
import { runCli, startSawt, tempDir, until, type SawtProcess } from "../support/sawt.ts";
import { ARABIC_IPA_SYMBOLS, idMap } from "../tts/support.ts";
import { sherpaArchive } from "./archives.ts";

const LETTERS = Object.fromEntries(LETTER_TONES);
const work = tempDir("sawt-reload-");
const models = join(work.path, "models");
const sources = join(work.path, "sources");
let sawt: SawtProcess;
let adminKey = "";
let userKey = "";

function speech(input: string, voice = "Yara"): Promise<Response> {
  return fetch(`${sawt.baseUrl}/v1/tts/audio/speech`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": userKey },
    body: JSON.stringify({ input, voice, response_format: "pcm" }),
  });
}

async function health(engine: "tts" | "asr"): Promise<Record<string, any>> {
  return (await (await fetch(`${sawt.baseUrl}/v1/${engine}/health`)).json()) as Record<string, any>;
}

function reload(key = adminKey): Promise<Response> {
  return fetch(`${sawt.baseUrl}/v1/admin/models/reload`, { method: "POST", headers: { "x-api-key": key } });
}

/** The service's resident memory in MiB, from /proc. */
function rssMiB(): number {
  const status = readFileSync(`/proc/${sawt.proc.pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

beforeAll(async () => {
  mkdirSync(sources, { recursive: true });
  // The old Yara: 16 kHz and slow per sentence, so a long text is still speaking during an install.
  await writePiperPack(join(models, "Yara"), {
    name: "ar_JO-old-medium",
    sampleRate: 16000,
    phonemeType: "text",
    phonemeIdMap: LETTERS,
    costRepeats: 40,
  });
  sawt = await startSawt({
    env: { SAWT_MODELS_DIR: models, SAWT_TTS_MAX_QUEUE: "200", SAWT_RUNTIME_INTRA_OP_THREADS: "1" },
  });
  adminKey = (await sawt.createKey({ name: "operator", admin: true })).key;
  userKey = (await sawt.createKey({ name: "client", rpm: 10_000 })).key;
  await until(async () => (await health("tts")).status === "healthy", "TTS ready");
}, 60_000);

afterAll(async () => {
  await sawt?.stop();
  work.remove();
});

describe("a running service given new packs", () => {
  test("does serve a sherpa-onnx .tar.bz2 and a Piper pair installed while a long synthesis finishes on the old pack", async () => {
    expect((await health("asr")).status).toBe("unavailable"); // no recogniser yet
    const generation = (await health("tts")).generation as number;
    const long = await speech("سلام عليكم. ".repeat(30));
    expect(long.headers.get("x-sample-rate")).toBe("16000");
    const reader = long.body!.getReader();
    expect((await reader.read()).done).toBe(false); // speaking, on the old pack

    // sherpa-onnx's layout: one top folder, README, test_wavs; a recogniser and a voice.
    const ctcDir = join(work.path, "ctc");
    await writeToneCtcPack(ctcDir);
    const ctcArchive = sherpaArchive(ctcDir, sources, "sherpa-onnx-nemo-ctc-ar-tones");
    const vitsDir = join(work.path, "vits");
    await writeSherpaVitsPack(vitsDir, {
      sampleRate: 22050,
      phonemeIdMap: idMap(ARABIC_IPA_SYMBOLS),
      espeakVoice: "ar",
    });
    const vitsArchive = sherpaArchive(vitsDir, sources, "vits-piper-ar_JO-tones-medium");
    const pairDir = join(work.path, "pair");
    const pair = await writePiperPack(pairDir, {
      name: "ar_JO-new-medium",
      sampleRate: 24000,
      phonemeType: "text",
      phonemeIdMap: LETTERS,
    });
    const env = { ...sawt.env, SAWT_MODELS_DIR: models };
    const cli = (args: string[]) =>
      runCli(["models", "install", ...args, "--admin-key", adminKey, "--url", sawt.baseUrl], { env });

    const ctc = await cli([ctcArchive]);
    expect(ctc.stdout).toMatch(/installed sherpa-onnx-nemo-ctc-ar-tones: ASR recognizer \(nemo-ctc\), from a tar\.bz2/);
    expect(ctc.code).toBe(0);
    const voice = await cli([vitsArchive, "--as", "Sherine"]);
    expect(voice.stdout).toMatch(/installed Sherine: TTS voice Sherine \(vits\)/);
    // Voice folders match case-insensitively: `--as yara` replaces `Yara/`.
    const piper = await cli([pair.modelPath, "--as", "yara"]);
    expect(piper.stdout).toMatch(/installed yara \(replaced\): TTS voice Yara \(piper\), from a piper pair/);
    expect(piper.stdout).toMatch(/service reloaded: tts ready \(generation \d+\)/);

    // The long synthesis, started on the old Yara, runs to its end there.
    let bytes = 0;
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) bytes += chunk.value.length;
    expect(bytes).toBeGreaterThan(16000 * 2 * 5);
    // New requests: the new Yara (24 kHz), the new Sherine, the new recogniser.
    const yara = await speech("سلام");
    expect(yara.headers.get("x-sample-rate")).toBe("24000");
    const sherine = await speech("سلام", "Sherine");
    expect([sherine.status, sherine.headers.get("x-tts-engine"), sherine.headers.get("x-sample-rate")]).toEqual([
      200,
      "vits",
      "22050",
    ]);
    const form = new FormData();
    form.append("file", new Blob([encodeWav(letterToneAudio("سلام"), 16000)], { type: "audio/wav" }), "a.wav");
    const asr = await fetch(`${sawt.baseUrl}/v1/audio/transcriptions`, {
      method: "POST",
      headers: { "x-api-key": userKey },
      body: form,
    });
    expect(((await asr.json()) as { text: string }).text).toBe("سلام");
    const tts = await health("tts");
    expect(tts.generation).toBeGreaterThan(generation);
    expect((await health("asr")).recognizer).toBe("sherpa-onnx-nemo-ctc-ar-tones");
    const voices = (await (
      await fetch(`${sawt.baseUrl}/v1/tts/voices`, { headers: { "x-api-key": userKey } })
    ).json()) as { packs: any[] };
    expect(voices.packs.map((p) => [p.voice, p.name, p.family, p.provider])).toEqual([
      ["Yara", "yara", "piper", "cpu"],
      ["Sherine", "Sherine", "vits", "cpu"],
    ]);
    for (const pack of voices.packs) expect(pack.size_bytes > 0 && pack.warm_up_ms >= 0).toBe(true);
  }, 120_000);

  test("does reload on SIGHUP and on the admin route, which wants an admin key", async () => {
    const before = (await health("tts")).generation as number;
    sawt.proc.kill("SIGHUP");
    await until(async () => (await health("tts")).generation === before + 1, "generation after SIGHUP");
    expect((await reload(userKey)).status).toBe(403);
    expect((await fetch(`${sawt.baseUrl}/v1/admin/models/reload`, { method: "POST" })).status).toBe(401);
    const res = await reload();
    expect(res.status).toBe(200);
    const body = (await res.json()) as { engines: Array<Record<string, unknown>> };
    expect(body.engines).toEqual([
      { engine: "tts", outcome: "ready", generation: before + 2 },
      { engine: "asr", outcome: "ready", generation: expect.any(Number) },
    ]);
  }, 60_000);
});

describe("a reload under load", () => {
  test("does answer 100 requests in flight across it and give the old pack's memory back", async () => {
    // A heavy Yara: its release shows in the process's RSS.
    await writePiperPack(join(work.path, "heavy"), {
      name: "ar_JO-heavy-medium",
      sampleRate: 16000,
      phonemeType: "text",
      phonemeIdMap: LETTERS,
      ballastMiB: 160,
    });
    const env = { ...sawt.env, SAWT_MODELS_DIR: models };
    const installed = await runCli(
      [
        "models",
        "install",
        join(work.path, "heavy", "ar_JO-heavy-medium.onnx"),
        "--as",
        "Yara",
        "--admin-key",
        adminKey,
        "--url",
        sawt.baseUrl,
      ],
      { env },
    );
    expect(installed.code).toBe(0);
    for (let i = 0; i < 3; i++) expect((await speech("سلام")).status).toBe(200);
    const sessions = () => sawt.logs.filter((l) => l.includes("engine generation released")).length;
    await until(() => sessions() >= 6, "every earlier generation released");
    const baseline = rssMiB();

    const released = sessions();
    const calls = Array.from({ length: 100 }, (_, i) =>
      speech(`سلام ${"ع".repeat(i % 7)}`).then(async (r) => [r.status, (await r.arrayBuffer()).byteLength] as const),
    );
    const reloaded = await reload();
    expect(reloaded.status).toBe(200);
    const during = rssMiB(); // the new generation loaded, the old one still draining
    const results = await Promise.all(calls);
    expect(results.filter(([status, size]) => status !== 200 || size === 0)).toEqual([]);
    await until(() => sessions() >= released + 2, "the old generations released");
    await Bun.sleep(500);
    const after = rssMiB();
    console.info(
      `RSS MiB: baseline ${baseline.toFixed(0)}, two generations ${during.toFixed(0)}, drained ${after.toFixed(0)}`,
    );
    // Two heavy generations at once cost about one more pack; after the drain that is given back.
    expect(during - baseline).toBeGreaterThan(80);
    expect(after - baseline).toBeLessThan(40);
  }, 120_000);
});
