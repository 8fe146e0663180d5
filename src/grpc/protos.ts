/**
 * The gRPC schemas parsed in full by proto-loader: message codecs, and the file descriptors
 * server reflection describes. Parsing them takes tens of ms, so the server does not wait for
 * it at start-up: ./services.ts registers the services from their declarations alone and calls
 * {@link loadProtos} the first time a codec runs; reflection's first call does too.
 */
import type * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { PROTO_FILES } from "./proto-files.ts";

export { SERVICE } from "./proto-files.ts";

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
    tts: protoLoader.loadSync(PROTO_FILES.tts, SAWT_LOADER_OPTIONS),
    asr: protoLoader.loadSync(PROTO_FILES.asr, SAWT_LOADER_OPTIONS),
    health: protoLoader.loadSync(PROTO_FILES.health, SAWT_LOADER_OPTIONS),
    reflectionV1: protoLoader.loadSync(PROTO_FILES.reflectionV1, REFLECTION_LOADER_OPTIONS),
    reflectionV1Alpha: protoLoader.loadSync(PROTO_FILES.reflectionV1Alpha, REFLECTION_LOADER_OPTIONS),
  });
}

/** The service definition named `fullName` (e.g. "sawt.tts.v1.TextToSpeech") in a package. */
export function serviceDefinition(pkg: protoLoader.PackageDefinition, fullName: string): grpc.ServiceDefinition {
  const def = pkg[fullName];
  if (!def || "format" in def) throw new Error(`${fullName} is not a service`);
  return def as grpc.ServiceDefinition;
}
