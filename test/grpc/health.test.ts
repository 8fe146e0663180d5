import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type * as grpc from "@grpc/grpc-js";
import { startSawt, tempDir, until, type SawtProcess } from "../support/sawt.ts";
import { clients, installTestPacks, unary, waitPortsServing } from "./client.ts";

// The constructed recogniser lets the ASR engine serve (without a pack it reports failed).
const models = tempDir("sawt-grpc-health-");
let sawt: SawtProcess;
let tts: ReturnType<typeof clients>;
let asr: ReturnType<typeof clients>;

/** Resolves with the first Watch message satisfying `predicate` (messages arrive in order). */
function nextStatus(
  messages: string[],
  predicate: (status: string) => boolean,
  call: grpc.ClientReadableStream<{ status: string }>,
): Promise<string> {
  const found = messages.find(predicate);
  if (found) return Promise.resolve(found);
  return new Promise((resolve, reject) => {
    const onData = (m: { status: string }) => {
      if (!predicate(m.status)) return;
      call.removeListener("data", onData);
      resolve(m.status);
    };
    call.on("data", onData);
    call.once("error", reject);
  });
}

beforeAll(async () => {
  await installTestPacks(models.path);
  sawt = await startSawt({ env: { SAWT_MODELS_DIR: models.path } });
  await waitPortsServing(sawt.ports);
  tts = clients(sawt.ports.grpc_tts);
  asr = clients(sawt.ports.grpc_asr);
});

afterAll(async () => {
  tts.close();
  asr.close();
  await sawt.stop("SIGKILL");
  models.remove();
});

describe("grpc health", () => {
  test("does report SERVING for the whole port and its own service when the engines are ready", async () => {
    const watch = tts.health.Watch({ service: "" }) as grpc.ClientReadableStream<{ status: string }>;
    await nextStatus([], (s) => s === "SERVING", watch);
    watch.cancel();
    for (const [port, name] of [
      [tts, "sawt.tts.v1.TextToSpeech"],
      [asr, "sawt.asr.v1.SpeechRecognition"],
    ] as const) {
      expect((await unary(port.health, "Check", { service: "" })).response).toEqual({ status: "SERVING" });
      expect((await unary(port.health, "Check", { service: name })).response).toEqual({ status: "SERVING" });
    }
  });

  test("does answer NOT_FOUND when Check names a service the port does not serve", async () => {
    const onTts = await unary(tts.health, "Check", { service: "sawt.asr.v1.SpeechRecognition" });
    expect(onTts.error?.code).toBe(5);
    const unknown = await unary(asr.health, "Check", { service: "no.such.Service" });
    expect(unknown.error?.code).toBe(5);
  });

  test("does list every known name with its status when List is called", async () => {
    const listed = await unary(asr.health, "List", {});
    expect(listed.response).toEqual({
      statuses: { "": { status: "SERVING" }, "sawt.asr.v1.SpeechRecognition": { status: "SERVING" } },
    });
  });

  test("does stream SERVICE_UNKNOWN and keep the call open when Watch names an unknown service", async () => {
    const watch = tts.health.Watch({ service: "no.such.Service" }) as grpc.ClientReadableStream<{ status: string }>;
    const messages: string[] = [];
    let ended = false;
    watch.on("data", (m: { status: string }) => messages.push(m.status));
    watch.on("error", () => (ended = true));
    watch.on("end", () => (ended = true));
    await nextStatus(messages, (s) => s === "SERVICE_UNKNOWN", watch);
    await Bun.sleep(200);
    expect(ended).toBe(false);
    expect(messages).toEqual(["SERVICE_UNKNOWN"]);
    watch.cancel();
  });

  test("does need no API key when health is called without metadata", async () => {
    const checked = await unary(tts.health, "Check", { service: "" });
    expect(checked.error).toBeUndefined();
  });
});

describe("grpc health of an engine that cannot serve", () => {
  test("does report NOT_SERVING on the ASR port while TTS serves when no recogniser pack is installed", async () => {
    const server = await startSawt();
    const [ttsPort, asrPort] = [clients(server.ports.grpc_tts), clients(server.ports.grpc_asr)];
    try {
      await waitPortsServing(server.ports, ["tts"]);
      // The ASR engine settles as disabled (no recogniser at all); Watch reports its state at once and on every change.
      const health = async () => (await fetch(`${server.baseUrl}/v1/asr/health`)).json() as Promise<{ state: string }>;
      await until(async () => (await health()).state !== "initializing", "the ASR engine to settle", { everyMs: 50 });
      expect((await health()).state).toBe("disabled");
      for (const service of ["", "sawt.asr.v1.SpeechRecognition"]) {
        expect((await unary(asrPort.health, "Check", { service })).response).toEqual({ status: "NOT_SERVING" });
      }
      expect((await unary(ttsPort.health, "Check", { service: "" })).response).toEqual({ status: "SERVING" });
      const watch = asrPort.health.Watch({ service: "" }) as grpc.ClientReadableStream<{ status: string }>;
      expect(await nextStatus([], () => true, watch)).toBe("NOT_SERVING");
      watch.cancel();
    } finally {
      ttsPort.close();
      asrPort.close();
      await server.stop("SIGKILL");
    }
  });
});

describe("grpc health on shutdown", () => {
  test("does push NOT_SERVING on both ports and end the Watch streams when SIGTERM starts draining", async () => {
    const server = await startSawt({ env: { SAWT_MODELS_DIR: models.path } });
    const ports = [clients(server.ports.grpc_tts), clients(server.ports.grpc_asr)];
    try {
      const watches = ports.flatMap((p, i) =>
        ["", i === 0 ? "sawt.tts.v1.TextToSpeech" : "sawt.asr.v1.SpeechRecognition"].map((service) => {
          const call = p.health.Watch({ service }) as grpc.ClientReadableStream<{ status: string }>;
          const messages: string[] = [];
          const ended = new Promise<string>((resolve) => {
            call.on("end", () => resolve("end"));
            call.on("error", (e: grpc.ServiceError) => resolve(`error ${e.code}`));
          });
          call.on("data", (m: { status: string }) => messages.push(m.status));
          return { call, messages, ended };
        }),
      );
      for (const w of watches) await nextStatus(w.messages, (s) => s === "SERVING", w.call);
      server.proc.kill("SIGTERM");
      for (const w of watches) {
        expect(await nextStatus(w.messages, (s) => s === "NOT_SERVING", w.call)).toBe("NOT_SERVING");
        expect(await w.ended).toBe("end");
        expect(w.messages.at(-1)).toBe("NOT_SERVING");
      }
      expect(await server.proc.exited).toBe(0);
    } finally {
      for (const p of ports) p.close();
      await server.stop("SIGKILL");
    }
  });
});
