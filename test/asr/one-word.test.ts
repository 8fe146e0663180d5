/**
 * Issue #13 acceptance 1 and 4 on every route: one word spoken letter by letter with ~200 ms
 * pauses (3.2 s, the tone voice read by the constructed CTC recogniser) comes back as that one
 * word from both REST paths, the official openai SDK, `sawt asr` and gRPC Recognize — the audio
 * fits the recogniser's window, so it is decoded whole. The same server answers the OpenAI
 * options: word timestamps (top-level `words`), `model` by pack folder name with `X-ASR-Model`.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import OpenAI, { toFile } from "openai";
import { createEnergyDetector } from "../../src/asr/vad/energy.ts";
import { segmentSpeech } from "../../src/asr/vad/endpointer.ts";
import { floatToInt16, int16ToBytes } from "../../src/audio/wav.ts";
import { bearer, clients, unary, waitServing } from "../grpc/client.ts";
import { uploadForm } from "../rest/support.ts";
import { letterToneAudio, writeToneCtcPack } from "../support/models/ctc.ts";
import { runCli, startSawt, until, type SawtProcess } from "../support/sawt.ts";
import { concat, encodeFile, ENCODINGS, modelsDir, silence } from "./support.ts";

const WORD = "مرحبا";

/** The word letter by letter, each letter's tones followed by a 200 ms pause: 3.2 s in all. */
export function slowWord(word = WORD, pause = 0.2): Float32Array {
  const letters = [...word].flatMap((letter, i) =>
    i === 0 ? [letterToneAudio(letter)] : [silence(pause), letterToneAudio(letter)],
  );
  return concat(silence(0.2), ...letters, silence(0.2));
}

let models: ReturnType<typeof modelsDir>;
let sawt: SawtProcess;
let key: string;
let wav: string;
let grpcPort: ReturnType<typeof clients>;

beforeAll(async () => {
  models = modelsDir();
  await writeToneCtcPack(join(models.dir, "tone-ctc"));
  await writeToneCtcPack(join(models.dir, "tone-ctc-b"));
  wav = encodeFile(slowWord(), 16000, join(models.dir, "word.wav"), ENCODINGS.wav!);
  sawt = await startSawt({ env: { SAWT_MODELS_DIR: models.dir, SAWT_ASR_PACK: "tone-ctc" } });
  key = (await sawt.createKey({ name: "one-word", rpm: 10_000 })).key;
  await until(async () => (await fetch(`${sawt.baseUrl}/v1/asr/health`)).status === 200, "the ASR engine to serve", {
    timeoutMs: 30_000,
    everyMs: 100,
  });
  grpcPort = clients(sawt.ports.grpc_asr);
  await waitServing(grpcPort.health, "sawt.asr.v1.SpeechRecognition");
});

afterAll(async () => {
  grpcPort?.close();
  await sawt?.stop();
  models?.remove();
});

const post = (path: string, fields: Record<string, string> = {}) =>
  fetch(`${sawt.baseUrl}${path}`, {
    method: "POST",
    headers: { "X-API-Key": key },
    body: uploadForm({ name: "word.wav", data: readFileSync(wav) }, fields),
  });

describe("one word spoken with short pauses", () => {
  test("is 3.2 s long with a pause the energy splitter ends speech at after every letter", async () => {
    expect(slowWord().length / 16000).toBeCloseTo(3.2, 2);
    expect((await segmentSpeech(slowWord(), createEnergyDetector())).length).toBe(WORD.length);
  });

  test.each(["/v1/asr/audio/transcriptions", "/v1/asr/transcribe"])(
    "does come back as one word from REST %s",
    async (path) => {
      const res = await post(path, { response_format: "verbose_json" });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { text: string; segments: { text: string; start: number; end: number }[] };
      expect(body.text).toBe(WORD);
      expect(body.segments.map((s) => s.text)).toEqual([WORD]);
    },
  );

  test("does come back as one word through the official openai SDK", async () => {
    const client = new OpenAI({ apiKey: key, baseURL: `${sawt.baseUrl}/v1/asr`, maxRetries: 0 });
    const file = await toFile(readFileSync(wav), "word.wav");
    const transcription = await client.audio.transcriptions.create({ file, model: "whisper-1" });
    expect(transcription.text).toBe(WORD);
  });

  test("does come back as one word from sawt asr", async () => {
    const env = {
      SAWT_MODELS_DIR: models.dir,
      SAWT_DATA_DIR: join(models.dir, ".cli-data"),
      SAWT_ASR_PACK: "tone-ctc",
    };
    const { stdout, code } = await runCli(["asr", wav, "--format", "text"], { env });
    expect([code, stdout]).toEqual([0, `${WORD}\n`]);
  });

  test("does come back as one word from gRPC Recognize, as PCM and as a wav container", async () => {
    const pcm = Buffer.from(int16ToBytes(floatToInt16(slowWord())));
    const raw = await unary(
      grpcPort.asr,
      "Recognize",
      { config: { encoding: "LINEAR_PCM", sample_rate_hz: 16000 }, audio: pcm },
      bearer(key),
    );
    expect(raw.response?.text).toBe(WORD);
    const contained = await unary(
      grpcPort.asr,
      "Recognize",
      { config: { container: "wav" }, audio: readFileSync(wav) },
      bearer(key),
    );
    expect(contained.response?.text).toBe(WORD);
    expect(contained.response?.model).toBe("tone-ctc");
  });
});

