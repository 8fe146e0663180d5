/**
 * SpeechRecognition over gRPC against the real server with the constructed tone CTC recogniser:
 * unary recognition of raw PCM (any rate) and of every upload container gives the text REST
 * gives; streaming recognition sends interim then final results whose finals equal the unary
 * result for the same audio, whatever the chunking; stream misuse maps to INVALID_ARGUMENT.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as grpc from "@grpc/grpc-js";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { UPLOAD_EXTENSIONS } from "../../src/asr/types.ts";
import { floatToInt16, int16ToBytes } from "../../src/audio/wav.ts";
import { concat, encodeFile, ENCODINGS, modelsDir, silence } from "../asr/support.ts";
import { leftoverUploads, uploadForm } from "../rest/support.ts";
import { letterToneAudio, writeToneCtcPack } from "../support/models/ctc.ts";
import { startSawt, until, type SawtProcess } from "../support/sawt.ts";
import { bearer, clients, collect, unary, waitServing } from "./client.ts";

const WORDS = ["سلام عليكم ورحمة", "الله"];
const TEXT = WORDS.join(" ");
/** Two utterances separated by a pause voice-activity detection ends the first one at. */
function recording(rate: number): Float32Array {
  return concat(
    silence(0.5, rate),
    letterToneAudio(WORDS[0]!, rate),
    silence(1, rate),
    letterToneAudio(WORDS[1]!, rate),
    silence(0.5, rate),
  );
}
const s16le = (samples: Float32Array) => Buffer.from(int16ToBytes(floatToInt16(samples)));

let models: ReturnType<typeof modelsDir>;
let sawt: SawtProcess;
let port: ReturnType<typeof clients>;
let key: string;

beforeAll(async () => {
  models = modelsDir();
  await writeToneCtcPack(join(models.dir, "tone-ctc"));
  sawt = await startSawt({ env: { SAWT_MODELS_DIR: models.dir } });
  port = clients(sawt.ports.grpc_asr);
  await waitServing(port.health, "sawt.asr.v1.SpeechRecognition");
  key = (await sawt.createKey({ name: "grpc-asr", rpm: 10_000 })).key;
});

afterAll(async () => {
  port?.close();
  await sawt?.stop("SIGKILL");
  models?.remove();
});

/** Streams `audio` (s16le) in chunks of `chunkBytes` after a LINEAR_PCM config; resolves with every response. */
async function stream(audio: Buffer, rate: number, chunkBytes: number, interim = true, options: grpc.CallOptions = {}) {
  const call = port.asr.StreamingRecognize(bearer(key), options) as grpc.ClientDuplexStream<object, { results: any[] }>;
  const done = collect(call);
  call.write({
    streaming_config: {
      config: { encoding: "LINEAR_PCM", sample_rate_hz: rate, language: "ar" },
      interim_results: interim,
    },
  });
  for (let offset = 0; offset < audio.length; offset += chunkBytes)
    call.write({ audio_content: audio.subarray(offset, offset + chunkBytes) });
  call.end();
  const { messages, error } = await done;
  return { results: messages.flatMap((m) => m.results), error };
}

