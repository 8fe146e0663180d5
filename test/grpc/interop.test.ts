import { concatBytes } from "../../src/audio/concat.ts";
import { wavHeader } from "../../src/audio/wav.ts";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { writePiperPack } from "../support/models/tone-voice.ts";
import { startSawt, tempDir, type SawtProcess } from "../support/sawt.ts";
import { ARABIC_TEXT_SYMBOLS, idMap } from "../tts/support.ts";
import { waitPortsServing } from "./client.ts";
import { pythonGrpcAvailable, runPythonClient, SYSTEM_PYTHON } from "./python-client.ts";

let sawt: SawtProcess;
let key: string;
// A constructed (deterministic) voice as Yara, so the audio Python receives can be compared byte for byte.
const dir = tempDir("sawt-grpc-interop-");

beforeAll(async () => {
  if (!pythonGrpcAvailable())
    throw new Error(
      `${SYSTEM_PYTHON} lacks grpc/protobuf: run installer/dev-setup.sh (apt-get install python3-grpcio python3-protobuf)`,
    );
  await writePiperPack(join(dir.path, "models", "yara"), {
    name: "ar_text",
    sampleRate: 16000,
    phonemeIdMap: idMap(ARABIC_TEXT_SYMBOLS),
    phonemeType: "text",
  });
  sawt = await startSawt({ env: { SAWT_MODELS_DIR: join(dir.path, "models") } });
  await waitPortsServing(sawt.ports, ["tts"]);
  key = (await sawt.createKey({ name: "python" })).key;
});

afterAll(async () => {
  await sawt?.stop("SIGKILL");
  dir.remove();
});

describe("grpc interop with python grpcio", () => {
  test("does pass the health check and call Synthesize through a schema fetched by reflection", async () => {
    const report = await runPythonClient(sawt.ports.grpc_tts, key, "مرحبا بكم. كيف حالكم؟");
    // The same request over REST is the reference: Python must receive the very same audio.
    expect(report.health).toBe(1);
    expect(report.health_tts).toBe(1);
    expect(report.method_input).toBe("sawt.tts.v1.SynthesizeRequest");
    expect(report.no_key).toEqual({ code: "UNAUTHENTICATED", details: "X-API-Key header is required" });
    const text = "مرحبا بكم. كيف حالكم؟";
    const rest = await fetch(`${sawt.baseUrl}/v1/tts/audio/speech`, {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json" },
      body: JSON.stringify({ input: text, voice: "Yara", response_format: "wav" }),
    });
    // REST streams its WAV with unknown sizes (issue #14); with the sizes written in, it is the
    // very file gRPC returns.
    const streamed = new Uint8Array(await rest.arrayBuffer());
    const rate = Number(rest.headers.get("x-sample-rate"));
    const restAudio = concatBytes([wavHeader(rate, streamed.byteLength - 44), streamed.subarray(44)]);
    expect(report.synthesize).toEqual({
      code: "OK",
      content_type: "audio/wav",
      sample_rate_hz: Number(rest.headers.get("x-sample-rate")),
      audio_head: "RIFF",
      audio_sha256: new Bun.CryptoHasher("sha256").update(restAudio).digest("hex"),
      resolution: { voice: "Yara", dialect: "ar-najdi", engine: "piper" },
    });
  });
});
