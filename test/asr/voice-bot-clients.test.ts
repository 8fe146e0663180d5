/**
 * Issue 40, speech to text: the frameworks' real clients from npm, unmodified, pointed at a real
 * `sawt serve` only by their base-URL option, with the tone CTC recogniser (exact transcripts):
 *
 * - `@livekit/agents-plugin-deepgram@1.9.0`'s streaming STT (as its own tests drive it, no LiveKit
 *   server): interim results before each final, finals whose text is Sawt's REST transcription of
 *   the same audio, SpeechStarted, and UtteranceEnd when asked (with endpointing off, the plugin's
 *   end of speech can only come from UtteranceEnd);
 * - `@livekit/agents-plugin-openai@1.9.0`'s realtime STT: a model name OpenAI's own server does not
 *   know (in the URL and the session), `languages`/`keywords` instead of `language`, and no error
 *   event (the plugin ends on any); the final equals REST;
 * - `@deepgram/sdk@5.13.0`: pre-recorded (transcribeFile equals REST; transcribeUrl is refused, as
 *   Sawt fetches nothing) and live.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { DeepgramClient } from "@deepgram/sdk";
import { initializeLogger, stt } from "@livekit/agents";
import { STT as DeepgramSTT } from "@livekit/agents-plugin-deepgram";
import { STT as OpenAISTT } from "@livekit/agents-plugin-openai";
import { AudioFrame } from "@livekit/rtc-node";
import { letterToneAudio } from "../support/models/ctc.ts";
import { until, type SawtProcess } from "../support/sawt.ts";
import { pcm16 } from "./format-support.ts";
import { concat, encodeFile, ENCODINGS, modelsDir, silence, startToneCtcSawt } from "./support.ts";

const UTTERANCES = ["سلام عليكم", "مرحبا بكم"];
/** Two utterances a second and a half apart, at `rate`. */
const speech = (rate = 16000) =>
  concat(
    silence(0.5, rate),
    letterToneAudio(UTTERANCES[0]!, rate),
    silence(1.5, rate),
    letterToneAudio(UTTERANCES[1]!, rate),
    silence(1, rate),
  );

let models: ReturnType<typeof modelsDir>;
let sawt: SawtProcess;
let key: string;

beforeAll(async () => {
  initializeLogger({ pretty: false, level: "warn" });
  ({ models, sawt } = await startToneCtcSawt({ SAWT_STREAMING_PARTIAL_INTERVAL_MS: "300" }));
  key = (await sawt.createKey({ name: "voice-bots", rpm: 10_000 })).key;
});

afterAll(async () => {
  await sawt?.stop("SIGKILL");
  models?.remove();
});

