/**
 * Realtime server VAD over the real Silero VAD pack (installed beside the tone CTC recogniser) on
 * real speech (the shared recording where it is, else Sawt's own espeak-ng speech): speech_started / speech_stopped alternate, each utterance is
 * committed and completed, and OpenAI's `threshold` is honoured (a near-1 threshold hears less).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { parseWavHeader } from "../../src/audio/wav.ts";
import { writeToneCtcPack } from "../support/models/ctc.ts";
import { startSawt, until, type SawtProcess } from "../support/sawt.ts";
import { englishSpeech } from "../support/fixtures/speech.ts";
import { installSilero, modelsDir } from "./support.ts";
import { connect } from "./ws-client.ts";

/** The English speech of this run (16 kHz mono s16le WAV: the shared recording, else Sawt's own), first 8 s. */
async function realSpeech(): Promise<Uint8Array> {
  const bytes = await Bun.file(englishSpeech().wav).bytes();
  const info = parseWavHeader(bytes);
  return bytes.subarray(info.dataOffset, info.dataOffset + 16000 * 2 * 8);
}

let models: ReturnType<typeof modelsDir>;
let sawt: SawtProcess;
let key: string;

beforeAll(async () => {
  models = modelsDir();
  await writeToneCtcPack(join(models.dir, "tone-ctc"));
  installSilero(models.dir);
  sawt = await startSawt({ env: { SAWT_MODELS_DIR: models.dir, SAWT_STREAMING_PARTIAL_INTERVAL_MS: "0" } });
  key = (await sawt.createKey({ name: "silero", rpm: 10_000 })).key;
  // The ASR engine loads its packs after the ports are bound: wait until it serves.
  await until(async () => (await fetch(`${sawt.baseUrl}/v1/asr/health`)).status === 200, "the ASR engine to be ready", {
    timeoutMs: 30_000,
  });
});

afterAll(async () => {
  await sawt?.stop("SIGKILL");
  models?.remove();
});

/** Streams the speech with server VAD at `threshold`; returns the events once the stream is finished. */
async function run(threshold: number) {
  const client = await connect(`${sawt.baseUrl.replace(/^http/, "ws")}/v1/asr/realtime`, {
    headers: { "x-api-key": key },
  });
  client.sendJson({
    type: "session.update",
    session: {
      type: "transcription",
      audio: {
        input: {
          format: { type: "audio/pcm", rate: 16000 },
          turn_detection: { type: "server_vad", threshold, silence_duration_ms: 300 },
        },
      },
    },
  });
  await client.next("session.updated");
  const pcm = await realSpeech();
  for (let at = 0; at < pcm.length; at += 640)
    client.sendJson({
      type: "input_audio_buffer.append",
      audio: Buffer.from(pcm.subarray(at, at + 640)).toString("base64"),
    });
  // One second of silence ends any open speech.
  client.sendJson({ type: "input_audio_buffer.append", audio: Buffer.from(new Uint8Array(32000)).toString("base64") });
  const stops = () => client.events.filter((e) => e.type === "input_audio_buffer.speech_stopped").length;
  const completions = () =>
    client.events.filter((e) => e.type === "conversation.item.input_audio_transcription.completed").length;
  await Bun.sleep(200);
  await until(() => completions() === stops() && client.events.length > 1, "every utterance completed");
  await Bun.sleep(300);
  client.ws.close();
  return client.events;
}

test("does bracket real speech with speech_started/stopped from Silero and honour the threshold", async () => {
  const health = (await (await fetch(`${sawt.baseUrl}/v1/asr/health`)).json()) as { vad: string };
  expect(health.vad).toStartWith("silero");
  const events = await run(0.5);
  const vad = events.filter((e) => e.type.startsWith("input_audio_buffer.speech_"));
  expect(events.filter((e) => e.type === "error")).toEqual([]);
  expect(vad.length).toBeGreaterThanOrEqual(2);
  vad.forEach((e, i) =>
    expect(e.type).toBe(i % 2 === 0 ? "input_audio_buffer.speech_started" : "input_audio_buffer.speech_stopped"),
  );
  for (let i = 0; i + 1 < vad.length; i += 2) {
    expect(vad[i + 1].item_id).toBe(vad[i].item_id);
    expect(vad[i + 1].audio_end_ms).toBeGreaterThan(vad[i].audio_start_ms);
  }
  const strict = await run(0.999);
  const heard = (list: any[]) => {
    const v = list.filter((e) => e.type.startsWith("input_audio_buffer.speech_"));
    let total = 0;
    for (let i = 0; i + 1 < v.length; i += 2) total += v[i + 1].audio_end_ms - v[i].audio_start_ms;
    return total;
  };
  expect(heard(strict)).toBeLessThan(heard(events));
});
