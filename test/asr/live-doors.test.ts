/**
 * Every live door runs on the one live core (issue 31): a test-only door added with one adapter
 * folder (test/support/doors/probe/) and one registration line receives, for the same audio, the
 * same events the realtime WebSocket translates; and gRPC StreamingRecognize's finals carry the
 * call's dialect decided by the file path's rule over the speech heard so far, not the first
 * piece's.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as grpc from "@grpc/grpc-js";
import { join } from "node:path";
import { floatToInt16, int16ToBytes } from "../../src/audio/wav.ts";
import type { LiveEvent } from "../../src/core/asr.ts";
import { bearer, clients, collect, waitServing } from "../grpc/client.ts";
import { probeDoor } from "../support/doors/probe/http.ts";
import { startInProcess, type InProcessSawt } from "../support/in-process.ts";
import { letterToneAudio, writeToneCtcPack } from "../support/models/ctc.ts";
import { writeDialectPack } from "../support/models/dialect.ts";
import { concat, modelsDir, silence, sine } from "./support.ts";
import { realtimeSession } from "./ws-client.ts";

const RATE = 24000;
let models: ReturnType<typeof modelsDir>;
let sawt: InProcessSawt;
let key: string;

beforeAll(async () => {
  models = modelsDir();
  await writeToneCtcPack(join(models.dir, "tone-ctc"));
  await writeDialectPack(join(models.dir, "dialect-id"), {
    labels: ["ar-najdi", "ar-egyptian"],
    bands: [
      [0, 1000],
      [2000, 4000],
    ],
  });
  sawt = await startInProcess(
    { SAWT_MODELS_DIR: models.dir, SAWT_ASR_PACK: "tone-ctc", SAWT_STREAMING_PARTIAL_INTERVAL_MS: "0" },
    { plugins: [probeDoor] }, // the one registration line of the test door
  );
  await sawt.server.enginesSettled;
  key = sawt.server.ctx.keys.create({ name: "live-doors", rpm: 10_000 }).key;
});

afterAll(async () => {
  await sawt?.close();
  models?.remove();
});

/** Two utterances: a short one the dialect model hears as Egyptian, a long one as Najdi. */
const call = (rate: number) =>
  concat(
    silence(0.6, rate),
    sine(3000, 0.6, rate),
    silence(1.2, rate),
    letterToneAudio("سلام عليكم ورحمة الله", rate),
    silence(1.2, rate),
  );

/** The live events as the realtime door shows them, in the event model's terms. */
function fromRealtime(events: any[]) {
  return events.flatMap((e) => {
    if (e.type === "input_audio_buffer.speech_started") return [["speech_started", e.audio_start_ms]];
    if (e.type === "input_audio_buffer.speech_stopped") return [["speech_stopped", e.audio_end_ms]];
    if (e.type === "input_audio_buffer.committed") return [["committed"]];
    if (e.type === "conversation.item.input_audio_transcription.completed")
      return [["final", e.transcript, e.start, e.end, e.dialect]];
    return [];
  });
}

function fromModel(events: LiveEvent[]) {
  return events.flatMap((e) => {
    if (e.type === "speech_started") return [["speech_started", e.audioStartMs]];
    if (e.type === "speech_stopped") return [["speech_stopped", e.audioEndMs]];
    if (e.type === "committed") return [["committed"]];
    if (e.type === "final") return [["final", e.text, e.start, e.end, e.dialect]];
    return [];
  });
}

describe("live doors on the one live core", () => {
  test("does give a door registered from test code the same events as the realtime door for the same audio", async () => {
    const bytes = int16ToBytes(floatToInt16(call(RATE)));
    const probed = await fetch(`${sawt.baseUrl}/test/probe/live?rate=${RATE}`, {
      method: "POST",
      headers: { "x-api-key": key },
      body: bytes,
    });
    expect(probed.status).toBe(200);
    const model = fromModel((await probed.json()) as LiveEvent[]);
    expect(model.filter((e) => e[0] === "final").length).toBe(2);

    const client = await realtimeSession(sawt.baseUrl, key, {
      type: "transcription",
      audio: {
        input: {
          format: { type: "audio/pcm", rate: RATE },
          turn_detection: { type: "server_vad", threshold: 0.5, prefix_padding_ms: 300, silence_duration_ms: 500 },
        },
      },
    });
    const chunk = (RATE * 2 * 20) / 1000;
    for (let at = 0; at < bytes.length; at += chunk)
      client.sendJson({
        type: "input_audio_buffer.append",
        audio: Buffer.from(bytes.subarray(at, at + chunk)).toString("base64"),
      });
    await client.next("conversation.item.input_audio_transcription.completed", 2);
    client.ws.close();
    expect(fromRealtime(client.events)).toEqual(model);
  });

  test("does label gRPC finals with the call's dialect by the file rule, not the first piece's", async () => {
    const port = clients(sawt.server.ports.grpc_asr);
    await waitServing(port.health, "sawt.asr.v1.SpeechRecognition");
    const audio = call(16000);
    const stream = port.asr.StreamingRecognize(bearer(key)) as grpc.ClientDuplexStream<object, { results: any[] }>;
    const done = collect(stream);
    stream.write({
      streaming_config: {
        config: { encoding: "LINEAR_PCM", sample_rate_hz: 16000, language: "ar" },
        interim_results: false,
      },
    });
    const pcm = int16ToBytes(floatToInt16(audio));
    for (let at = 0; at < pcm.length; at += 3200) stream.write({ audio_content: pcm.subarray(at, at + 3200) });
    stream.end();
    const { messages, error } = await done;
    expect(error).toBeUndefined();
    const finals = messages.flatMap((m) => m.results).filter((r) => r.is_final);
    const asr = sawt.server.ctx.asr!;
    // The file rule on the whole call, and on the call cut after its first utterance.
    const whole = await asr.transcribeSamples(audio);
    const firstOnly = await asr.transcribeSamples(audio.slice(0, Math.round(2.4 * 16000)));
    expect([firstOnly.dialect, whole.dialect]).toEqual(["ar-egyptian", "ar-najdi"]);
    // Each final carries the file rule over the call so far: the first piece alone says Egyptian,
    // the call (the first piece and the longer second) says Najdi — which the second final carries.
    expect(finals.map((f) => f.dialect)).toEqual([firstOnly.dialect, whole.dialect]);
    expect(finals.map((f) => f.transcript).join(" ")).toBe(whole.text);
  });
});
