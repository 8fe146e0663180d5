import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as grpc from "@grpc/grpc-js";
import { floatToInt16, int16ToBytes } from "../../src/audio/wav.ts";
import { letterToneAudio } from "../support/models/ctc.ts";
import { ROOT, startSawt, tempDir, type SawtProcess } from "../support/sawt.ts";
import { bearer, clients, collect, installTestPacks, unary, waitPortsServing } from "./client.ts";

// The protos must load from the executable's embedded files: run dist/sawt from / with no checkout beside it.
let sawt: SawtProcess;
const models = tempDir("sawt-grpc-binary-");

beforeAll(async () => {
  const build = Bun.spawnSync([process.execPath, "installer/build.ts"], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  if (build.exitCode !== 0) throw new Error(`build failed: ${build.stderr.toString()}`);
  await installTestPacks(models.path);
  sawt = await startSawt({ binary: true, cwd: "/", env: { SAWT_MODELS_DIR: models.path } });
  await waitPortsServing(sawt.ports);
}, 180_000);

afterAll(async () => {
  await sawt?.stop("SIGKILL");
  models.remove();
});

describe("grpc in the compiled binary", () => {
  test("does serve health, reflection and the speech services from / when compiled", async () => {
    const tts = clients(sawt.ports.grpc_tts);
    const asr = clients(sawt.ports.grpc_asr);
    try {
      expect((await unary(tts.health, "Check", { service: "sawt.tts.v1.TextToSpeech" })).response).toEqual({
        status: "SERVING",
      });
      expect((await unary(asr.health, "Check", { service: "sawt.asr.v1.SpeechRecognition" })).response).toEqual({
        status: "SERVING",
      });
      const call = asr.reflectionV1Alpha.ServerReflectionInfo() as grpc.ClientDuplexStream<object, any>;
      const done = collect(call);
      call.write({ listServices: "*" });
      call.end();
      const names = (await done).messages[0].listServicesResponse.service.map((s: { name: string }) => s.name);
      expect(names).toContain("sawt.asr.v1.SpeechRecognition");
      const key = (await sawt.createKey({ name: "binary" })).key;
      const invalid = await unary(
        asr.asr,
        "Recognize",
        { config: { container: "exe" }, audio: Buffer.from("MZ") },
        bearer(key),
      );
      expect([invalid.error?.code, invalid.error?.details]).toEqual([
        grpc.status.INVALID_ARGUMENT,
        "Invalid file type",
      ]);
      const spoken = await unary(tts.tts, "Synthesize", { text: "مرحبا بكم", response_format: "wav" }, bearer(key));
      expect(spoken.error).toBeUndefined();
      expect(Buffer.from(spoken.response.audio).subarray(0, 4).toString("latin1")).toBe("RIFF");
      const streamed = await collect(tts.tts.SynthesizeOnline({ text: "مرحبا بكم. شكرا لكم." }, bearer(key)));
      expect(streamed.error).toBeUndefined();
      expect(streamed.messages.length).toBeGreaterThan(0);
      const pcm = Buffer.from(int16ToBytes(floatToInt16(letterToneAudio("سلام"))));
      const heard = await unary(
        asr.asr,
        "Recognize",
        { config: { encoding: "LINEAR_PCM", sample_rate_hz: 16000 }, audio: pcm },
        bearer(key),
      );
      expect(heard.response?.text).toBe("سلام");
    } finally {
      tts.close();
      asr.close();
    }
  });
});
