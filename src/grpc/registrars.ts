/** The gRPC services registered on the ASR and TTS ports. */
import { registerAsr } from "../asr/grpc/recognition.ts";
import { registerHealth } from "./health.ts";
import { registerReflection } from "./reflection.ts";
import type { GrpcRegistrar } from "./server.ts";
import { registerTts } from "../tts/grpc/text-to-speech.ts";

/** Every gRPC feature's registrar: health and reflection on both ports, each speech service on its own. */
export const grpcRegistrars: readonly GrpcRegistrar[] = [registerHealth, registerReflection, registerTts, registerAsr];
