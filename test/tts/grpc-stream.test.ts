/**
 * gRPC's share of issue 40 against the real server: SynthesizeOnline reports SSML marks where their
 * audio is, and StreamSynthesize takes text in pieces in named contexts (flush, clear, close),
 * answers each context's audio as REST speaks it, and refuses a bad message with a context error
 * while the call goes on. The stream counts one request of the key's limit per context.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type * as grpc from "@grpc/grpc-js";
import { join } from "node:path";
import { bearer, clients, collect, waitPortsServing } from "../grpc/client.ts";
import { postSpeech } from "../support/http-helpers.ts";
import { writePiperPack } from "../support/models/tone-voice.ts";
import { startSawt, tempDir, until, waitForStatus, type SawtProcess } from "../support/sawt.ts";
import { ARABIC_TEXT_SYMBOLS, idMap, pcmToFloat } from "./support.ts";

const TEXT = "مرحبا بكم في خدمة العملاء. كيف يمكنني مساعدتك اليوم؟ شكرا لك.";

describe("gRPC streaming speech", () => {
  const dir = tempDir("sawt-grpc-stream-");
  let sawt: SawtProcess;
  let key: string;
  let port: ReturnType<typeof clients>;
  beforeAll(async () => {
    await writePiperPack(join(dir.path, "models", "yara"), {
      name: "ar_text",
      sampleRate: 16000,
      phonemeIdMap: idMap(ARABIC_TEXT_SYMBOLS),
      phonemeType: "text",
    });
    sawt = await startSawt({ env: { SAWT_MODELS_DIR: join(dir.path, "models") } });
    await waitForStatus(`${sawt.baseUrl}/v1/tts/health`);
    await waitPortsServing(sawt.ports, ["tts"]);
    port = clients(sawt.ports.grpc_tts);
    ({ key } = await sawt.createKey({ name: "grpc-stream", rpm: 1000 }));
  });
  afterAll(async () => {
    port.close();
    await sawt.stop();
    dir.remove();
  });

  test("does send SynthesizeOnline's marks at the first sentence's audio end and at 0", async () => {
    const text = '<speak><mark name="start"/>مرحبا بكم. <mark name="next"/>شكرا لك.</speak>';
    const { messages, error } = await collect(port.tts.SynthesizeOnline({ text }, bearer(key)));
    expect(error).toBeUndefined();
    expect(messages[0].resolution).toMatchObject({ voice: "Yara", engine: "piper" });
    const audio = Buffer.concat(messages.map((m) => m.audio as Buffer));
    const samples = pcmToFloat(new Uint8Array(audio));
    const firstEnd = samples.findIndex((_, i) => samples.subarray(i, i + 1600).every((x) => x === 0));
    const marks = messages.flatMap((m, i) =>
      (m.marks as Array<{ name: string; audio_ms: number }>).map((k) => ({ ...k, i })),
    );
    expect(marks.map((m) => m.name)).toEqual(["start", "next"]);
    expect(marks[0]!.audio_ms).toBe(0);
    expect(Math.abs(marks[1]!.audio_ms - (firstEnd / 16000) * 1000)).toBeLessThanOrEqual(20);
    // In a message of its own, after every byte of the first sentence.
    const before = messages.slice(0, marks[1]!.i).reduce((n, m) => n + (m.audio as Buffer).byteLength, 0);
    expect(messages[marks[1]!.i].audio.byteLength).toBe(0);
    expect(before / 2).toBeGreaterThanOrEqual(firstEnd);
  });

  test("does speak StreamSynthesize's text pieces per context as REST speaks the whole text", async () => {
    const call = port.tts.StreamSynthesize(bearer(key)) as grpc.ClientDuplexStream<unknown, any>;
    const outcome = collect(call);
    call.write({ context: "b", settings: { sample_rate_hz: 8000, encoding: "MULAW" } });
    for (const piece of TEXT.split(/(?= )/u)) {
      call.write({ context: "a", text: piece });
      call.write({ context: "b", text: piece });
    }
    call.write({ context: "a", flush: true, close: true });
    call.end();
    const { messages, error } = await outcome;
    expect(error).toBeUndefined();
    const started = messages.filter((m) => m.event === "started");
    expect(started.map((m) => [m.context, m.started.sample_rate_hz, m.started.content_type])).toEqual([
      ["b", 8000, "audio/pcmu"],
      ["a", 16000, "audio/pcm"],
    ]);
    expect(messages.filter((m) => m.event === "flushed").map((m) => m.context)).toEqual(["a"]);
    for (const [context, body] of [
      ["a", { response_format: "pcm" }],
      ["b", { response_format: "pcm", sample_rate: 8000, encoding: "pcm_mulaw" }],
    ] as const) {
      const rest = Buffer.from(await (await postSpeech(sawt.baseUrl, key, { input: TEXT, ...body })).arrayBuffer());
      const audio = Buffer.concat(
        messages.filter((m) => m.context === context && m.event === "audio").map((m) => m.audio),
      );
      expect(audio.equals(rest)).toBe(true);
      const last = messages.filter((m) => m.context === context).at(-1);
      expect([last.event, Number(last.end.bytes)]).toEqual(["end", rest.byteLength]);
    }
  });

  test("does clear one context, say how much it sent, and answer bad messages with context errors", async () => {
    const call = port.tts.StreamSynthesize(bearer(key)) as grpc.ClientDuplexStream<unknown, any>;
    const messages: any[] = [];
    call.on("data", (m) => messages.push(m));
    const ended = new Promise<grpc.ServiceError | undefined>((resolve) => {
      call.on("error", resolve);
      call.on("end", () => resolve(undefined));
    });
    call.write({ context: "a", text: `${TEXT} ${TEXT}`, flush: true });
    await until(() => messages.some((m) => m.event === "audio"), "audio of context a");
    call.write({ context: "a", clear: true });
    call.write({ context: "a", settings: { voice: "Yara" } });
    call.write({ context: "z", flush: true });
    call.write({ context: "c", settings: { sample_rate_hz: 4000 } });
    call.end();
    expect(await ended).toBeUndefined();
    const cleared = messages.find((m) => m.event === "cleared");
    const sent = messages
      .slice(0, messages.indexOf(cleared))
      .filter((m) => m.event === "audio")
      .reduce((n, m) => n + m.audio.byteLength, 0);
    expect(Number(cleared.cleared.samples_sent)).toBe(sent / 2);
    expect(messages.slice(messages.indexOf(cleared)).filter((m) => m.event === "audio")).toEqual([]);
    const errors = messages.filter((m) => m.event === "error").map((m) => [m.context, m.error.code, m.error.details]);
    expect(errors).toEqual([
      ["a", 3, "Context a is already open"],
      ["z", 3, "Context z is not open"],
      ["c", 3, "Request validation failed: sample_rate_hz: Must be at least 8000"],
    ]);
  });
});