describe("OpenAI transcription options", () => {
  const twoWords = () =>
    concat(silence(0.3), letterToneAudio("سلام عليكم"), silence(1), letterToneAudio("ورحمة"), silence(0.3));

  test("does give monotonic word times through the openai SDK when timestamp_granularities has word", async () => {
    const client = new OpenAI({ apiKey: key, baseURL: `${sawt.baseUrl}/v1/asr`, maxRetries: 0 });
    const path = encodeFile(twoWords(), 16000, join(models.dir, "words.wav"), ENCODINGS.wav!);
    const file = await toFile(readFileSync(path), "words.wav");
    const verbose = await client.audio.transcriptions.create({
      file,
      model: "whisper-1",
      response_format: "verbose_json",
      timestamp_granularities: ["word", "segment"],
    });
    expect(verbose.text).toBe("سلام عليكم ورحمة");
    expect(verbose.words?.map((w) => w.word)).toEqual(["سلام", "عليكم", "ورحمة"]);
    let previous = 0;
    for (const word of verbose.words ?? []) {
      expect(word.start).toBeGreaterThanOrEqual(previous);
      expect(word.end).toBeGreaterThan(word.start);
      previous = word.end;
    }
    // The 1 s pause ends an utterance: two segments, each word inside its own.
    expect(verbose.segments?.map((s) => s.text)).toEqual(["سلام عليكم", "ورحمة"]);
    const [first, second] = verbose.segments!;
    expect(verbose.words![1]!.end).toBeLessThanOrEqual(first!.end);
    expect(verbose.words![2]!.start).toBeGreaterThanOrEqual(second!.start);
  });

  test("does leave segments out when only word granularity is asked for", async () => {
    const form = uploadForm({ name: "word.wav", data: readFileSync(wav) }, { response_format: "verbose_json" });
    form.append("timestamp_granularities[]", "word");
    const res = await fetch(`${sawt.baseUrl}/v1/asr/audio/transcriptions`, {
      method: "POST",
      headers: { "X-API-Key": key },
      body: form,
    });
    const body = (await res.json()) as Record<string, unknown>;
    expect(body.segments).toBeUndefined();
    expect(body.words).toEqual([{ word: WORD, start: expect.any(Number), end: expect.any(Number) }]);
  });

  test("does answer with the pack named by model, and the default for names it does not know", async () => {
    const named = await post("/v1/asr/audio/transcriptions", { model: "tone-ctc-b", response_format: "verbose_json" });
    expect(named.headers.get("x-asr-model")).toBe("tone-ctc-b");
    expect(((await named.json()) as { model: string }).model).toBe("tone-ctc-b");
    const unknown = await post("/v1/asr/audio/transcriptions", { model: "whisper-1" });
    expect(unknown.status).toBe(200);
    expect(unknown.headers.get("x-asr-model")).toBe("tone-ctc");
    expect(((await unknown.json()) as { text: string }).text).toBe(WORD);
  });

  test("does accept prompt and temperature and ignore them with a recogniser that takes no context", async () => {
    const res = await post("/v1/asr/transcribe", { prompt: "مرحبا بكم", temperature: "0.4" });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { text: string }).text).toBe(WORD);
  });

  test("does select the pack named in a gRPC Recognize config", async () => {
    const config = { container: "wav", model: "tone-ctc-b", prompt: "مرحبا", temperature: 0.2 };
    const outcome = await unary(grpcPort.asr, "Recognize", { config, audio: readFileSync(wav) }, bearer(key));
    expect([outcome.response?.model, outcome.response?.text]).toEqual(["tone-ctc-b", WORD]);
    const hot = await unary(
      grpcPort.asr,
      "Recognize",
      { config: { ...config, temperature: 3 }, audio: readFileSync(wav) },
      bearer(key),
    );
    expect(hot.error?.code).toBe(3);
  });

  test("does refuse a temperature outside 0..1 and an unknown granularity with 422", async () => {
    const hot = await post("/v1/asr/audio/transcriptions", { temperature: "1.5" });
    expect(hot.status).toBe(422);
    expect(((await hot.json()) as { errors: { field: string }[] }).errors[0]!.field).toBe("form.temperature");
    const form = uploadForm({ name: "word.wav", data: readFileSync(wav) });
    form.append("timestamp_granularities[]", "letter");
    const odd = await fetch(`${sawt.baseUrl}/v1/asr/audio/transcriptions`, {
      method: "POST",
      headers: { "X-API-Key": key },
      body: form,
    });
    expect(odd.status).toBe(422);
  });

  test("does pass model and word granularity through sawt asr", async () => {
    const env = {
      SAWT_MODELS_DIR: models.dir,
      SAWT_DATA_DIR: join(models.dir, ".cli-data"),
      SAWT_ASR_PACK: "tone-ctc",
    };
    const { stdout, code } = await runCli(
      ["asr", wav, "--format", "verbose_json", "--model", "tone-ctc-b", "--timestamp-granularities", "word"],
      { env },
    );
    expect(code).toBe(0);
    const body = JSON.parse(stdout);
    expect([body.model, body.words.map((w: { word: string }) => w.word), body.segments]).toEqual([
      "tone-ctc-b",
      [WORD],
      undefined,
    ]);
  });
});
