/**
 * gRPC clients for tests: @grpc/grpc-js stubs built from the same .proto files the server embeds,
 * with promise helpers for unary calls and stream collection.
 */
import * as grpc from "@grpc/grpc-js";
import { join } from "node:path";
import { loadProtos } from "../../src/grpc/protos.ts";
import { writeToneCtcPack } from "../support/models/ctc.ts";
import { writePiperPack } from "../support/models/tone-voice.ts";
import { ARABIC_TEXT_SYMBOLS, idMap } from "../tts/support.ts";

/** A generated client: grpc-js adds one method per RPC (and its lowerCamel alias). */
export interface Stub extends grpc.Client {
  [method: string]: any;
}
type StubConstructor = new (
  address: string,
  credentials: grpc.ChannelCredentials,
  options?: grpc.ClientOptions,
) => Stub;

function stubClass(pkg: grpc.GrpcObject, path: string): StubConstructor {
  let node: unknown = pkg;
  for (const part of path.split(".")) node = (node as Record<string, unknown>)[part];
  return node as StubConstructor;
}

const protos = loadProtos();
const packages = {
  tts: grpc.loadPackageDefinition(protos.tts),
  asr: grpc.loadPackageDefinition(protos.asr),
  health: grpc.loadPackageDefinition(protos.health),
  reflectionV1: grpc.loadPackageDefinition(protos.reflectionV1),
  reflectionV1Alpha: grpc.loadPackageDefinition(protos.reflectionV1Alpha),
};

const credentials = grpc.credentials.createInsecure();
const sharedOptions: grpc.ClientOptions = {
  "grpc.max_receive_message_length": 512 * 1024 * 1024,
  "grpc.max_send_message_length": 200 * 1024 * 1024,
};

/**
 * Stubs for one port. Clients share one connection per address unless `ownConnection`: a stream
 * whose reader stopped (flow control) would otherwise stall every other call on that connection.
 */
export function clients(port: number, ownConnection = false) {
  const address = `127.0.0.1:${port}`;
  const clientOptions: grpc.ClientOptions = ownConnection
    ? { ...sharedOptions, "grpc.use_local_subchannel_pool": 1 }
    : sharedOptions;
  return {
    tts: new (stubClass(packages.tts, "sawt.tts.v1.TextToSpeech"))(address, credentials, clientOptions),
    asr: new (stubClass(packages.asr, "sawt.asr.v1.SpeechRecognition"))(address, credentials, clientOptions),
    health: new (stubClass(packages.health, "grpc.health.v1.Health"))(address, credentials, clientOptions),
    reflectionV1: new (stubClass(packages.reflectionV1, "grpc.reflection.v1.ServerReflection"))(
      address,
      credentials,
      clientOptions,
    ),
    reflectionV1Alpha: new (stubClass(packages.reflectionV1Alpha, "grpc.reflection.v1alpha.ServerReflection"))(
      address,
      credentials,
      clientOptions,
    ),
    close() {
      for (const c of [this.tts, this.asr, this.health, this.reflectionV1, this.reflectionV1Alpha]) c.close();
    },
  };
}

/** Metadata carrying an API key the way the spec's example does. */
export function bearer(key: string): grpc.Metadata {
  const metadata = new grpc.Metadata();
  metadata.set("authorization", `Bearer ${key}`);
  return metadata;
}

/** The outcome of a unary call: the response, or the error with its code, details and trailers. */
export interface UnaryOutcome<T> {
  readonly response?: T;
  readonly error?: grpc.ServiceError;
  readonly headers: grpc.Metadata | undefined;
}

/** Calls a unary method and resolves to its outcome (never rejects). */
export function unary<T = any>(
  client: Stub,
  method: string,
  request: unknown,
  metadata = new grpc.Metadata(),
  options: grpc.CallOptions = {},
): Promise<UnaryOutcome<T>> {
  return new Promise((resolve) => {
    let headers: grpc.Metadata | undefined;
    const call = client[method]!(request, metadata, options, (error: grpc.ServiceError | null, response: T) =>
      resolve(error ? { error, headers } : { response, headers }),
    ) as grpc.ClientUnaryCall;
    call.on("metadata", (m: grpc.Metadata) => (headers = m));
  });
}

/** Reads a server stream to its end: messages plus the final error, if any. */
export function collect<T = any>(
  call: grpc.ClientReadableStream<T> | grpc.ClientDuplexStream<any, T>,
): Promise<{ messages: T[]; error?: grpc.ServiceError }> {
  return new Promise((resolve) => {
    const messages: T[] = [];
    call.on("data", (m: T) => messages.push(m));
    call.on("error", (error: grpc.ServiceError) => resolve({ messages, error }));
    call.on("end", () => resolve({ messages }));
  });
}

/** Resolves once Health/Watch reports SERVING for `service` (engines start after the ports bind). */
export function waitServing(health: Stub, service = "", timeoutMs = 30_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const call = health.Watch({ service }) as grpc.ClientReadableStream<{ status: string }>;
    const timer = setTimeout(() => {
      call.cancel();
      reject(new Error(`${service || "server"} did not become SERVING`));
    }, timeoutMs);
    call.on("data", (m: { status: string }) => {
      if (m.status !== "SERVING") return;
      clearTimeout(timer);
      call.cancel();
      resolve();
    });
    call.on("error", () => undefined);
  });
}

/** Waits until the named ports of a server report SERVING (engines start after the ports bind). */
export async function waitPortsServing(
  ports: { grpc_tts: number; grpc_asr: number },
  which: ReadonlyArray<"tts" | "asr"> = ["tts", "asr"],
): Promise<void> {
  const opened = which.map((w) => clients(w === "tts" ? ports.grpc_tts : ports.grpc_asr));
  try {
    await Promise.all(opened.map((c) => waitServing(c.health)));
  } finally {
    for (const c of opened) c.close();
  }
}

/**
 * Writes the constructed recogniser (tone CTC) into `modelsDir`, so the ASR engine can serve, and
 * optionally the constructed tone voice as Yara (deterministic audio); returns `modelsDir`.
 */
export async function installTestPacks(modelsDir: string, options: { voice?: boolean } = {}): Promise<string> {
  await writeToneCtcPack(join(modelsDir, "tone-ctc"));
  if (options.voice)
    await writePiperPack(join(modelsDir, "yara"), {
      name: "ar_text",
      sampleRate: 16000,
      phonemeIdMap: idMap(ARABIC_TEXT_SYMBOLS),
      phonemeType: "text",
    });
  return modelsDir;
}
