/**
 * TextToSpeech over gRPC against the real server with a constructed tone voice installed as Yara:
 * the audio spells the ids Piper's rules give the text, so every byte is checkable, and REST is
 * the reference for validation texts, resolution and audio.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as grpc from "@grpc/grpc-js";
import { join } from "node:path";
import { prepareText } from "../../src/tts/frontend/index.ts";
import { writePiperPack } from "../support/models/tone-voice.ts";
import { startSawt, tempDir, type SawtProcess } from "../support/sawt.ts";
import { ARABIC_TEXT_SYMBOLS, decodeSentences, expectedIds, idMap, pcmToFloat, wavToFloat } from "../tts/support.ts";
import { bearer, clients, collect, unary, waitPortsServing } from "./client.ts";

const MAP = idMap(ARABIC_TEXT_SYMBOLS);
const INPUT = "مرحبا بكم. كيف حالك؟ شكرا لك.";
const dir = tempDir("sawt-grpc-tts-");
const models = join(dir.path, "models");
let sawt: SawtProcess;
let port: ReturnType<typeof clients>;
let key: string;

beforeAll(async () => {
  await writePiperPack(join(models, "yara"), {
    name: "ar_text",
    sampleRate: 16000,
    phonemeIdMap: MAP,
    phonemeType: "text",
  });
  sawt = await startSawt({ env: { SAWT_MODELS_DIR: models } });
  await waitPortsServing(sawt.ports, ["tts"]);
  port = clients(sawt.ports.grpc_tts);
  key = (await sawt.createKey({ name: "grpc-tts", rpm: 1000 })).key;
});

afterAll(async () => {
  port.close();
  await sawt.stop("SIGKILL");
  dir.remove();
});

/** The ids each sentence of INPUT-like text must spell. */
function expectedSentences(text: string): number[][] {
  return prepareText(text, "ar").map((s) => expectedIds(Array.from(s.text.normalize("NFD")), MAP));
}

