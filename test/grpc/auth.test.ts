import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as grpc from "@grpc/grpc-js";
import { noRecognizerReason } from "../../src/asr/loader.ts";
import { runCli, startSawt, until, type SawtProcess } from "../support/sawt.ts";
import { bearer, clients, collect, unary, waitPortsServing } from "./client.ts";

let sawt: SawtProcess;
let tts: ReturnType<typeof clients>;
let asr: ReturnType<typeof clients>;
let key: string;

beforeAll(async () => {
  sawt = await startSawt();
  await waitPortsServing(sawt.ports, ["tts"]);
  tts = clients(sawt.ports.grpc_tts);
  asr = clients(sawt.ports.grpc_asr);
  key = (await sawt.createKey({ name: "grpc-auth" })).key;
});

afterAll(async () => {
  tts.close();
  asr.close();
  await sawt.stop("SIGKILL");
});

function apiKey(value: string): grpc.Metadata {
  const metadata = new grpc.Metadata();
  metadata.set("x-api-key", value);
  return metadata;
}

/** Calls every speech method with `metadata` and returns each one's error. */
async function everyMethod(metadata: grpc.Metadata): Promise<Record<string, grpc.ServiceError | undefined>> {
  const online = collect(tts.tts.SynthesizeOnline({ text: "hello" }, metadata));
  const speaking = tts.tts.StreamSynthesize(metadata) as grpc.ClientDuplexStream<object, unknown>;
  const spoken = collect(speaking);
  speaking.write({ text: "hello" });
  speaking.end();
  const streaming = asr.asr.StreamingRecognize(metadata) as grpc.ClientDuplexStream<object, unknown>;
  const streamed = collect(streaming);
  streaming.write({ streaming_config: { config: { encoding: "LINEAR_PCM", sample_rate_hz: 16000 } } });
  streaming.end();
  return {
    Synthesize: (await unary(tts.tts, "Synthesize", { text: "hello" }, metadata)).error,
    SynthesizeOnline: (await online).error,
    StreamSynthesize: (await spoken).error,
    ListVoices: (await unary(tts.tts, "ListVoices", {}, metadata)).error,
    Recognize: (
      await unary(asr.asr, "Recognize", { config: { container: "wav" }, audio: Buffer.from("RIFF") }, metadata)
    ).error,
    StreamingRecognize: (await streamed).error,
  };
}

describe("grpc authentication", () => {
  test("does refuse every speech method with UNAUTHENTICATED when no key is sent", async () => {
    for (const [method, error] of Object.entries(await everyMethod(new grpc.Metadata()))) {
      expect([method, error?.code, error?.details]).toEqual([
        method,
        grpc.status.UNAUTHENTICATED,
        "X-API-Key header is required",
      ]);
    }
  });

  test("does refuse every speech method with UNAUTHENTICATED when the key is wrong", async () => {
    const wrong = `${key.slice(0, -4)}AAAA`;
    for (const [method, error] of Object.entries(await everyMethod(bearer(wrong)))) {
      expect([method, error?.code, error?.details]).toEqual([method, grpc.status.UNAUTHENTICATED, "Invalid API key"]);
    }
    const garbage = await unary(tts.tts, "ListVoices", {}, apiKey("not-a-key"));
    expect(garbage.error?.details).toBe("Invalid API key");
  });

  test("does accept the key as x-api-key or a Bearer token and send rate-limit counters when it is valid", async () => {
    for (const metadata of [apiKey(key), bearer(key)]) {
      metadata.set("x-request-id", "client-id.42");
      const outcome = await unary(tts.tts, "ListVoices", {}, metadata);
      expect(outcome.error?.code).not.toBe(grpc.status.UNAUTHENTICATED);
      expect(outcome.headers?.get("x-request-id")).toEqual(["client-id.42"]);
      expect(outcome.headers?.get("x-ratelimit-limit")).toEqual(["60"]);
      expect(Number(outcome.headers?.get("x-ratelimit-remaining")[0])).toBeLessThan(60);
    }
  });

  test("does refuse a key once it is revoked", async () => {
    const created = await sawt.createKey({ name: "to-revoke" });
    expect((await unary(tts.tts, "ListVoices", {}, bearer(created.key))).error?.code).not.toBe(
      grpc.status.UNAUTHENTICATED,
    );
    expect((await runCli(["keys", "revoke", created.id], { env: sawt.env })).code).toBe(0);
    const refused = await unary(tts.tts, "ListVoices", {}, bearer(created.key));
    expect([refused.error?.code, refused.error?.details]).toEqual([grpc.status.UNAUTHENTICATED, "Invalid API key"]);
  });

  test("does answer RESOURCE_EXHAUSTED with retry-after in the trailers when the key's rate limit is spent", async () => {
    const limited = (await sawt.createKey({ name: "limited", rpm: 2 })).key;
    await unary(tts.tts, "ListVoices", {}, bearer(limited));
    await unary(asr.asr, "Recognize", { config: { language: "en" } }, bearer(limited));
    const refused = await unary(tts.tts, "ListVoices", {}, bearer(limited));
    expect([refused.error?.code, refused.error?.details]).toEqual([
      grpc.status.RESOURCE_EXHAUSTED,
      "Rate limit exceeded",
    ]);
    const retryAfter = Number(refused.error?.metadata.get("retry-after")[0]);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.error?.metadata.get("x-ratelimit-remaining")).toEqual(["0"]);
  });
});

