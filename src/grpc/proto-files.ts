/**
 * The gRPC schemas Sawt serves, as files. `bun build --compile` ships no loose files, so every
 * .proto is imported as a file asset: from source that is its path in the checkout, in the binary
 * a path inside the executable's embedded filesystem that `fs` (and so proto-loader) reads like
 * any other. None of the files imports another, so no include path is needed. This module loads
 * no protobuf code: ./services.ts reads the service declarations from here at start-up, and
 * ./protos.ts parses the files fully when a codec or reflection first needs them.
 */
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

/** One schema per served service, named as {@link SERVICE} names them. */
export type SchemaName = keyof typeof SERVICE;

/** The .proto file of each schema. */
export const PROTO_FILES: Readonly<Record<SchemaName, string>> = {
  tts: ttsProto,
  asr: asrProto,
  health: healthProto,
  reflectionV1,
  reflectionV1Alpha,
};
