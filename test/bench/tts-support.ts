/**
 * Shared pieces of the TTS benchmarks: medians, a constructed text-phoneme voice pack, the raw
 * onnxruntime session that is the physical floor under the service, and a WebSocket client that
 * times the first audio frame. Not a benchmark itself (run.ts only runs *.bench.ts).
 */
import "../support/families.ts";
import { join } from "node:path";
import type { InferenceSession, Tensor } from "onnxruntime-node";
import { loadOrt } from "../../src/onnx/ort.ts";
import { prepareText } from "../../src/tts/frontend/index.ts";
import { writePiperPack } from "../support/models/tone-voice.ts";
import { ARABIC_TEXT_SYMBOLS, expectedIds, idMap } from "../tts/support.ts";

/** The text voice's id map (Arabic letters, harakat, digits, punctuation). */
export const TEXT_MAP = idMap(ARABIC_TEXT_SYMBOLS);

/** A short request: one sentence of a few words. */
export const SHORT_INPUT = "مرحبا بكم في خدمة العملاء";

/** A multi-sentence request (numbers included, so the front-end does real work). */
export const MULTI_INPUT = [
  "مرحبا بكم في خدمة العملاء، كيف يمكنني مساعدتك اليوم؟",
  "رصيد حسابك الحالي 1250 ريال، وآخر عملية كانت في 14 مارس.",
  "يرجى الانتظار قليلا حتى نحول مكالمتك إلى الموظف المختص.",
  "شكرا لاتصالك بنا، نتمنى لك يوما سعيدا!",
].join(" ");

/**
 * POSTs a speech request (`body`, JSON text) to a running server with `key`; resolves to the
 * response bytes, rejects naming the status on anything but 200.
 */
export async function postSpeech(baseUrl: string, key: string, body: string): Promise<ArrayBuffer> {
  const response = await fetch(`${baseUrl}/v1/tts/audio/speech`, {
    method: "POST",
    headers: { "content-type": "application/json", "X-API-Key": key },
    body,
  });
  if (response.status !== 200) throw new Error(`HTTP ${response.status}: ${await response.text()}`);
  return response.arrayBuffer();
}

export { median } from "./closed-loop.ts";

/** Runs `fn` `warmup` times untimed, then `runs` times; the wall time of each timed run in ms. */
export async function timeRuns(runs: number, warmup: number, fn: () => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await fn();
    times.push(performance.now() - started);
  }
  return times;
}

/** Writes the 16 kHz text-phoneme tone voice as `yara/` under `modelsDir`; returns the model path. */
export async function writeTextVoice(modelsDir: string): Promise<string> {
  const pack = await writePiperPack(join(modelsDir, "yara"), {
    name: "ar_bench-text",
    sampleRate: 16000,
    phonemeIdMap: TEXT_MAP,
    phonemeType: "text",
  });
  return pack.modelPath;
}

/**
 * The id sequence of each sentence of `text`, computed as the Piper rules say (written apart
 * from the service: front-end sentences, NFD code points, `^ _ (p _)* $`).
 */
export function sentenceIds(text: string): number[][] {
  return prepareText(text, "ar").map((s) => expectedIds(Array.from(s.text.normalize("NFD")), TEXT_MAP));
}

/** A bare onnxruntime session on `modelPath` with the options Sawt's session worker uses (1 thread unless told). */
export async function rawSession(
  modelPath: string,
  threads = 1,
): Promise<{ run(ids: readonly number[]): Promise<number>; release(): Promise<void> }> {
  const ort = await loadOrt();
  const session: InferenceSession = await ort.InferenceSession.create(modelPath, {
    executionProviders: ["cpu"],
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    graphOptimizationLevel: "all",
    logSeverityLevel: 3,
    extra: { session: { intra_op: { allow_spinning: "0" }, inter_op: { allow_spinning: "0" } } },
  });
  return {
    /** One inference as the service feeds it (noise 0.667, length 1, noise_w 0.8); the sample count. */
    async run(ids) {
      const feeds: Record<string, Tensor> = {
        input: new ort.Tensor("int64", BigInt64Array.from(ids, BigInt), [1, ids.length]),
        input_lengths: new ort.Tensor("int64", BigInt64Array.of(BigInt(ids.length)), [1]),
        scales: new ort.Tensor("float32", Float32Array.of(0.667, 1, 0.8), [3]),
      };
      const out = await session.run(feeds);
      return (out.output as Tensor).data.length;
    },
    release: () => session.release(),
  };
}

/** Times of one WebSocket synthesis: to the first binary frame and to the end message (ms), and the PCM bytes. */
export interface SocketTiming {
  readonly firstAudioMs: number;
  readonly totalMs: number;
  readonly bytes: number;
}

/** Opens a socket to `url` with `key`, sends `request` once open, and times from the send. */
export function speakTimed(url: string, key: string, request: Record<string, unknown>): Promise<SocketTiming> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers: { "X-API-Key": key } } as unknown as string[]);
    ws.binaryType = "arraybuffer";
    let sent = 0;
    let firstAudioMs = -1;
    let bytes = 0;
    ws.onopen = () => {
      sent = performance.now();
      ws.send(JSON.stringify(request));
    };
    ws.onmessage = (event) => {
      if (typeof event.data !== "string") {
        if (firstAudioMs < 0) firstAudioMs = performance.now() - sent;
        bytes += (event.data as ArrayBuffer).byteLength;
        return;
      }
      const message = JSON.parse(event.data) as { type?: string };
      if (message.type === "end") {
        const totalMs = performance.now() - sent;
        ws.close();
        resolve({ firstAudioMs, totalMs, bytes });
      } else if (message.type === "error") {
        ws.close();
        reject(new Error(`websocket synthesis failed: ${event.data}`));
      }
    };
    ws.onerror = () => reject(new Error("websocket error"));
  });
}
