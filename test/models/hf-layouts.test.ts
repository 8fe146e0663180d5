/**
 * The Hugging Face layout recogniser families end to end: constructed packs (Whisper in the
 * Optimum / onnx-community layout, a wav2vec2-family CTC model) install with `sawt models
 * install` from a folder and from a `.tar.gz` into a running server, which then serves them over
 * REST (verbose_json: text, segment times from Whisper's timestamp tokens, CTC word times), gRPC
 * Recognize and the realtime door (a committed buffer).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { encodeWav, floatToInt16, int16ToBytes } from "../../src/audio/wav.ts";
import { concat, silence, sine } from "../asr/support.ts";
import { connect } from "../asr/ws-client.ts";
import { bearer, clients, unary, waitServing } from "../grpc/client.ts";
import { uploadForm } from "../rest/support.ts";
import { spellAudio, writeWav2Vec2Pack } from "../support/models/wav2vec2.ts";
import { HF_WHISPER_SCRIPT, writeHfWhisperPack } from "../support/models/whisper-hf.ts";
import { runCli, startSawt, tempDir, until, type SawtProcess } from "../support/sawt.ts";
import { tarGzFolder } from "./archives.ts";

const s16le = (samples: Float32Array) => Buffer.from(int16ToBytes(floatToInt16(samples)));

/** One family's server: its pack installed from a folder (the default recogniser) and from a tar.gz. */
async function serve(family: string, write: (dir: string) => Promise<unknown>) {
  const work = tempDir(`sawt-${family}-`);
  const models = join(work.path, "models");
  const sources = join(work.path, "sources");
  mkdirSync(models, { recursive: true });
  const folder = join(sources, `${family}-ar`);
  await write(folder);
  const sawt = await startSawt({ env: { SAWT_MODELS_DIR: models, SAWT_STREAMING_PARTIAL_INTERVAL_MS: "0" } });
  const admin = (await sawt.createKey({ name: "operator", admin: true })).key;
  const key = (await sawt.createKey({ name: "client", rpm: 10_000 })).key;
  const install = (source: string, name: string) =>
    runCli(["models", "install", source, "--as", name, "--admin-key", admin, "--url", sawt.baseUrl], {
      env: { ...sawt.env, SAWT_MODELS_DIR: models },
    });
  return { work, models, sources, folder, sawt, key, install };
}

type Served = Awaited<ReturnType<typeof serve>>;

async function rest(served: Served, audio: Float32Array, model?: string) {
  const res = await fetch(`${served.sawt.baseUrl}/v1/asr/audio/transcriptions`, {
    method: "POST",
    headers: { "x-api-key": served.key },
    body: uploadForm(
      { name: "speech.wav", data: encodeWav(floatToInt16(audio), 16000) },
      { response_format: "verbose_json", ...(model ? { model } : {}) },
    ),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

async function realtime(served: Served, audio: Float32Array): Promise<string> {
  const client = await connect(`${served.sawt.baseUrl.replace(/^http/, "ws")}/v1/realtime?intent=transcription`, {
    headers: { authorization: `Bearer ${served.key}` },
  });
  try {
    client.sendJson({
      type: "session.update",
      session: {
        type: "transcription",
        audio: { input: { format: { type: "audio/pcm", rate: 16000 }, turn_detection: null } },
      },
    });
    await client.next("session.updated");
    client.sendJson({ type: "input_audio_buffer.append", audio: s16le(audio).toString("base64") });
    client.sendJson({ type: "input_audio_buffer.commit" });
    return (await client.next("conversation.item.input_audio_transcription.completed")).transcript as string;
  } finally {
    client.ws.close();
  }
}

async function grpcText(served: Served, audio: Float32Array, model?: string): Promise<string> {
  const port = clients(served.sawt.ports.grpc_asr);
  try {
    await waitServing(port.health, "sawt.asr.v1.SpeechRecognition");
    const outcome = await unary(
      port.asr,
      "Recognize",
      { config: { encoding: "LINEAR_PCM", sample_rate_hz: 16000, ...(model ? { model } : {}) }, audio: s16le(audio) },
      bearer(served.key),
    );
    if (outcome.error) throw outcome.error;
    return outcome.response.text;
  } finally {
    port.close();
  }
}

async function installBoth(served: Served): Promise<void> {
  const fromFolder = await served.install(served.folder, "a-pack");
  expect(fromFolder.stderr).toBe("");
  expect(fromFolder.code).toBe(0);
  const archive = tarGzFolder(served.folder, served.sources);
  const fromArchive = await served.install(archive, "b-pack");
  expect(fromArchive.code).toBe(0);
  expect(fromArchive.stdout).toMatch(/from a tar\.gz/);
  await until(async () => (await fetch(`${served.sawt.baseUrl}/v1/asr/health`)).status === 200, "ASR ready");
}

describe("Whisper in the Hugging Face layout, installed and served", () => {
  let served: Served;
  const audio = concat(silence(0.3), sine(3000, 2), silence(0.3));

  beforeAll(async () => {
    served = await serve("whisper-hf", (dir) =>
      writeHfWhisperPack(dir, { ...HF_WHISPER_SCRIPT, decoder: "split", folder: "onnx/", suffix: "_quantized" }),
    );
  }, 60_000);

  afterAll(async () => {
    await served?.sawt.stop();
    served?.work.remove();
  });

  test("does install from a folder and a .tar.gz and transcribe with segment times on every door", async () => {
    await installBoth(served);
    for (const model of ["a-pack", "b-pack"]) {
      const { status, body } = await rest(served, audio, model);
      expect(status).toBe(200);
      expect(body.text).toBe("صباح الخير يا أصدقاء");
      expect(body.segments.map((s: { text: string }) => s.text)).toEqual(["صباح الخير", "يا أصدقاء"]);
      // The timestamp tokens' times (0.04–0.8 s, 1.0–1.8 s) moved to where the speech starts.
      const [first, second] = body.segments as { start: number; end: number }[];
      expect(second!.start - first!.start).toBeCloseTo(0.96, 2);
      expect(first!.end - first!.start).toBeCloseTo(0.76, 2);
      expect(await grpcText(served, audio, model)).toBe(body.text);
    }
    expect(await realtime(served, audio)).toBe("صباح الخير يا أصدقاء");
  }, 120_000);
});

describe("wav2vec2-family CTC in the Hugging Face layout, installed and served", () => {
  let served: Served;
  const TEXT = "الله سلام";
  const audio = concat(silence(0.3), spellAudio(TEXT), silence(0.3));

  beforeAll(async () => {
    served = await serve("wav2vec2", (dir) => writeWav2Vec2Pack(dir, { mms: true }));
  }, 60_000);

  afterAll(async () => {
    await served?.sawt.stop();
    served?.work.remove();
  });

  test("does install from a folder and a .tar.gz and transcribe with word times on every door", async () => {
    await installBoth(served);
    for (const model of ["a-pack", "b-pack"]) {
      const { status, body } = await rest(served, audio, model);
      expect(status).toBe(200);
      expect(body.text).toBe(TEXT);
      const words = body.segments.flatMap((s: { words: unknown[] }) => s.words) as { word: string; start: number }[];
      expect(words.map((w) => w.word)).toEqual(["الله", "سلام"]);
      expect(words[1]!.start - words[0]!.start).toBeCloseTo(0.5, 2);
      expect(await grpcText(served, audio, model)).toBe(TEXT);
    }
    expect(await realtime(served, audio)).toBe(TEXT);
  }, 120_000);
});