describe("grpc request errors", () => {
  test("does answer INVALID_ARGUMENT with REST's detail texts when a recognition request is malformed", async () => {
    const cases: Array<[object, string]> = [
      [
        { config: { container: "wav", language: "fr" }, audio: Buffer.from("x") },
        "Request validation failed: config.language: Must be ar or en (or omitted); the dialect is detected automatically",
      ],
      [{ config: { container: "exe" }, audio: Buffer.from("MZ") }, "Invalid file type"],
      [{ config: { container: "" }, audio: Buffer.from("RIFF") }, "Invalid file type"],
      [{ config: { container: "wav" } }, "No selected file"],
      [
        { config: { encoding: "LINEAR_PCM", sample_rate_hz: 4000 }, audio: Buffer.alloc(4) },
        "Request validation failed: config.sample_rate_hz: LINEAR_PCM needs a sample rate between 8000 and 48000",
      ],
      [
        { config: { encoding: "LINEAR_PCM", sample_rate_hz: 16000, container: "wav" }, audio: Buffer.alloc(4) },
        "Request validation failed: config.container: LINEAR_PCM audio has no container",
      ],
    ];
    for (const [request, details] of cases) {
      const outcome = await unary(asr.asr, "Recognize", request, bearer(key));
      expect([outcome.error?.code, outcome.error?.details]).toEqual([grpc.status.INVALID_ARGUMENT, details]);
    }
  });

  test("does answer INVALID_ARGUMENT when a recognition stream does not start with its config", async () => {
    const call = asr.asr.StreamingRecognize(bearer(key)) as grpc.ClientDuplexStream<object, unknown>;
    const done = collect(call);
    call.write({ audio_content: Buffer.alloc(320) });
    call.end();
    const { error } = await done;
    expect([error?.code, error?.details]).toEqual([
      grpc.status.INVALID_ARGUMENT,
      "The first message must carry streaming_config",
    ]);
  });

  test("does answer INVALID_ARGUMENT when a recognition stream asks for a container", async () => {
    const call = asr.asr.StreamingRecognize(bearer(key)) as grpc.ClientDuplexStream<object, unknown>;
    const done = collect(call);
    call.write({ streaming_config: { config: { container: "wav" } } });
    call.end();
    const { error } = await done;
    expect([error?.code, error?.details]).toEqual([
      grpc.status.INVALID_ARGUMENT,
      "Request validation failed: streaming_config.config.encoding: StreamingRecognize takes LINEAR_PCM, MULAW or ALAW only",
    ]);
  });

  test("does answer UNAVAILABLE with the disabled engine's reason and no retry-after when no recogniser is installed", async () => {
    // The ASR engine settles (disabled) independently of the TTS port the set-up waited for.
    await until(async () => {
      const health = (await (await fetch(`${sawt.baseUrl}/v1/asr/health`)).json()) as { state?: string };
      return health.state === "disabled" ? true : undefined;
    }, "the ASR engine to settle");
    const reason = noRecognizerReason(false);
    const pcm = { config: { encoding: "LINEAR_PCM", sample_rate_hz: 16000 }, audio: Buffer.alloc(3200) };
    const outcome = await unary(asr.asr, "Recognize", pcm, bearer(key));
    expect([outcome.error?.code, outcome.error?.details]).toEqual([grpc.status.UNAVAILABLE, reason]);
    // Waiting will not help: no Retry-After.
    expect(outcome.error?.metadata.get("retry-after")).toEqual([]);
    const call = asr.asr.StreamingRecognize(bearer(key)) as grpc.ClientDuplexStream<object, unknown>;
    const done = collect(call);
    call.write({ streaming_config: { config: { encoding: "LINEAR_PCM", sample_rate_hz: 16000 } } });
    call.end();
    expect((await done).error?.details).toBe(reason);
  });

  test("does refuse a unary upload larger than the configured limit with RESOURCE_EXHAUSTED", async () => {
    const server = await startSawt({ env: { SAWT_ASR_MAX_UPLOAD_MB: "1" } });
    const port = clients(server.ports.grpc_asr);
    try {
      const small = await server.createKey({ name: "upload" });
      const outcome = await unary(
        port.asr,
        "Recognize",
        { config: { container: "wav" }, audio: Buffer.alloc(2 * 1024 * 1024) },
        bearer(small.key),
      );
      expect(outcome.error?.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    } finally {
      port.close();
      await server.stop("SIGKILL");
    }
  });
});
