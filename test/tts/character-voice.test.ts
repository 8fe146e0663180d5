/**
 * Issue #32 (defects found, acceptance 4): a character-level Arabic voice given text with no
 * character it can speak refuses it as the caller's input — 400 with a detail naming the voice
 * and what it reads — on REST (raw and SSE), the TTS WebSocket and gRPC (INVALID_ARGUMENT), before
 * any audio; Arabic text, and Latin text with some Arabic in it, still speak. The voices are
 * constructed packs (test/support/models/tone-voice.ts): a Piper voice with `phoneme_type: text`
 * and a sherpa-onnx VITS voice without espeak whose tokens.txt holds Arabic letters only.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { bearer, clients, collect, unary, waitPortsServing } from "../grpc/client.ts";
import { writePiperPack, writeSherpaVitsPack } from "../support/models/tone-voice.ts";
import { startSawt, tempDir, waitForStatus, type SawtProcess } from "../support/sawt.ts";
import { ARABIC_TEXT_SYMBOLS, idMap } from "./support.ts";
import { postSpeech } from "../support/http-helpers.ts";

const LATIN = "Hello world. How are you today?";
const SHERINE_DETAIL = "Voice Sherine (piper) reads Arabic script only; the input has no character it can speak";
const MYRIAM_DETAIL = "Voice Myriam (vits) reads Arabic script only; the input has no character it can speak";
/** The standard contract shape of a 400. */
const BAD_REQUEST = { error: "http_error", code: "HTTP_400" };

const dir = tempDir("sawt-character-voice-");
let sawt: SawtProcess;
let key: string;
let grpcClients: ReturnType<typeof clients>;

beforeAll(async () => {
  const models = join(dir.path, "models");
  await writePiperPack(join(models, "sherine"), {
    name: "ar_sherine",
    sampleRate: 16000,
    phonemeIdMap: idMap(ARABIC_TEXT_SYMBOLS),
    phonemeType: "text",
  });
  // No espeak (has_espeak 0, not a Piper conversion): sherpa-onnx reads tokens.txt characters.
  await writeSherpaVitsPack(join(models, "myriam"), {
    sampleRate: 16000,
    phonemeIdMap: idMap("ابتثجحخدذرزسشصضطظعغفقكلمنهوي"),
    extraMetadata: { has_espeak: 0, comment: "coqui" },
  });
  sawt = await startSawt({ env: { SAWT_MODELS_DIR: models, SAWT_TTS_TASHKEEL: "off" } });
  await waitForStatus(`${sawt.baseUrl}/v1/tts/health`);
  await waitPortsServing(sawt.ports, ["tts"]);
  grpcClients = clients(sawt.ports.grpc_tts);
  key = (await sawt.createKey({ name: "character-voice", rpm: 10_000 })).key;
});

afterAll(async () => {
  grpcClients?.close();
  await sawt?.stop("SIGKILL");
  dir.remove();
});

function speak(body: Record<string, unknown>): Promise<Response> {
  return postSpeech(sawt.baseUrl, key, { response_format: "pcm", ...body });
}

