/**
 * The soak's HTTP rows: REST speech (WAV and MP3), an upload transcription, a malformed body, the
 * TTS WebSocket and the realtime transcription WebSocket, each checked against its contract.
 */
import { uploadForm } from "../../rest/support.ts";
import type { Box } from "../box.ts";
import { Breach, httpOutcome, type SoakRow } from "./row.ts";

const TEXT = "مرحبا بكم";

export const restSpeech: SoakRow = {
  name: "REST speech",
  async call(box, i) {
    const response = await fetch(`${box.sawt.baseUrl}/v1/tts/audio/speech`, {
      method: "POST",
      headers: { "x-api-key": box.key, "content-type": "application/json" },
      body: JSON.stringify({ input: `${TEXT} ${i % 10}`, response_format: i % 3 === 0 ? "mp3" : "wav" }),
    });
    const bytes = (await response.arrayBuffer()).byteLength;
    const outcome = httpOutcome("speech", response.status, [200]);
    if (outcome === "200" && bytes < 100) throw new Breach(`speech 200 with ${bytes} bytes`);
    return outcome;
  },
};

export const restTranscription: SoakRow = {
  name: "REST transcription",
  async call(box) {
    const response = await fetch(`${box.sawt.baseUrl}/v1/asr/audio/transcriptions`, {
      method: "POST",
      headers: { "x-api-key": box.key },
      body: uploadForm({ name: "a.wav", data: box.wav }),
    });
    const body = await response.text();
    const outcome = httpOutcome("transcription", response.status, [200]);
    if (outcome === "200" && JSON.parse(body).text !== "مرحبا")
      throw new Breach(`transcription read ${body.slice(0, 80)}`);
    return outcome;
  },
};

export const restMalformed: SoakRow = {
  name: "REST malformed body",
  async call(box) {
    const response = await fetch(`${box.sawt.baseUrl}/v1/tts/audio/speech`, {
      method: "POST",
      headers: { "x-api-key": box.key },
      body: "{bad",
    });
    await response.arrayBuffer();
    return httpOutcome("a malformed body", response.status, [400, 422]);
  },
};

/** Opens a WebSocket with the key; resolves it open, or rejects when it closes first. */
function socket(box: Box, path: string): Promise<WebSocket> {
  const ws = new WebSocket(`${box.sawt.baseUrl.replace(/^http/, "ws")}${path}`, {
    headers: { "x-api-key": box.key },
  } as unknown as string[]);
  ws.binaryType = "arraybuffer";
  return new Promise((resolve, reject) => {
    ws.onopen = () => resolve(ws);
    ws.onclose = (e) => reject(new Breach(`${path} closed before opening: ${e.code}`));
  });
}

/** Resolves the first JSON event `accept` takes; rejects on close or after `ms`. */
function event(ws: WebSocket, accept: (e: Record<string, any>) => boolean, ms = 30_000): Promise<Record<string, any>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Breach("no event in time")), ms);
    ws.addEventListener("message", (m) => {
      if (typeof m.data !== "string") return;
      const parsed = JSON.parse(m.data) as Record<string, any>;
      if (accept(parsed)) {
        clearTimeout(timer);
        resolve(parsed);
      }
    });
    ws.addEventListener("close", (e) => {
      clearTimeout(timer);
      reject(new Breach(`closed ${e.code} ${e.reason}`));
    });
  });
}

export const ttsWebSocket: SoakRow = {
  name: "TTS WebSocket",
  async call(box, i) {
    const ws = await socket(box, "/v1/tts/ws");
    try {
      const done = event(ws, (e) => e.type === "end" || e.type === "error");
      ws.send(JSON.stringify({ input: `${TEXT} ${i % 10}` }));
      const last = await done;
      if (last.type === "end") return "end";
      if (last.status === 503) return "busy";
      throw new Breach(`TTS WebSocket error ${JSON.stringify(last).slice(0, 120)}`);
    } finally {
      ws.close();
    }
  },
};

export const realtimeAsr: SoakRow = {
  name: "realtime ASR",
  async call(box) {
    const ws = await socket(box, "/v1/asr/realtime");
    try {
      const updated = event(ws, (e) => e.type === "session.updated" || e.type === "error");
      ws.send(
        JSON.stringify({
          type: "session.update",
          session: {
            type: "transcription",
            audio: { input: { format: { type: "audio/pcm", rate: 16000 }, turn_detection: null } },
          },
        }),
      );
      const first = await updated;
      if (first.type === "error") return realtimeError(first);
      const done = event(
        ws,
        (e) => e.type === "conversation.item.input_audio_transcription.completed" || e.type === "error",
      );
      for (let at = 0; at < box.pcm.length; at += 640)
        ws.send(
          JSON.stringify({
            type: "input_audio_buffer.append",
            audio: Buffer.from(box.pcm.subarray(at, at + 640)).toString("base64"),
          }),
        );
      ws.send(JSON.stringify({ type: "input_audio_buffer.commit" }));
      const last = await done;
      if (last.type === "error") return realtimeError(last);
      if (last.transcript !== "مرحبا") throw new Breach(`realtime read ${JSON.stringify(last.transcript)}`);
      return "completed";
    } finally {
      ws.close();
    }
  },
};

function realtimeError(e: Record<string, any>): string {
  if (/busy/i.test(JSON.stringify(e))) return "busy";
  throw new Breach(`realtime error ${JSON.stringify(e).slice(0, 160)}`);
}
