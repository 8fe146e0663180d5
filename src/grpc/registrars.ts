/** The gRPC services registered on the ASR and TTS ports. */
import type { GrpcRegistrar } from "./server.ts";

/** Every gRPC feature's registrar. */
export const grpcRegistrars: readonly GrpcRegistrar[] = [];
