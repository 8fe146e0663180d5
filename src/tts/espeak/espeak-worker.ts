/**
 * Worker entry: the one thread that owns libespeak-ng. espeak's calls are synchronous and its
 * state is process-global and not thread-safe, so the main thread never calls it: it posts
 * requests here (library.ts), which keeps HTTP, gRPC, health checks and timers responsive while
 * espeak phonemises or synthesises. Messages are handled one at a time in arrival order (each
 * handler is synchronous), so requests are served FIFO.
 *
 * A separate entry point of the compiled binary (installer/build.ts lists it).
 */
import { EspeakUnavailableError } from "./locate.ts";
import { openEspeak, UnknownVoiceError, type NativeEspeak } from "./native.ts";
import type { FromEspeakWorker, ToEspeakWorker, WireFailure } from "./protocol.ts";

declare const self: Worker;

// `sawt serve` starts this thread first, beside the main thread. Reading the local time zone here
// loads the process-wide zone data (5–10 ms) on this thread, where it costs start-up nothing;
// otherwise grpc-js's first timer would load it on the main thread before the ports bind (#19).
new Date().getTimezoneOffset();

let espeak: NativeEspeak | undefined;

function failure(error: unknown): WireFailure {
  if (error instanceof EspeakUnavailableError)
    return { kind: "unavailable", reason: error.reason, tried: [...error.tried] };
  const message = error instanceof Error ? error.message : String(error);
  return error instanceof UnknownVoiceError ? { kind: "voice", message } : { kind: "error", message };
}

function handle(request: ToEspeakWorker): { reply: FromEspeakWorker; transfer: Bun.Transferable[] } {
  const { id } = request;
  if (request.op === "close") {
    espeak?.close();
    espeak = undefined;
    return { reply: { id, ok: true, closed: true }, transfer: [] };
  }
  if (request.op === "open") {
    // The main thread opens before any other request; a failed load is retried by the next open.
    espeak ??= openEspeak(request.env);
    return { reply: { id, ok: true, info: espeak.info }, transfer: [] };
  }
  if (espeak === undefined) throw new Error("espeak-ng is not open");
  switch (request.op) {
    case "phonemize":
      return { reply: { id, ok: true, phonemes: espeak.phonemize(request.sentences, request.voice) }, transfer: [] };
    case "synthesize": {
      const samples = espeak.synthesize(request.text, request.settings);
      return {
        reply: { id, ok: true, samples, sampleRate: espeak.info.sampleRate },
        transfer: [samples.buffer as ArrayBuffer],
      };
    }
  }
}

self.onmessage = (event: MessageEvent<ToEspeakWorker>) => {
  const request = event.data;
  let answer: { reply: FromEspeakWorker; transfer: Bun.Transferable[] };
  try {
    answer = handle(request);
  } catch (error) {
    answer = { reply: { id: request.id, ok: false, failure: failure(error) }, transfer: [] };
  }
  self.postMessage(answer.reply, answer.transfer);
};
