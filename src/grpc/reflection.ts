/**
 * gRPC server reflection (v1 and v1alpha) on both ports, so generic clients (grpcurl, Postman,
 * evans) list and call the services without the .proto files. @grpc/reflection answers the
 * requests; its own `addToServer` reads its .proto files from node_modules at run time, which a
 * compiled binary does not have, so the two services are added here from the embedded schemas.
 * Its implementation and the file descriptors it describes are loaded by the first reflection
 * call, not at start-up (they were ~10% of a cold start, issue #19).
 */
import * as grpc from "@grpc/grpc-js";
import type { PackageDefinition } from "@grpc/proto-loader";
import type { ReflectionV1Implementation } from "@grpc/reflection/build/src/implementations/reflection-v1";
import { SERVICE } from "./proto-files.ts";
import type { GrpcRegistrar } from "./server.ts";
import { grpcService } from "./services.ts";

/** Messages of the reflection stream, shaped as @grpc/reflection reads and writes them. */
type ReflectionRequest = Parameters<ReflectionV1Implementation["handleServerReflectionRequest"]>[0];
type ReflectionResponse = ReturnType<ReflectionV1Implementation["handleServerReflectionRequest"]>;

/** Fully qualified names of the services each port serves (and reflection lists). */
export function servicesOnPort(which: "asr" | "tts"): string[] {
  return [which === "tts" ? SERVICE.tts : SERVICE.asr, SERVICE.health, SERVICE.reflectionV1, SERVICE.reflectionV1Alpha];
}

/** The reflection implementation describing the services of one port. */
async function describePort(which: "asr" | "tts"): Promise<ReflectionV1Implementation> {
  // The package's facade (ReflectionService) keeps its implementations private; this one is public.
  const [{ ReflectionV1Implementation }, { loadProtos }] = await Promise.all([
    import("@grpc/reflection/build/src/implementations/reflection-v1"),
    import("./protos.ts"),
  ]);
  const protos = loadProtos();
  const described: PackageDefinition = {
    ...(which === "tts" ? protos.tts : protos.asr),
    ...protos.health,
    ...protos.reflectionV1,
    ...protos.reflectionV1Alpha,
  };
  return new ReflectionV1Implementation(described, { services: servicesOnPort(which) });
}

/** Registers ServerReflection v1 and v1alpha describing the port's services. */
export const registerReflection: GrpcRegistrar = (server, _ctx, which) => {
  // v1 and v1alpha have the same messages; one implementation answers both.
  let reflection: Promise<ReflectionV1Implementation> | undefined;
  const handler: grpc.handleBidiStreamingCall<ReflectionRequest, ReflectionResponse> = (call) => {
    reflection ??= describePort(which);
    // Requests are answered in order, each once the implementation is there.
    let answered: Promise<unknown> = reflection;
    let failed = false;
    const fail = (error: unknown) => {
      if (failed) return;
      failed = true;
      call.emit("error", { code: grpc.status.INTERNAL, details: `reflection unavailable: ${String(error)}` });
    };
    call.on("data", (request: ReflectionRequest) => {
      answered = answered.then(async () => call.write((await reflection!).handleServerReflectionRequest(request)));
      answered.catch(fail);
    });
    call.on("end", () => void answered.then(() => call.end(), fail));
  };
  server.addService(grpcService("reflectionV1"), { ServerReflectionInfo: handler });
  server.addService(grpcService("reflectionV1Alpha"), { ServerReflectionInfo: handler });
};
