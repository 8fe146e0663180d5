/**
 * The microphone, live: audio captured at 24 kHz, sent as pcm16 `input_audio_buffer.append`
 * events on the OpenAI Realtime transcription WebSocket (`/v1/realtime?intent=transcription`,
 * server VAD), partials (`…transcription.delta`, whose `transcript` is the whole current
 * hypothesis) shown as they come and finals (`…transcription.completed`) listed. The key goes in
 * the `openai-insecure-api-key.` subprotocol: a browser WebSocket cannot send headers.
 */
import { apiKey } from "./api.ts";
import { bdi, h, replace } from "./dom.ts";
import { t } from "./i18n.ts";

const RATE = 24000;

function base64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

function pcm16(samples: Float32Array): Uint8Array {
  const out = new Int16Array(samples.length);
  for (let i = 0; i < samples.length; i++) out[i] = Math.max(-1, Math.min(1, samples[i]!)) * 0x7fff;
  return new Uint8Array(out.buffer);
}

/** The microphone panel and its stop (also called when the page is left). */
export function micPanel(): { element: HTMLElement; stop: () => void } {
  const partial = h("p", { id: "mic-partial", class: "partial", "aria-live": "polite" });
  const finals = h("ol", { id: "mic-finals", class: "finals" });
  const status = h("p", { id: "mic-status", class: "status", role: "status" });
  const button = h("button", { type: "button", id: "mic-toggle", "aria-pressed": "false" }, t("micStart"));
  let stop: (() => void) | undefined;

  async function start(): Promise<void> {
    const stream = await navigator.mediaDevices.getUserMedia({ audio: { channelCount: 1 } });
    const context = new AudioContext({ sampleRate: RATE });
    const source = context.createMediaStreamSource(stream);
    // ScriptProcessor: deprecated, but it needs no worklet module (one more script to serve).
    const processor = context.createScriptProcessor(4096, 1, 1);
    const socket = new WebSocket(
      `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/v1/realtime?intent=transcription`,
      ["realtime", `openai-insecure-api-key.${apiKey() ?? ""}`],
    );
    const seen: string[] = [];
    socket.onmessage = (message) => {
      const event = JSON.parse(String(message.data)) as {
        type: string;
        transcript?: string;
        error?: { message?: string };
      };
      if (event.type === "conversation.item.input_audio_transcription.delta") {
        seen.push("partial");
        partial.dataset.count = String(seen.filter((s) => s === "partial").length);
        replace(partial, `${t("partial")}: `, bdi(event.transcript ?? ""));
      } else if (event.type === "conversation.item.input_audio_transcription.completed") {
        finals.append(h("li", { class: "final" }, bdi(event.transcript ?? "")));
        replace(partial);
      } else if (event.type === "error") status.textContent = event.error?.message ?? "error";
    };
    socket.onclose = (e) => {
      if (e.code !== 1000 && stop) status.textContent = `${e.code} ${e.reason}`;
    };
    processor.onaudioprocess = (e) => {
      if (socket.readyState !== WebSocket.OPEN) return;
      const audio = base64(pcm16(e.inputBuffer.getChannelData(0)));
      socket.send(JSON.stringify({ type: "input_audio_buffer.append", audio }));
    };
    source.connect(processor);
    // A processor only runs while connected to the output; it writes silence there.
    processor.connect(context.destination);
    stop = () => {
      stop = undefined;
      processor.disconnect();
      source.disconnect();
      for (const track of stream.getTracks()) track.stop();
      void context.close();
      socket.close(1000, "done");
      button.textContent = t("micStart");
      button.setAttribute("aria-pressed", "false");
    };
    button.textContent = t("micStop");
    button.setAttribute("aria-pressed", "true");
  }

  button.addEventListener("click", () => {
    if (stop) stop();
    else start().catch((error: unknown) => (status.textContent = String(error)));
  });
  const element = h(
    "section",
    { class: "card", id: "mic" },
    h("h2", {}, t("microphone")),
    button,
    status,
    partial,
    h("h3", {}, t("finals")),
    finals,
  );
  return { element, stop: () => stop?.() };
}