/** REST's answer to the same speech request, as the reference. */
async function rest(body: Record<string, unknown>): Promise<Response> {
  return await fetch(`${sawt.baseUrl}/v1/tts/audio/speech`, {
    method: "POST",
    headers: { "x-api-key": key, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

/** The status of a SynthesizeOnline call. */
async function online(request: object): Promise<{ messages: any[]; error?: grpc.ServiceError }> {
  return await collect(port.tts.SynthesizeOnline(request, bearer(key)));
}

describe("grpc TTS validation", () => {
  const cases: Array<[string, object, string]> = [
    ["the text is empty", { text: "" }, "Text cannot be empty"],
    ["the text is only spaces", { text: "   " }, "Text cannot be empty"],
    [
      "the text is over 51,200 code points",
      { text: "ب".repeat(51_201) },
      "Text exceeds maximum length of 51,200 characters",
    ],
    [
      "the format is unknown",
      { text: "مرحبا", response_format: "ogg" },
      "Invalid format. Allowed: aac, flac, mp3, opus, pcm, wav",
    ],
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
    expect(outcome.error?.details).toStartWith("Request validation failed: sample_rate_hz: ");
  });
});

describe("grpc Synthesize", () => {
  test("does return audio spelling the text's ids, byte for byte what REST returns, when asked for wav", async () => {
    const outcome = await unary(
      port.tts,
      "Synthesize",
      { text: INPUT, response_format: "wav", dialect: "ar-hijazi" },
      bearer(key),
    );
    expect(outcome.error).toBeUndefined();
    const response = outcome.response;
    expect(response).toMatchObject({ content_type: "audio/wav", sample_rate_hz: 16000, response_format: "wav" });
    expect(response.resolution).toEqual({ voice: "Yara", dialect: "ar-hijazi", engine: "piper", fallback: "" });
    const { samples, sampleRate } = wavToFloat(new Uint8Array(response.audio));
    expect(decodeSentences(samples, sampleRate, 1).map((d) => d.ids)).toEqual(expectedSentences(INPUT));
    expect(response.duration_seconds).toBeCloseTo(samples.length / sampleRate, 3);
    // REST streams its WAV (sizes 0xFFFFFFFF in the header, issue #14); the samples are the same bytes.
    const reference = Buffer.from(
      await (await rest({ input: INPUT, response_format: "wav", dialect: "ar-hijazi" })).arrayBuffer(),
    );
    expect(reference.readUInt32LE(40)).toBe(0xffffffff);
    expect(Buffer.compare(reference.subarray(44), Buffer.from(response.audio).subarray(44))).toBe(0);
    expect(Buffer.compare(reference.subarray(8, 40), Buffer.from(response.audio).subarray(8, 40))).toBe(0);
  });

  test("does report the same fallback as REST's headers when the voice was removed or the dialect's pack is missing", async () => {
    for (const request of [{ voice: "Nouf" }, { dialect: "ar-egyptian" }, { voice: "Myriam" }]) {
      const outcome = await unary(
        port.tts,
        "Synthesize",
        { text: "مرحبا", response_format: "pcm", ...request },
        bearer(key),
      );
      const headers = (await rest({ input: "مرحبا", response_format: "pcm", ...request })).headers;
      expect(outcome.response.resolution).toEqual({
        voice: headers.get("x-tts-voice"),
        dialect: headers.get("x-tts-dialect"),
        engine: headers.get("x-tts-engine"),
        fallback: headers.get("x-tts-fallback") ?? "",
      });
      expect(outcome.response.resolution.fallback).not.toBe("");
    }
  });

  test("does encode every format with REST's content type when response_format names it", async () => {
    const magic: Record<string, string> = { mp3: "", opus: "OggS", flac: "fLaC", aac: "", wav: "RIFF", pcm: "" };
    for (const format of Object.keys(magic)) {
      const outcome = await unary(port.tts, "Synthesize", { text: "مرحبا", response_format: format }, bearer(key));
      const reference = await rest({ input: "مرحبا", response_format: format });
      expect([format, outcome.response.content_type, outcome.response.sample_rate_hz]).toEqual([
        format,
        reference.headers.get("content-type"),
        Number(reference.headers.get("x-sample-rate")),
      ]);
      expect(Buffer.from(outcome.response.audio).subarray(0, 4).toString("latin1")).toStartWith(magic[format]!);
      expect(outcome.response.audio.length).toBeGreaterThan(100);
    }
    expect((await unary(port.tts, "Synthesize", { text: "مرحبا" }, bearer(key))).response.content_type).toBe(
      "audio/mpeg",
    );
  });

  test("does resample the audio when sample_rate_hz asks for telephony rates", async () => {
    const outcome = await unary(
      port.tts,
      "Synthesize",
      { text: "مرحبا", response_format: "wav", sample_rate_hz: 8000 },
      bearer(key),
    );
    expect(outcome.response.sample_rate_hz).toBe(8000);
    expect(wavToFloat(new Uint8Array(outcome.response.audio)).sampleRate).toBe(8000);
  });
});

describe("grpc SynthesizeOnline", () => {
  test("does stream pcm that equals the unary pcm and spells each sentence when no format is given", async () => {
    const streamed = await online({ text: INPUT });
    expect(streamed.error).toBeUndefined();
    expect(streamed.messages[0].resolution).toEqual({
      voice: "Yara",
      dialect: "ar-najdi",
      engine: "piper",
      fallback: "",
    });
    expect(streamed.messages.slice(1).every((m) => m.resolution === null || m.resolution === undefined)).toBe(true);
    expect(
      streamed.messages.every(
        (m) => m.content_type === "audio/pcm" && m.sample_rate_hz === 16000 && m.audio.length <= 65536,
      ),
    ).toBe(true);
    const audio = Buffer.concat(streamed.messages.map((m) => m.audio));
    const unaryPcm = (await unary(port.tts, "Synthesize", { text: INPUT, response_format: "pcm" }, bearer(key)))
      .response.audio;
    expect(Buffer.compare(audio, unaryPcm)).toBe(0);
    expect(decodeSentences(pcmToFloat(new Uint8Array(audio)), 16000, 1).map((d) => d.ids)).toEqual(
      expectedSentences(INPUT),
    );
  });

  test("does split a long sentence into messages of at most 64 KiB when its audio is larger", async () => {
    const long = "مرحبا بكم في خدمة العملاء كيف يمكنني مساعدتك اليوم وشكرا لاتصالكم بنا";
    const streamed = await online({ text: long });
    expect(streamed.messages.length).toBeGreaterThan(1);
    expect(Math.max(...streamed.messages.map((m) => m.audio.length))).toBe(65536);
  });

  test("does stream one continuous Ogg Opus stream when opus is asked for", async () => {
    const streamed = await online({ text: INPUT, response_format: "opus" });
    expect(streamed.error).toBeUndefined();
    expect(streamed.messages[0]).toMatchObject({ content_type: "audio/ogg", sample_rate_hz: 48000 });
    const audio = Buffer.concat(streamed.messages.map((m) => m.audio));
    expect(audio.subarray(0, 4).toString("latin1")).toBe("OggS");
    const path = join(dir.path, "online.opus");
    await Bun.write(path, audio);
    const probe = Bun.spawnSync(["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", path]);
    const unaryPcm = (await unary(port.tts, "Synthesize", { text: INPUT, response_format: "pcm" }, bearer(key)))
      .response.audio;
    expect(Number(probe.stdout.toString())).toBeCloseTo(unaryPcm.length / 2 / 16000, 1);
  });
});

describe("grpc ListVoices", () => {
  test("does list the four built-in voices with the engine serving each when no voice was cloned", async () => {
    const outcome = await unary(port.tts, "ListVoices", {}, bearer(key));
    expect(outcome.error).toBeUndefined();
    const voices = outcome.response.voices;
    expect(voices.map((v: { voice_id: string }) => v.voice_id)).toEqual(["Yara", "Sherine", "Myriam", "Yara_en"]);
    expect(voices[0]).toEqual({
      voice_id: "Yara",
      name: "Yara",
      type: "builtin",
      language: "ar",
      dialects: ["ar-najdi", "ar-hijazi", "ar-qassimi"],
      engine: "piper",
      status: "ready",
    });
    expect(voices[3]).toMatchObject({ language: "en", dialects: [], engine: "espeak-ng" });
  });

  test("does list the same voices as GET /v1/tts/voices when asked with the same key", async () => {
    const rest = (await (await fetch(`${sawt.baseUrl}/v1/tts/voices`, { headers: { "x-api-key": key } })).json()) as {
      voices: Array<Record<string, unknown>>;
    };
    const grpcVoices = (await unary(port.tts, "ListVoices", {}, bearer(key))).response.voices;
    expect(grpcVoices).toEqual(rest.voices.map((v) => ({ status: "", ...v })));
  });
});