describe("grpc Recognize", () => {
  test("does transcribe LINEAR_PCM at 16 kHz into the text and segments REST returns for the same audio", async () => {
    const audio = recording(16000);
    const outcome = await unary(
      port.asr,
      "Recognize",
      { config: { encoding: "LINEAR_PCM", sample_rate_hz: 16000 }, audio: s16le(audio) },
      bearer(key),
    );
    expect(outcome.error).toBeUndefined();
    expect(outcome.response).toMatchObject({ text: TEXT, language: "ar", dialect: "" });
    expect(outcome.response.duration_seconds).toBeCloseTo(audio.length / 16000, 2);
    expect(outcome.response.segments.map((s: { text: string }) => s.text)).toEqual(WORDS);
    const wav = readFileSync(encodeFile(audio, 16000, join(models.dir, "same.wav"), ENCODINGS.wav!));
    const rest = await fetch(`${sawt.baseUrl}/v1/asr/audio/transcriptions`, {
      method: "POST",
      headers: { "x-api-key": key },
      body: uploadForm({ name: "same.wav", data: wav }, { response_format: "verbose_json" }),
    });
    const body = (await rest.json()) as { text: string; segments: Array<{ start: number; end: number; text: string }> };
    expect(body.text).toBe(outcome.response.text);
    expect(
      outcome.response.segments.map((s: any) =>
        [s.text, s.start, s.end].map((x) => (typeof x === "number" ? Math.round(x * 100) : x)),
      ),
    ).toEqual(
      body.segments.map((s) => [s.text, s.start, s.end].map((x) => (typeof x === "number" ? Math.round(x * 100) : x))),
    );
  });

  test("does resample LINEAR_PCM to 16 kHz when it is sent at 22.05 or 48 kHz", async () => {
    for (const rate of [22050, 48000]) {
      const outcome = await unary(
        port.asr,
        "Recognize",
        { config: { encoding: "LINEAR_PCM", sample_rate_hz: rate }, audio: s16le(recording(rate)) },
        bearer(key),
      );
      expect([rate, outcome.response?.text]).toEqual([rate, TEXT]);
    }
  });

  test.each([...UPLOAD_EXTENSIONS])(
    "does transcribe the recording sent as a .%s container and leave no file behind",
    async (extension) => {
      const file = readFileSync(
        encodeFile(recording(22050), 22050, join(models.dir, `call.${extension}`), ENCODINGS[extension]!),
      );
      const outcome = await unary(
        port.asr,
        "Recognize",
        { config: { container: extension }, audio: file },
        bearer(key),
      );
      expect(outcome.response?.text).toBe(TEXT);
      expect(leftoverUploads(sawt.dataDir)).toEqual([]);
    },
  );

  test("does answer INVALID_ARGUMENT with REST's 'Couldn't transcribe the file' when the container holds garbage", async () => {
    const outcome = await unary(
      port.asr,
      "Recognize",
      { config: { container: "mp3" }, audio: Buffer.from("this is not audio at all".repeat(50)) },
      bearer(key),
    );
    expect(outcome.error?.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(outcome.error?.details).toStartWith("Couldn't transcribe the file: ");
    expect(leftoverUploads(sawt.dataDir)).toEqual([]);
  });
});

describe("grpc StreamingRecognize", () => {
  test("does send interim results, then finals that equal the unary result for the same audio", async () => {
    const pcm = s16le(recording(16000));
    const { results, error } = await stream(pcm, 16000, 3200);
    expect(error).toBeUndefined();
    const unaryResult = (
      await unary(
        port.asr,
        "Recognize",
        { config: { encoding: "LINEAR_PCM", sample_rate_hz: 16000 }, audio: pcm },
        bearer(key),
      )
    ).response;
    const finals = results.filter((r) => r.is_final);
    expect(finals.map((r) => r.transcript).join(" ")).toBe(unaryResult.text);
    expect(finals.map((r) => [r.transcript, r.start_time, r.end_time])).toEqual(
      unaryResult.segments.map((s: any) => [s.text, s.start, s.end]),
    );
    const firstFinal = results.indexOf(finals[0]);
    const interims = results.slice(0, firstFinal);
    expect(interims.length).toBeGreaterThan(0);
    for (const interim of interims) {
      expect(interim.is_final).toBe(false);
      expect(finals[0].transcript.startsWith(interim.transcript.slice(0, -1))).toBe(true);
    }
  });

  test("does send finals only when interim results are not asked for", async () => {
    const { results } = await stream(s16le(recording(16000)), 16000, 3200, false);
    expect(results.map((r) => [r.transcript, r.is_final])).toEqual(WORDS.map((w) => [w, true]));
  });

  test("does give the same finals whatever the chunking, odd byte counts included", async () => {
    const pcm = s16le(recording(16000));
    const finals = async (size: number) =>
      (await stream(pcm, 16000, size)).results
        .filter((r) => r.is_final)
        .map((r) => `${r.transcript}@${r.start_time}-${r.end_time}`);
    const reference = await finals(32000);
    expect(reference.length).toBe(2);
    expect(await finals(333)).toEqual(reference);
    expect(await finals(131072)).toEqual(reference);
  });

  test("does resample a stream sent at 48 kHz and recognise the same words", async () => {
    const { results } = await stream(s16le(recording(48000)), 48000, 9600, false);
    expect(results.map((r) => r.transcript)).toEqual(WORDS);
  });

  test("does fail INVALID_ARGUMENT when a chunk is larger than 131,072 bytes", async () => {
    const { error } = await stream(Buffer.alloc(131074), 16000, 131074);
    expect([error?.code, error?.details]).toEqual([grpc.status.INVALID_ARGUMENT, "audio_content exceeds 131072 bytes"]);
  });

  test("does fail INVALID_ARGUMENT when a second config arrives mid-stream", async () => {
    const call = port.asr.StreamingRecognize(bearer(key)) as grpc.ClientDuplexStream<object, unknown>;
    const done = collect(call);
    call.write({ streaming_config: { config: { encoding: "LINEAR_PCM", sample_rate_hz: 16000 } } });
    call.write({ audio_content: Buffer.alloc(3200) });
    call.write({ streaming_config: { config: { encoding: "LINEAR_PCM", sample_rate_hz: 16000 } } });
    call.end();
    const { error } = await done;
    expect([error?.code, error?.details]).toEqual([
      grpc.status.INVALID_ARGUMENT,
      "Only the first message may carry streaming_config",
    ]);
  });

  test("does stop recognising when the client cancels mid-stream", async () => {
    const finishedBefore = sawt.logs.filter((l) => l.includes('"method":"asr.StreamingRecognize"')).length;
    const call = port.asr.StreamingRecognize(bearer(key)) as grpc.ClientDuplexStream<object, unknown>;
    const done = collect(call);
    call.write({
      streaming_config: { config: { encoding: "LINEAR_PCM", sample_rate_hz: 16000 }, interim_results: true },
    });
    call.write({ audio_content: s16le(recording(16000)).subarray(0, 64000) });
    await Bun.sleep(100);
    call.cancel();
    expect((await done).error?.code).toBe(grpc.status.CANCELLED);
    // The server ends the call (a cancel may reach it as the end of the input, then it finishes
    // the audio it has); a handler still waiting for audio would never log.
    const finished = () => sawt.logs.filter((l) => l.includes('"method":"asr.StreamingRecognize"')).length;
    await until(() => finished() !== finishedBefore, "the cancelled call's log line", { everyMs: 50 });
    expect(finished()).toBe(finishedBefore + 1);
    expect(sawt.logs.filter((l) => l.includes('"method":"asr.StreamingRecognize"')).at(-1)).toContain(
      '"code":"CANCELLED"',
    );
  });
});
