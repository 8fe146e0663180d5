/**
 * gRPC messages drawn from a seed: unary Synthesize / Recognize / ListVoices with random fields
 * and keys, server-streamed SynthesizeOnline, StreamingRecognize with configs, audio in odd sizes
 * or before any config, and health checks of random services. Every call must end with a code
 * from the contract's set (never INTERNAL or UNKNOWN), details that leak nothing, and speech
 * methods must send an `x-request-id`.
 */
import * as grpc from "@grpc/grpc-js";
import { ALLOWED_GRPC_CODES, isNoAudio, leaks, type Secrets } from "./contract.ts";
import { NASTY_STRINGS, type Random } from "./random.ts";

/** The stubs a run uses (built by the suite from the server's own protos). */
export interface GrpcStubs {
  readonly tts: grpc.Client & Record<string, any>;
  readonly asr: grpc.Client & Record<string, any>;
  readonly health: grpc.Client & Record<string, any>;
}

/** What one call needs besides randomness. */
export interface GrpcFuzzInputs {
  readonly key: string;
  /** 16 kHz s16le PCM of speech-like audio. */
  readonly pcm: Uint8Array;
  /** A small WAV file. */
  readonly wav: Uint8Array;
}

function metadata(random: Random, key: string): grpc.Metadata {
  const m = new grpc.Metadata();
  const roll = random.next();
  if (roll < 0.75) m.set("authorization", `Bearer ${key}`);
  else if (roll < 0.82) m.set("x-api-key", key);
  else if (roll < 0.9) m.set("authorization", random.pick(["Bearer", `Bearer ${key}x`, "Basic a"]));
  if (random.chance(0.1)) m.set("x-request-id", random.pick(["ok-1", "bad id", "x".repeat(300)]));
  return m;
}

function synthesizeRequest(random: Random): Record<string, unknown> {
  const r: Record<string, unknown> = {
    text: random.chance(0.4) ? random.pick(NASTY_STRINGS) : random.text(random.int(0, 30)),
  };
  if (random.chance(0.3)) r.voice = random.pick(NASTY_STRINGS);
  if (random.chance(0.3)) r.dialect = random.pick(NASTY_STRINGS);
  r.response_format = random.pick(["pcm", "pcm", "wav", "wav", "mp3", "ulaw", "", "x"]);
  if (random.chance(0.2)) r.speed = random.pick([0.25, 1, 4, 10, -1, Number.NaN]);
  if (random.chance(0.2)) r.sample_rate_hz = random.pick([8000, 16000, 22050, 0, -1, 1 << 30]);
  return r;
}

function recognitionConfig(random: Random): Record<string, unknown> {
  const c: Record<string, unknown> = {};
  if (random.chance(0.6)) c.sample_rate_hz = random.pick([8000, 16000, 44100, 0, -8000, 1 << 30]);
  if (random.chance(0.5)) c.container = random.pick(["", "wav", "mp3", "flac", "exe", "../x", "WAV"]);
  if (random.chance(0.3)) c.language = random.pick(["ar", "en", "", "zz"]);
  return c;
}

/** Runs one drawn call; returns its status code and problems (none when it held the contract). */
export async function runGrpcCall(
  random: Random,
  stubs: GrpcStubs,
  inputs: GrpcFuzzInputs,
  secrets: Secrets,
): Promise<{ code: number; problems: string[] }> {
  const roll = random.next();
  const m = metadata(random, inputs.key);
  const deadline = { deadline: Date.now() + 20_000 };
  let outcome: { code: number; details: string; headers?: grpc.Metadata; speech: boolean };
  if (roll < 0.3) outcome = await unary(stubs.tts, "Synthesize", synthesizeRequest(random), m, deadline);
  else if (roll < 0.4) outcome = await serverStream(stubs.tts.SynthesizeOnline(synthesizeRequest(random), m, deadline));
  else if (roll < 0.5) outcome = await unary(stubs.tts, "ListVoices", {}, m, deadline);
  else if (roll < 0.75) {
    const audio = random.pick([
      inputs.wav,
      inputs.pcm.subarray(0, random.int(0, inputs.pcm.length)),
      random.bytes(random.int(0, 512)),
    ]);
    outcome = await unary(stubs.asr, "Recognize", { config: recognitionConfig(random), audio }, m, deadline);
  } else if (roll < 0.92) outcome = await streamingRecognize(random, stubs, inputs, m, deadline);
  else {
    const service = random.pick([
      "",
      "sawt.tts.v1.TextToSpeech",
      "sawt.asr.v1.SpeechRecognition",
      "nope",
      "x".repeat(100),
    ]);
    outcome = { ...(await unary(stubs.health, "Check", { service }, new grpc.Metadata(), deadline)), speech: false };
  }
  const problems: string[] = [];
  if (!ALLOWED_GRPC_CODES.has(outcome.code) && !isNoAudio(outcome.code, outcome.details))
    problems.push(`code ${outcome.code} (${outcome.details})`);
  for (const leak of leaks(outcome.details, secrets)) problems.push(`leak: ${leak}`);
  if (outcome.speech && outcome.headers && outcome.headers.get("x-request-id").length === 0)
    problems.push("no x-request-id");
  return { code: outcome.code, problems };
}

type Outcome = { code: number; details: string; headers?: grpc.Metadata; speech: boolean };

function unary(
  client: grpc.Client & Record<string, any>,
  method: string,
  request: unknown,
  m: grpc.Metadata,
  options: grpc.CallOptions,
): Promise<Outcome> {
  return new Promise((resolve) => {
    let headers: grpc.Metadata | undefined;
    const call = client[method](request, m, options, (error: grpc.ServiceError | null) =>
      resolve({ code: error?.code ?? 0, details: error?.details ?? "", headers, speech: true }),
    ) as grpc.ClientUnaryCall;
    call.on("metadata", (h: grpc.Metadata) => (headers = h));
  });
}

function serverStream(
  call: grpc.ClientReadableStream<unknown> | grpc.ClientDuplexStream<unknown, unknown>,
): Promise<Outcome> {
  return new Promise((resolve) => {
    let headers: grpc.Metadata | undefined;
    call.on("metadata", (h: grpc.Metadata) => (headers = h));
    call.on("data", () => undefined);
    call.on("error", (error: grpc.ServiceError) =>
      resolve({ code: error.code, details: error.details ?? "", headers, speech: true }),
    );
    call.on("status", (status: grpc.StatusObject) => {
      if (status.code === 0) resolve({ code: 0, details: "", headers, speech: true });
    });
  });
}

async function streamingRecognize(
  random: Random,
  stubs: GrpcStubs,
  inputs: GrpcFuzzInputs,
  m: grpc.Metadata,
  options: grpc.CallOptions,
): Promise<Outcome> {
  const call = stubs.asr.StreamingRecognize(m, options) as grpc.ClientDuplexStream<unknown, unknown>;
  const done = serverStream(call);
  if (random.chance(0.85)) {
    const config = recognitionConfig(random);
    call.write({
      streaming_config: { config: { sample_rate_hz: 16000, ...config }, interim_results: random.chance(0.5) },
    });
  }
  for (let i = random.int(0, 4); i > 0; i--) {
    const size = random.pick([0, 1, 3, 3200, 32000, 140_000]);
    const start = random.int(0, Math.max(0, inputs.pcm.length - size));
    call.write({
      audio_content: size <= inputs.pcm.length ? inputs.pcm.subarray(start, start + size) : random.bytes(size),
    });
  }
  if (random.chance(0.1)) call.write({ streaming_config: {} });
  call.end();
  return done;
}
