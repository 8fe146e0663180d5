/**
 * Phrase boosting on the other doors of the running service, on the constructed CTC pack where
 * «قلب» loses narrowly to «كلب»: gRPC `RecognitionConfig.hotwords` (Recognize and
 * StreamingRecognize), the realtime session's `transcription.hotwords` (a Sawt extension) and a
 * key's stored phrase list on a live call; bad entries are INVALID_ARGUMENT / an error event
 * naming the field.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type * as grpc from "@grpc/grpc-js";
import { join } from "node:path";
import { floatToInt16, int16ToBytes } from "../../src/audio/wav.ts";
import { bearer, clients, collect, unary, waitServing } from "../grpc/client.ts";
import { NEAR_MISS_GREEDY, NEAR_MISS_PHRASE, writeNearMissCtcPack } from "../support/models/near-miss.ts";
import { startSawt, type SawtProcess } from "../support/sawt.ts";
import { concat, modelsDir, silence, sine } from "./support.ts";
import { connect } from "./ws-client.ts";

let models: ReturnType<typeof modelsDir>;
let sawt: SawtProcess;
let port: ReturnType<typeof clients>;
let key: string;
const pcm = Buffer.from(int16ToBytes(floatToInt16(concat(silence(0.5), sine(440, 1), silence(1.2)))));

beforeAll(async () => {
  models = modelsDir();
  await writeNearMissCtcPack(join(models.dir, "near-ctc"));
  sawt = await startSawt({ env: { SAWT_MODELS_DIR: models.dir } });
  port = clients(sawt.ports.grpc_asr);
  await waitServing(port.health, "sawt.asr.v1.SpeechRecognition");
  key = (await sawt.createKey({ name: "boost-doors", rpm: 10_000 })).key;
});

afterAll(async () => {
  port?.close();
  await sawt?.stop("SIGKILL");
  models?.remove();
});

const config = (extra: object = {}) => ({ encoding: "LINEAR_PCM", sample_rate_hz: 16000, ...extra });
const recognize = (extra: object = {}) =>
  unary<{ text: string }>(port.asr, "Recognize", { config: config(extra), audio: pcm }, bearer(key));

async function streamed(extra: object): Promise<string[]> {
  const call = port.asr.StreamingRecognize(bearer(key)) as grpc.ClientDuplexStream<object, { results: any[] }>;
  const done = collect(call);
  call.write({ streaming_config: { config: config(extra), interim_results: false } });
  for (let at = 0; at < pcm.length; at += 3200) call.write({ audio_content: pcm.subarray(at, at + 3200) });
  call.end();
  const { messages, error } = await done;
  expect(error).toBeUndefined();
  return messages.flatMap((m) => m.results).map((r) => r.transcript);
}

describe("phrase boosting over gRPC", () => {
  test("does make RecognitionConfig.hotwords win in Recognize and StreamingRecognize", async () => {
    expect((await recognize()).response?.text).toBe(NEAR_MISS_GREEDY);
    expect((await recognize({ hotwords: [NEAR_MISS_PHRASE] })).response?.text).toBe(NEAR_MISS_PHRASE);
    expect((await recognize({ hotwords: ["سمع:4"] })).response?.text).toBe(NEAR_MISS_GREEDY);
    expect(await streamed({})).toEqual([NEAR_MISS_GREEDY]);
    expect(await streamed({ hotwords: [`${NEAR_MISS_PHRASE}:2`] })).toEqual([NEAR_MISS_PHRASE]);
  });

  test("does refuse 10,000 hotwords and a boost out of range with INVALID_ARGUMENT naming the field", async () => {
    const many = await recognize({ hotwords: Array.from({ length: 10_000 }, (_, i) => `w${i}`) });
    expect(many.error?.code).toBe(3);
    expect(many.error?.details).toContain("config.hotwords");
    const boost = await recognize({ hotwords: [NEAR_MISS_PHRASE], boost: 11 });
    expect(boost.error?.code).toBe(3);
    expect(boost.error?.details).toContain("config.boost");
  });
});

describe("phrase boosting on the realtime door", () => {
  async function session(transcription: object) {
    const client = await connect(`${sawt.baseUrl.replace(/^http/, "ws")}/v1/realtime?intent=transcription`, {
      headers: { authorization: `Bearer ${key}` },
    });
    await client.next("session.created");
    client.sendJson({
      type: "session.update",
      session: {
        type: "transcription",
        audio: { input: { format: { type: "audio/pcm", rate: 16000 }, transcription, turn_detection: null } },
      },
    });
    return client;
  }

  async function completed(transcription: object): Promise<string> {
    const client = await session(transcription);
    await client.next("session.updated");
    for (let at = 0; at < pcm.length; at += 640)
      client.sendJson({ type: "input_audio_buffer.append", audio: pcm.subarray(at, at + 640).toString("base64") });
    client.sendJson({ type: "input_audio_buffer.commit" });
    const done = await client.next("conversation.item.input_audio_transcription.completed");
    client.ws.close();
    return done.transcript;
  }

  test("does make the session's hotwords win, and the key's phrase list too", async () => {
    expect(await completed({ language: "ar" })).toBe(NEAR_MISS_GREEDY);
    expect(await completed({ hotwords: [NEAR_MISS_PHRASE], boost: 2 })).toBe(NEAR_MISS_PHRASE);
    const put = await fetch(`${sawt.baseUrl}/v1/asr/phrases`, {
      method: "PUT",
      headers: { "x-api-key": key, "content-type": "application/json" },
      body: JSON.stringify({ phrases: [{ phrase: NEAR_MISS_PHRASE }] }),
    });
    expect(put.status).toBe(200);
    expect(await completed({ language: "ar" })).toBe(NEAR_MISS_PHRASE);
    await fetch(`${sawt.baseUrl}/v1/asr/phrases`, { method: "DELETE", headers: { "x-api-key": key } });
  });

  test("does answer an ill-formed hotword with an error event naming its field", async () => {
    const client = await session({ hotwords: ["<script>"] });
    expect((await client.next("error")).error).toMatchObject({
      type: "invalid_request_error",
      param: "session.audio.input.transcription.hotwords",
    });
    client.ws.close();
  });
});
