/**
 * gRPC server reflection (v1 and v1alpha) on both ports, so generic clients (grpcurl, Postman,
 * evans) list and call the services without the .proto files. @grpc/reflection answers the
 * requests; its own `addToServer` reads its .proto files from node_modules at run time, which a
 * compiled binary does not have, so the two services are added here from the embedded schemas.
 */
import * as grpc from "@grpc/grpc-js";
import type { PackageDefinition } from "@grpc/proto-loader";
// The package's facade (ReflectionService) keeps its implementations private; this one is public.
import { ReflectionV1Implementation } from "@grpc/reflection/build/src/implementations/reflection-v1";
import { loadProtos, SERVICE, serviceDefinition } from "./protos.ts";
import type { GrpcRegistrar } from "./server.ts";

/** Messages of the reflection stream, shaped as @grpc/reflection reads and writes them. */
type ReflectionRequest = Parameters<ReflectionV1Implementation["handleServerReflectionRequest"]>[0];
type ReflectionResponse = ReturnType<ReflectionV1Implementation["handleServerReflectionRequest"]>;

/** Fully qualified names of the services each port serves (and reflection lists). */
export function servicesOnPort(which: "asr" | "tts"): string[] {
  return [which === "tts" ? SERVICE.tts : SERVICE.asr, SERVICE.health, SERVICE.reflectionV1, SERVICE.reflectionV1Alpha];
}

/** Registers ServerReflection v1 and v1alpha describing the port's services. */
export const registerReflection: GrpcRegistrar = (server, _ctx, which) => {
  const protos = loadProtos();
  const described: PackageDefinition = {
    ...(which === "tts" ? protos.tts : protos.asr),
    ...protos.health,
    ...protos.reflectionV1,
    ...protos.reflectionV1Alpha,
  };
  // v1 and v1alpha have the same messages; one implementation answers both. Building it turns
  // every schema into file descriptors, which start-up need not wait for: the first call does it.
  let reflection: ReflectionV1Implementation | undefined;
  const handler: grpc.handleBidiStreamingCall<ReflectionRequest, ReflectionResponse> = (call) => {
    reflection ??= new ReflectionV1Implementation(described, { services: servicesOnPort(which) });
    const answering = reflection;
    call.on("data", (request: ReflectionRequest) => call.write(answering.handleServerReflectionRequest(request)));
    call.on("end", () => call.end());
  };
  server.addService(serviceDefinition(protos.reflectionV1, SERVICE.reflectionV1), { ServerReflectionInfo: handler });
  server.addService(serviceDefinition(protos.reflectionV1Alpha, SERVICE.reflectionV1Alpha), {
    ServerReflectionInfo: handler,
  });
};
