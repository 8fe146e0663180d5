/**
 * Two-channel calls on the live doors and gRPC against the real server (tone CTC recogniser): the
 * realtime WebSocket with `channels: 2` (interleaved pcm16) labels every event by channel and
 * speaker; gRPC Recognize (interleaved LINEAR_PCM, or a stereo WAV with `channels: 2`) and
 * StreamingRecognize label segments and results; bad channel fields are refused.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as grpc from "@grpc/grpc-js";
import { join } from "node:path";
import { writeToneCtcPack } from "../support/models/ctc.ts";
import { startSawt, type SawtProcess } from "../support/sawt.ts";
import { bearer, clients, collect, unary, waitServing } from "../grpc/client.ts";
import { encodeChannels, interleavedPcm16, TURNS, twoChannelCall } from "./channels-support.ts";
import { ENCODINGS, modelsDir } from "./support.ts";
import { connect } from "./ws-client.ts";

let models: ReturnType<typeof modelsDir>;
let sawt: SawtProcess;
let port: ReturnType<typeof clients>;
let key: string;
const pcm = Buffer.from(interleavedPcm16(twoChannelCall(16000)));

const SPEAKERS = ["agent", "customer"];
const expected = TURNS.map((turn) => [SPEAKERS[turn.channel], turn.channel, turn.text]);

beforeAll(async () => {
  models = modelsDir();
  await writeToneCtcPack(join(models.dir, "tone-ctc"));
  sawt = await startSawt({ env: { SAWT_MODELS_DIR: models.dir, SAWT_STREAMING_PARTIAL_INTERVAL_MS: "300" } });
  port = clients(sawt.ports.grpc_asr);
  await waitServing(port.health, "sawt.asr.v1.SpeechRecognition");
  key = (await sawt.createKey({ name: "channels-live", rpm: 10_000 })).key;
});

afterAll(async () => {
  port?.close();
  await sawt?.stop("SIGKILL");
  models?.remove();
});

describe("realtime door with channels: 2", () => {
  test("does label each channel's events with its channel and speaker, completed in time order", async () => {
    const client = await connect(`${sawt.baseUrl.replace(/^http/, "ws")}/v1/realtime?intent=transcription`, {
      headers: { authorization: `Bearer ${key}` },
    });
    await client.next("session.created");
    client.sendJson({
      type: "session.update",
      session: {
        type: "transcription",
        channels: 2,
        speakers: SPEAKERS,
        audio: { input: { format: { type: "audio/pcm", rate: 16000 } } },
      },
    });
    const updated = await client.next("session.updated");
    expect(updated.session).toMatchObject({ channels: 2, speakers: SPEAKERS });
    const chunk = 16 * 20 * 2 * 2; // 20 ms of 16 kHz 16-bit stereo
    for (let at = 0; at < pcm.length; at += chunk) {
      client.sendJson({ type: "input_audio_buffer.append", audio: pcm.subarray(at, at + chunk).toString("base64") });
      await Bun.sleep(2);
    }
    await client.next("conversation.item.input_audio_transcription.completed", TURNS.length);
    const events = client.events;
    expect(events.map((e) => e.type)).not.toContain("error");
    const completed = events.filter((e) => e.type === "conversation.item.input_audio_transcription.completed");
    const heard = completed.filter((e) => e.transcript !== "");
    expect(heard.map((e) => [e.speaker, e.channel, e.transcript])).toEqual(expected);
    const labelled = events.filter((e) => e.type.startsWith("input_audio_buffer.") || e.type.includes("transcription"));
    for (const event of labelled) expect(event.speaker).toBe(SPEAKERS[event.channel]);
    // Each channel's items are its own: a delta's item is completed on the same channel.
    for (const delta of events.filter((e) => e.type.endsWith("transcription.delta")))
      expect(completed.find((c) => c.item_id === delta.item_id)?.channel).toBe(delta.channel);
    client.ws.close();
  });

  test.each([
    ["channels 8", { channels: 8 }, "session.channels"],
    ["malformed speakers", { channels: 2, speakers: ["agent", "agent"] }, "session.speakers"],
  ])("does refuse %s with an error event naming the field", async (_name, fields, param) => {
    const client = await connect(`${sawt.baseUrl.replace(/^http/, "ws")}/v1/realtime?intent=transcription`, {
      headers: { authorization: `Bearer ${key}` },
    });
    await client.next("session.created");
    client.sendJson({ type: "session.update", session: { type: "transcription", ...fields } });
    const error = await client.next("error");
    expect(error.error.param).toBe(param);
    client.ws.close();
  });
});

describe("gRPC with two channels", () => {
  const segmentsOf = (response: any) => response.segments.map((s: any) => [s.speaker, s.channel, s.text]);

  test("does transcribe interleaved LINEAR_PCM per channel with Recognize", async () => {
    const outcome = await unary(
      port.asr,
      "Recognize",
      { config: { encoding: "LINEAR_PCM", sample_rate_hz: 16000, channels: 2, speakers: SPEAKERS }, audio: pcm },
      bearer(key),
    );
    expect(outcome.error).toBeUndefined();
    expect(segmentsOf(outcome.response)).toEqual(expected);
    for (const segment of outcome.response.segments)
      for (const word of segment.words)
        expect([word.speaker, word.channel]).toEqual([segment.speaker, segment.channel]);
  });

  test("does split a stereo WAV container when channels is 2", async () => {
    const wav = encodeChannels(twoChannelCall(16000), 16000, join(models.dir, "grpc.wav"), ENCODINGS.wav!);
    const outcome = await unary(
      port.asr,
      "Recognize",
      { config: { container: "wav", channels: 2 }, audio: Buffer.from(await Bun.file(wav).bytes()) },
      bearer(key),
    );
    expect(outcome.error).toBeUndefined();
    expect(segmentsOf(outcome.response)).toEqual(expected.map(([, channel, text]) => [`ch${channel}`, channel, text]));
  });

  test("does label StreamingRecognize finals by channel and speaker", async () => {
    const call = port.asr.StreamingRecognize(bearer(key)) as grpc.ClientDuplexStream<object, { results: any[] }>;
    const done = collect(call);
    call.write({
      streaming_config: {
        config: { encoding: "LINEAR_PCM", sample_rate_hz: 16000, channels: 2, speakers: SPEAKERS },
        interim_results: false,
      },
    });
    for (let at = 0; at < pcm.length; at += 6400) call.write({ audio_content: pcm.subarray(at, at + 6400) });
    call.end();
    const { messages, error } = await done;
    expect(error).toBeUndefined();
    const finals = messages.flatMap((m) => m.results);
    const byChannel = (channel: number) => finals.filter((r) => r.channel === channel).map((r) => r.transcript);
    expect(byChannel(0)).toEqual(["سلام عليكم", "مرحبا"]);
    expect(byChannel(1)).toEqual(["شكرا"]);
    for (const result of finals) expect(result.speaker).toBe(SPEAKERS[result.channel]);
  });

  test.each([
    ["8 interleaved channels", { encoding: "LINEAR_PCM", sample_rate_hz: 16000, channels: 8 }, "config.channels"],
    [
      "a speaker label with a space",
      { encoding: "LINEAR_PCM", sample_rate_hz: 16000, speakers: ["the agent"] },
      "config.speakers",
    ],
  ])("does refuse %s with INVALID_ARGUMENT", async (_name, config, field) => {
    const outcome = await unary(port.asr, "Recognize", { config, audio: pcm }, bearer(key));
    expect(outcome.error?.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(outcome.error?.details).toContain(field);
  });
});
