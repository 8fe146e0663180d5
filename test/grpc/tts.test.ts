import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as grpc from "@grpc/grpc-js";
import { startSawt, type SawtProcess } from "../support/sawt.ts";
import { bearer, clients, collect, unary, waitBothServing } from "./client.ts";

let sawt: SawtProcess;
let port: ReturnType<typeof clients>;
let key: string;

beforeAll(async () => {
  sawt = await startSawt();
  await waitBothServing(sawt.ports);
  port = clients(sawt.ports.grpc_tts);
  key = (await sawt.createKey({ name: "grpc-tts" })).key;
});

afterAll(async () => {
  port.close();
  await sawt.stop("SIGKILL");
});

/** The status of a SynthesizeOnline call. */
async function online(request: object): Promise<{ messages: any[]; error?: grpc.ServiceError }> {
  return await collect(port.tts.SynthesizeOnline(request, bearer(key)));
}

describe("grpc TTS validation", () => {
  const cases: Array<[string, object, string]> = [
    ["the text is empty", { text: "" }, "Text cannot be empty"],
    ["the text is only spaces", { text: "   " }, "Text cannot be empty"],
    ["the text is over 51,200 code points", { text: "ب".repeat(51_201) }, "Text exceeds maximum length of 51,200 characters"],
    ["the format is unknown", { text: "مرحبا", response_format: "ogg" }, "Invalid format. Allowed: aac, flac, mp3, opus, pcm, wav"],
    ["the text holds a script tag", { text: "<script>alert(1)</script>" }, "Text contains invalid content"],
    ["the text holds template syntax", { text: "مرحبا {{ user }}" }, "Text contains invalid content"],
  ];
  for (const [when, request, details] of cases) {
    test(`does answer INVALID_ARGUMENT "${details}" on both synthesis methods when ${when}`, async () => {
      const outcome = await unary(port.tts, "Synthesize", request, bearer(key));
      expect([outcome.error?.code, outcome.error?.details]).toEqual([grpc.status.INVALID_ARGUMENT, details]);
      const streamed = await online(request);
      expect([streamed.error?.code, streamed.error?.details]).toEqual([grpc.status.INVALID_ARGUMENT, details]);
    });
  }

  test("does answer INVALID_ARGUMENT naming the field when sample_rate_hz is out of range", async () => {
    const outcome = await unary(port.tts, "Synthesize", { text: "مرحبا", sample_rate_hz: 4000 }, bearer(key));
    expect(outcome.error?.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(outcome.error?.details).toStartWith("Request validation failed: body.sample_rate: ");
  });

  test("does refuse an encoded format on SynthesizeOnline when the stream can only carry pcm", async () => {
    const streamed = await online({ text: "مرحبا", response_format: "mp3" });
    expect([streamed.error?.code, streamed.error?.details]).toEqual([grpc.status.INVALID_ARGUMENT, "SynthesizeOnline streams pcm only; use Synthesize for other formats"]);
  });
});

describe("grpc TTS without an engine", () => {
  test("does answer UNAVAILABLE with retry-after when no TTS engine is wired", async () => {
    const outcome = await unary(port.tts, "Synthesize", { text: "مرحبا" }, bearer(key));
    expect([outcome.error?.code, outcome.error?.details]).toEqual([grpc.status.UNAVAILABLE, "TTS engine not initialized"]);
    expect(outcome.error?.metadata.get("retry-after")).toEqual(["5"]);
    const streamed = await online({ text: "مرحبا" });
    expect(streamed.error?.code).toBe(grpc.status.UNAVAILABLE);
  });
});

describe("grpc ListVoices", () => {
  test("does list the four built-in voices with their dialects when no engine or cloned voice exists", async () => {
    const outcome = await unary(port.tts, "ListVoices", {}, bearer(key));
    expect(outcome.error).toBeUndefined();
    const voices = outcome.response.voices;
    expect(voices.map((v: { voice_id: string }) => v.voice_id)).toEqual(["Yara", "Sherine", "Myriam", "Yara_en"]);
    expect(voices[0]).toMatchObject({ type: "builtin", language: "ar", dialects: ["ar-najdi", "ar-hijazi", "ar-qassimi"], status: "" });
    expect(voices[3]).toMatchObject({ language: "en", dialects: [] });
  });

  test("does list the same voices as GET /v1/tts/voices when asked with the same key", async () => {
    const rest = (await (await fetch(`${sawt.baseUrl}/v1/tts/voices`, { headers: { "x-api-key": key } })).json()) as { voices: Array<{ voice_id: string; type: string }> };
    const grpcVoices = (await unary(port.tts, "ListVoices", {}, bearer(key))).response.voices;
    expect(grpcVoices.map((v: { voice_id: string; type: string }) => [v.voice_id, v.type])).toEqual(rest.voices.map((v) => [v.voice_id, v.type]));
  });
});