/** Sawt's own REST transcription of `audio` (a WAV upload), its text. */
async function restText(audio: Float32Array, rate: number): Promise<string> {
  const path = encodeFile(audio, rate, join(models.dir, `rest-${rate}-${audio.length}.wav`), ENCODINGS.wav!);
  const form = new FormData();
  form.append("file", Bun.file(path), "call.wav");
  const response = await fetch(`${sawt.baseUrl}/v1/asr/audio/transcriptions`, {
    method: "POST",
    headers: { "x-api-key": key },
    body: form,
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { text: string }).text;
}

/** An event a plugin stream gave, and when. */
interface Heard {
  readonly type: string;
  readonly text: string;
  readonly at: number;
}

/**
 * Pushes `audio` into a plugin stream in 20 ms frames, twice as fast as real time, and reads its
 * events until `done` says so (or 20 s pass).
 */
async function drive(
  stream: stt.SpeechStream,
  audio: Float32Array,
  rate: number,
  done: (heard: Heard[]) => boolean,
): Promise<Heard[]> {
  const samples = new Int16Array(pcm16(audio).buffer.slice(0));
  const frame = rate / 50;
  const started = performance.now();
  let stop = false;
  const pushing = (async () => {
    for (let at = 0; at < samples.length && !stop; at += frame) {
      const chunk = samples.slice(at, at + frame);
      stream.pushFrame(new AudioFrame(chunk, rate, 1, chunk.length));
      await Bun.sleep(10);
    }
  })();
  const heard: Heard[] = [];
  const events = stream[Symbol.asyncIterator]();
  const deadline = started + 20_000;
  while (!done(heard) && performance.now() < deadline) {
    const next = await Promise.race([events.next(), Bun.sleep(deadline - performance.now()).then(() => null)]);
    if (next === null || next.done) break;
    const event = next.value;
    heard.push({
      type: stt.SpeechEventType[event.type] ?? String(event.type),
      text: event.alternatives?.[0]?.text ?? "",
      at: performance.now() - started,
    });
  }
  stop = true;
  await pushing;
  stream.close();
  return heard;
}

const finals = (heard: Heard[]) => heard.filter((e) => e.type === "FINAL_TRANSCRIPT").map((e) => e.text);
const ends = (heard: Heard[]) => heard.filter((e) => e.type === "END_OF_SPEECH").length;
const wsBase = () => sawt.baseUrl.replace(/^http/, "ws");

describe("@livekit/agents-plugin-deepgram@1.9.0 streaming STT against sawt serve", () => {
  test("does give interim results before each final, finals equal to REST, and SpeechStarted", async () => {
    const audio = speech();
    const rest = await restText(audio, 16000);
    expect(rest).toBe(UTTERANCES.join(" "));
    // The plugin's own defaults (nova-3, endpointing 25 ms, smart_format, interim results,
    // vad_events); only the base URL, the key and the language are set.
    const plugin = new DeepgramSTT({ apiKey: key, baseUrl: wsBase(), language: "ar" });
    const heard = await drive(plugin.stream(), audio, 16000, (h) => ends(h) === 2);
    expect(finals(heard).join(" ")).toBe(rest);
    const types = heard.map((e) => e.type);
    // Each utterance: speech starts, interim results come, then its final and the end of speech.
    for (const [n, final] of types.flatMap((t, i) => (t === "FINAL_TRANSCRIPT" ? [i] : [])).entries()) {
      const from = n === 0 ? 0 : types.indexOf("END_OF_SPEECH");
      expect(types.slice(from, final)).toContain("INTERIM_TRANSCRIPT");
      expect(types.slice(from, final)).toContain("START_OF_SPEECH");
      expect(types[final + 1]).toBe("END_OF_SPEECH");
    }
  }, 60_000);

  test("does send SpeechStarted at the speech's start and UtteranceEnd after the last word (endpointing off)", async () => {
    const audio = speech();
    // endpointing 0 is sent as endpointing=false: no speech_final, so the plugin's END_OF_SPEECH can
    // only come from UtteranceEnd; without interim results, its START_OF_SPEECH long before the
    // final can only come from SpeechStarted.
    const plugin = new DeepgramSTT({
      apiKey: key,
      baseUrl: wsBase(),
      language: "ar-SA",
      interimResults: false,
      endpointing: 0,
      utteranceEndMs: 1000,
    });
    const heard = await drive(plugin.stream(), audio, 16000, (h) => ends(h) === 2);
    expect(finals(heard).join(" ")).toBe(await restText(audio, 16000));
    expect(heard.map((e) => e.type).filter((t) => t !== "RECOGNITION_USAGE")).toEqual([
      "START_OF_SPEECH",
      "FINAL_TRANSCRIPT",
      "END_OF_SPEECH",
      "START_OF_SPEECH",
      "FINAL_TRANSCRIPT",
      "END_OF_SPEECH",
    ]);
    const first = heard.find((e) => e.type === "START_OF_SPEECH")!;
    const final = heard.find((e) => e.type === "FINAL_TRANSCRIPT")!;
    // The first utterance lasts about a second and a half of audio (0.75 s of pushing).
    expect(final.at - first.at).toBeGreaterThan(500);
  }, 60_000);
});

describe("@livekit/agents-plugin-openai@1.9.0 realtime STT against sawt serve", () => {
  test.each<[string, string, Partial<ConstructorParameters<typeof OpenAISTT>[0]>]>([
    ["gpt-4o-transcribe", "language", {}],
    ["gpt-transcribe", "languages and keywords", { keywords: ["سلام"] }],
    ["gpt-4o-mini-transcribe", "semantic_vad", { turnDetection: { type: "semantic_vad", eagerness: "high" } }],
  ] as const)(
    "does transcribe with model %s (sending %s) and no error event, the final equal to REST",
    async (model, _, options) => {
      const audio = concat(silence(0.5, 24000), letterToneAudio(UTTERANCES[0]!, 24000), silence(1.2, 24000));
      const plugin = new OpenAISTT({ apiKey: key, baseURL: `${sawt.baseUrl}/v1`, model, language: "ar", ...options });
      const heard = await drive(plugin.stream(), audio, 24000, (h) => finals(h).length === 1);
      expect(finals(heard)).toEqual([await restText(audio, 24000)]);
      expect(heard.map((e) => e.type)).toContain("INTERIM_TRANSCRIPT");
    },
    60_000,
  );
});

describe("@deepgram/sdk@5.13.0 against sawt serve", () => {
  const client = () => new DeepgramClient({ apiKey: key, baseUrl: sawt.baseUrl });

  test("does transcribe a recording with transcribeFile as REST does, words and metadata included", async () => {
    const audio = speech();
    const path = encodeFile(audio, 16000, join(models.dir, "sdk.wav"), ENCODINGS.wav!);
    const response = (await client().listen.v1.media.transcribeFile(await Bun.file(path).bytes(), {
      model: "nova-3",
      language: "ar",
    })) as any;
    const alternative = response.results.channels[0].alternatives[0];
    expect(alternative.transcript).toBe(await restText(audio, 16000));
    expect(alternative.words.map((w: { word: string }) => w.word)).toEqual(alternative.transcript.split(" "));
    expect(response.metadata).toMatchObject({ channels: 1, duration: 6.52 });
    expect(response.metadata.request_id).toBeString();
  }, 60_000);

  test("does refuse transcribeUrl with Deepgram's 400 body, fetching nothing", async () => {
    const error = await client()
      .listen.v1.media.transcribeUrl({ url: "http://127.0.0.1:9/never.wav" })
      .then(() => null)
      .catch((e: unknown) => e as { statusCode?: number; body?: Record<string, unknown> });
    expect(error?.statusCode).toBe(400);
    expect(error?.body).toMatchObject({ err_code: "Bad Request", err_msg: expect.stringContaining("URL") });
  });

  test("does transcribe live: finals equal to REST, then Metadata and a normal close", async () => {
    const audio = speech();
    const socket = await client().listen.v1.connect({
      model: "nova-3",
      language: "ar",
      encoding: "linear16",
      sample_rate: 16000,
      interim_results: "true",
      reconnectAttempts: 0,
    } as never);
    const messages: any[] = [];
    let closed: number | undefined;
    socket.on("message", (message: any) => messages.push(message));
    socket.on("close", (event: { code: number }) => (closed = event.code));
    socket.connect();
    await socket.waitForOpen();
    const pcm = pcm16(audio);
    for (let at = 0; at < pcm.length; at += 3200) {
      socket.sendMedia(pcm.subarray(at, at + 3200));
      await Bun.sleep(25);
    }
    socket.sendCloseStream({ type: "CloseStream" });
    await until(() => closed !== undefined, "the close");
    const results = messages.filter((m) => m.type === "Results");
    const transcripts = results.filter((m) => m.is_final).map((m) => m.channel.alternatives[0].transcript);
    expect(transcripts.filter((t) => t !== "").join(" ")).toBe(await restText(audio, 16000));
    expect(results.some((m) => !m.is_final)).toBe(true);
    expect(messages.at(-1)).toMatchObject({ type: "Metadata", channels: 1, duration: 6.52 });
    expect(closed).toBe(1000);
  }, 60_000);
});