/** Sends one message on the TTS WebSocket and collects its frames until an end or error frame. */
function overWebSocket(body: Record<string, unknown>): Promise<Array<Record<string, unknown>>> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${sawt.baseUrl.replace("http", "ws")}/v1/tts/ws`, {
      headers: { "X-API-Key": key },
    } as unknown as string[]);
    const frames: Array<Record<string, unknown>> = [];
    ws.binaryType = "arraybuffer";
    ws.onopen = () => ws.send(JSON.stringify(body));
    ws.onmessage = (event) => {
      const frame =
        typeof event.data === "string" ? (JSON.parse(event.data) as Record<string, unknown>) : { type: "audio" };
      frames.push(frame);
      if (frame.type === "end" || frame.type === "error") {
        ws.close();
        resolve(frames);
      }
    };
    ws.onerror = () => reject(new Error("websocket error"));
  });
}

describe("REST speech with a character-level Arabic voice", () => {
  test("does answer 400 naming the Piper text voice when the input is Latin text", async () => {
    const response = await speak({ input: LATIN, voice: "Sherine" });
    expect(response.status).toBe(400);
    expect(response.headers.get("content-type")).toStartWith("application/json");
    expect(await response.json()).toEqual({ ...BAD_REQUEST, detail: SHERINE_DETAIL });
  });

  test("does answer 400 naming the sherpa-onnx VITS voice when the input is Latin text", async () => {
    const response = await speak({ input: LATIN, voice: "Myriam" });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ ...BAD_REQUEST, detail: MYRIAM_DETAIL });
  });

  test("does answer 400 before any event when SSE is asked for and the input is Latin text", async () => {
    const response = await speak({ input: LATIN, voice: "Sherine", stream_format: "sse" });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ ...BAD_REQUEST, detail: SHERINE_DETAIL });
  });

  test("does answer 400 on the v1 route when the text is Latin", async () => {
    const response = await fetch(`${sawt.baseUrl}/synthesize`, {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json" },
      body: JSON.stringify({ text: LATIN, speaker: "Sherine" }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ ...BAD_REQUEST, detail: SHERINE_DETAIL });
  });

  test("does speak when the input is Arabic text", async () => {
    const response = await speak({ input: "مرحبا بكم", voice: "Sherine" });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-tts-engine")).toBe("piper");
    expect((await response.arrayBuffer()).byteLength).toBeGreaterThan(0);
  });

  test("does speak the Arabic when Latin text holds an Arabic word", async () => {
    const response = await speak({ input: `${LATIN} مرحبا`, voice: "Myriam" });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-tts-engine")).toBe("vits");
    expect((await response.arrayBuffer()).byteLength).toBeGreaterThan(0);
  });
});

describe("TTS WebSocket with a character-level Arabic voice", () => {
  test("does send one 400 error frame and no audio when the input is Latin text", async () => {
    const frames = await overWebSocket({ input: LATIN, voice: "Sherine" });
    expect(frames).toEqual([{ type: "error", status: 400, ...BAD_REQUEST, detail: SHERINE_DETAIL }]);
  });

  test("does start and end a synthesis when the input is Arabic text", async () => {
    const frames = await overWebSocket({ input: "مرحبا بكم", voice: "Sherine" });
    expect(frames[0]).toMatchObject({ type: "start", voice: "Sherine", engine: "piper" });
    expect(frames.at(-1)).toMatchObject({ type: "end" });
  });
});

describe("gRPC TextToSpeech with a character-level Arabic voice", () => {
  test("does answer INVALID_ARGUMENT naming the voice on Synthesize when the text is Latin", async () => {
    const outcome = await unary(grpcClients.tts, "Synthesize", { text: LATIN, voice: "Myriam" }, bearer(key));
    expect(outcome.error?.code).toBe(3);
    expect(outcome.error?.details).toBe(MYRIAM_DETAIL);
  });

  test("does answer INVALID_ARGUMENT with no message on SynthesizeOnline when the text is Latin", async () => {
    const online = await collect(grpcClients.tts.SynthesizeOnline({ text: LATIN, voice: "Sherine" }, bearer(key)));
    expect(online.messages).toHaveLength(0);
    expect(online.error?.code).toBe(3);
    expect(online.error?.details).toBe(SHERINE_DETAIL);
  });

  test("does synthesize on Synthesize when the text is Arabic", async () => {
    const outcome = await unary(grpcClients.tts, "Synthesize", { text: "مرحبا بكم", voice: "Myriam" }, bearer(key));
    expect(outcome.error).toBeUndefined();
    expect(outcome.response?.resolution.engine).toBe("vits");
    expect(outcome.response?.audio.length).toBeGreaterThan(0);
  });
});
