import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type * as grpc from "@grpc/grpc-js";
import { startSawt, type SawtProcess } from "../support/sawt.ts";
import { clients, collect, type Stub } from "./client.ts";

let sawt: SawtProcess;
let tts: ReturnType<typeof clients>;
let asr: ReturnType<typeof clients>;

beforeAll(async () => {
  sawt = await startSawt();
  tts = clients(sawt.ports.grpc_tts);
  asr = clients(sawt.ports.grpc_asr);
});

afterAll(async () => {
  tts.close();
  asr.close();
  await sawt.stop("SIGKILL");
});

/** Sends reflection requests on one stream and returns the responses. */
async function reflect(client: Stub, requests: object[]): Promise<any[]> {
  const call = client.ServerReflectionInfo() as grpc.ClientDuplexStream<object, any>;
  const done = collect(call);
  for (const request of requests) call.write(request);
  call.end();
  const { messages, error } = await done;
  expect(error).toBeUndefined();
  return messages;
}

const REFLECTION = ["grpc.reflection.v1.ServerReflection", "grpc.reflection.v1alpha.ServerReflection"];

describe("grpc reflection", () => {
  for (const version of ["reflectionV1", "reflectionV1Alpha"] as const) {
    test(`does list the port's services when ${version} is asked with no key`, async () => {
      const [onTts] = await reflect(tts[version], [{ listServices: "*" }]);
      expect(onTts.listServicesResponse.service.map((s: { name: string }) => s.name).sort()).toEqual(
        ["grpc.health.v1.Health", ...REFLECTION, "sawt.tts.v1.TextToSpeech"].sort(),
      );
      const [onAsr] = await reflect(asr[version], [{ listServices: "*" }]);
      expect(onAsr.listServicesResponse.service.map((s: { name: string }) => s.name).sort()).toEqual(
        ["grpc.health.v1.Health", ...REFLECTION, "sawt.asr.v1.SpeechRecognition"].sort(),
      );
    });
  }

  test("does return the schema of a service when asked for the file containing its symbol", async () => {
    const [ttsFile, asrFile] = [
      (await reflect(tts.reflectionV1, [{ fileContainingSymbol: "sawt.tts.v1.TextToSpeech" }]))[0],
      (await reflect(asr.reflectionV1, [{ fileContainingSymbol: "sawt.asr.v1.StreamingRecognizeRequest" }]))[0],
    ];
    const text = (r: any) =>
      r.fileDescriptorResponse.fileDescriptorProto.map((b: Uint8Array) => Buffer.from(b).toString("latin1")).join("");
    expect(text(ttsFile)).toContain("sawt.tts.v1");
    expect(text(ttsFile)).toContain("SynthesizeOnline");
    expect(text(asrFile)).toContain("StreamingRecognize");
    expect(text(asrFile)).toContain("audio_content");
  });

  test("does answer NOT_FOUND in the stream when a symbol belongs to the other port", async () => {
    const [reply] = await reflect(asr.reflectionV1, [{ fileContainingSymbol: "sawt.tts.v1.TextToSpeech" }]);
    expect(reply.errorResponse.errorCode).toBe(5);
  });
});
