/**
 * The gRPC schemas Sawt serves. `bun build --compile` ships no loose files, so every .proto is
 * imported as a file asset: from source that is its path in the checkout, in the binary a path
 * inside the executable's embedded filesystem that `fs` (and so proto-loader) reads like any
 * other. None of the files imports another, so no include path is needed.
 */
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import reflectionV1Alpha from "@grpc/reflection/build/proto/grpc/reflection/v1alpha/reflection.proto" with {
  type: "file",
};
import reflectionV1 from "@grpc/reflection/build/proto/grpc/reflection/v1/reflection.proto" with { type: "file" };
import asrProto from "../../proto/sawt/asr/v1/asr.proto" with { type: "file" };
import healthProto from "../../proto/grpc/health/v1/health.proto" with { type: "file" };
import ttsProto from "../../proto/sawt/tts/v1/tts.proto" with { type: "file" };

/** Fully qualified service names. */
export const SERVICE = {
  tts: "sawt.tts.v1.TextToSpeech",
  asr: "sawt.asr.v1.SpeechRecognition",
  health: "grpc.health.v1.Health",
  reflectionV1: "grpc.reflection.v1.ServerReflection",
  reflectionV1Alpha: "grpc.reflection.v1alpha.ServerReflection",
} as const;

/**
 * Sawt's own messages keep proto field names (snake_case) so request objects read like REST
 * bodies; enums are names; unset scalars read as their defaults.
 */
export const SAWT_LOADER_OPTIONS: protoLoader.Options = { keepCase: true, enums: String, defaults: true, oneofs: true };

/** @grpc/reflection's handlers expect camelCase fields and byte arrays (its PROTO_LOADER_OPTS). */
const REFLECTION_LOADER_OPTIONS: protoLoader.Options = {
  longs: String,
  enums: String,
  bytes: Array,
  defaults: true,
  oneofs: true,
};

/** Loaded package definitions, one per schema. */
export interface SawtProtos {
  readonly tts: protoLoader.PackageDefinition;
  readonly asr: protoLoader.PackageDefinition;
  readonly health: protoLoader.PackageDefinition;
  readonly reflectionV1: protoLoader.PackageDefinition;
  readonly reflectionV1Alpha: protoLoader.PackageDefinition;
}

let loaded: SawtProtos | undefined;

/** Parses every schema once per process. */
export function loadProtos(): SawtProtos {
  return (loaded ??= {
    tts: protoLoader.loadSync(ttsProto, SAWT_LOADER_OPTIONS),
    asr: protoLoader.loadSync(asrProto, SAWT_LOADER_OPTIONS),
    health: protoLoader.loadSync(healthProto, SAWT_LOADER_OPTIONS),
    reflectionV1: protoLoader.loadSync(reflectionV1, REFLECTION_LOADER_OPTIONS),
    reflectionV1Alpha: protoLoader.loadSync(reflectionV1Alpha, REFLECTION_LOADER_OPTIONS),
  });
}

/** The service definition named `fullName` (e.g. "sawt.tts.v1.TextToSpeech") in a package. */
export function serviceDefinition(pkg: protoLoader.PackageDefinition, fullName: string): grpc.ServiceDefinition {
  const def = pkg[fullName];
  if (!def || "format" in def) throw new Error(`${fullName} is not a service`);
  return def as grpc.ServiceDefinition;
}
