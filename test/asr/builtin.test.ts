/**
 * The built-in recogniser (issue #32): the real Moonshine tiny English files (the same pins the
 * build embeds, src/asr/builtin/pins.ts) serve ASR with no pack installed. English transcription
 * works on REST, gRPC and the realtime door; `language=ar` with only the built-in one is a 400
 * naming what to install (never a silent English transcript); once an Arabic pack is installed,
 * Arabic requests (and requests without a language) go to it and English ones to the built-in.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { decodeAudioFile } from "../../src/audio/decode.ts";
import { encodeWav, floatToInt16, int16ToBytes } from "../../src/audio/wav.ts";
import { bearer, clients, unary, waitServing } from "../grpc/client.ts";
import { call, uploadForm } from "../rest/support.ts";
import { moonshineTinyPackDir } from "../support/fixtures/models.ts";
import { englishSpeech, expectTranscript, MAX_WORD_ERROR_RATE, wordErrorRate } from "../support/fixtures/speech.ts";
import { HF_WHISPER_SCRIPT, writeHfWhisperPack } from "../support/models/whisper-hf.ts";
import { ROOT, startSawt, tempDir, until, type SawtProcess } from "../support/sawt.ts";
import { concat, silence, sine } from "./support.ts";
import { initializeLogger, stt } from "@livekit/agents";
import { STT as DeepgramSTT } from "@livekit/agents-plugin-deepgram";
import { AudioFrame } from "@livekit/rtc-node";
import { connect } from "./ws-client.ts";

const speech = englishSpeech();
const work = tempDir("sawt-builtin-");
const models = join(work.path, "models");
let sawt: SawtProcess;
let key: string;

async function transcribe(fields: Record<string, string>, wav = readFileSync(speech.wav)) {
  return call(`${sawt.baseUrl}/v1/asr/audio/transcriptions`, {
    method: "POST",
    headers: { "X-API-Key": key },
    body: uploadForm({ name: "speech.wav", data: wav }, fields),
  });
}

beforeAll(async () => {
  mkdirSync(models, { recursive: true });
  sawt = await startSawt({
    env: {
      SAWT_MODELS_DIR: models,
      SAWT_ASR_BUILTIN: "true",
      // The built-in folder holds moonshine-tiny-en/: the test cache's verified copy of the pins.
      SAWT_BUILTIN_ASR_DIR: dirname(moonshineTinyPackDir()),
      SAWT_STREAMING_PARTIAL_INTERVAL_MS: "0",
    },
  });
  key = (await sawt.createKey({ name: "builtin", rpm: 10_000 })).key;
  await until(
    async () => ((await fetch(`${sawt.baseUrl}/v1/asr/health`)).status === 200 ? true : undefined),
    "ASR ready",
  );
}, 90_000);

afterAll(async () => {
  await sawt?.stop();
  work.remove();
});

describe("ASR out of the box", () => {
  test("does report ASR ready with the built-in recogniser and no pack installed", async () => {
    const health = (await (await fetch(`${sawt.baseUrl}/v1/asr/health`)).json()) as Record<string, any>;
    expect(health).toMatchObject({ status: "healthy", enabled: true, packs: [] });
    expect(health.hint).toContain("docs/arabic-models.md");
    expect(health.builtin_recognizer).toEqual({
      name: "builtin-moonshine-tiny-en",
      family: "moonshine",
      language: "en",
    });
  });

  test.each([[{}], [{ language: "en" }]])(
    "does transcribe English with the built-in recogniser (form %p)",
    async (fields) => {
      const reply = await transcribe({ ...fields, response_format: "json" });
      expect(reply.status).toBe(200);
      expect(reply.json.language).toBe("en");
      expectTranscript(speech, reply.json.text);
    },
    60_000,
  );

  test("does answer 400 naming what to install when Arabic is asked of the built-in recogniser", async () => {
    const reply = await transcribe({ language: "ar" });
    expect(reply.status).toBe(400);
    expect(reply.json.detail).toContain("no Arabic recogniser is installed");
    expect(reply.json.detail).toContain("docs/arabic-models.md");
  });

  test("does transcribe English over gRPC and the realtime door", async () => {
    const { samples } = await decodeAudioFile(speech.wav, {});
    const pcm = Buffer.from(int16ToBytes(floatToInt16(samples)));
    const port = clients(sawt.ports.grpc_asr);
    try {
      await waitServing(port.health, "sawt.asr.v1.SpeechRecognition");
      const en = await unary(
        port.asr,
        "Recognize",
        { config: { encoding: "LINEAR_PCM", sample_rate_hz: 16000, language: "en" }, audio: pcm },
        bearer(key),
      );
      expect(en.error).toBeUndefined();
      expectTranscript(speech, en.response.text);
      const ar = await unary(
        port.asr,
        "Recognize",
        { config: { encoding: "LINEAR_PCM", sample_rate_hz: 16000, language: "ar" }, audio: pcm },
        bearer(key),
      );
      expect(ar.error?.details).toContain("no Arabic recogniser is installed");
    } finally {
      port.close();
    }
    const client = await connect(`${sawt.baseUrl.replace(/^http/, "ws")}/v1/realtime?intent=transcription`, {
      headers: { authorization: `Bearer ${key}` },
    });
    client.sendJson({
      type: "session.update",
      session: {
        type: "transcription",
        audio: {
          input: {
            format: { type: "audio/pcm", rate: 16000 },
            turn_detection: null,
            transcription: { language: "en" },
          },
        },
      },
    });
    await client.next("session.updated");
    for (let at = 0; at < pcm.length; at += 32_000)
      client.sendJson({ type: "input_audio_buffer.append", audio: pcm.subarray(at, at + 32_000).toString("base64") });
    client.sendJson({ type: "input_audio_buffer.commit" });
    const completed = await client.next("conversation.item.input_audio_transcription.completed");
    expectTranscript(speech, completed.transcript);
    client.ws.close();
  }, 120_000);

  test("does give LiveKit's Deepgram plugin finals that are each REST's transcript of their own audio", async () => {
    // Real speech, the plugin's defaults (en-US, endpointing 25 ms: served as 300 ms); a recogniser
    // decodes each utterance on its own, so each final is compared with REST over that utterance.
    initializeLogger({ pretty: false, level: "warn" });
    const { samples } = await decodeAudioFile(speech.wav, {});
    const audio = concat(samples, silence(1));
    const stream = new DeepgramSTT({ apiKey: key, baseUrl: sawt.baseUrl.replace(/^http/, "ws") }).stream();
    const pcm = floatToInt16(audio);
    const pushing = (async () => {
      for (let at = 0; at < pcm.length; at += 320) {
        const chunk = pcm.slice(at, at + 320);
        stream.pushFrame(new AudioFrame(chunk, 16000, 1, chunk.length));
        if (at % 3200 === 0) await Bun.sleep(50);
      }
      stream.flush();
      stream.endInput();
    })();
    const finals: { text: string; start: number; end: number }[] = [];
    for await (const event of stream) {
      const alternative = event.alternatives?.[0];
      if (event.type === stt.SpeechEventType.FINAL_TRANSCRIPT && alternative)
        finals.push({ text: alternative.text, start: alternative.startTime, end: alternative.endTime });
    }
    await pushing;
    expect(finals.length).toBeGreaterThan(1);
    // Cut into utterances, the words may differ a little from one decode of the whole recording.
    expect(wordErrorRate(speech.text, finals.map((f) => f.text).join(" "))).toBeLessThanOrEqual(MAX_WORD_ERROR_RATE);
    for (const final of finals) {
      const clip = audio.slice(Math.round(final.start * 16000), Math.round(final.end * 16000));
      const reply = await transcribe({ language: "en" }, Buffer.from(encodeWav(clip, 16000)));
      expect({ final: final.text, rest: reply.json.text }).toEqual({ final: final.text, rest: final.text });
    }
  }, 120_000);

  test("does route Arabic to an installed Arabic pack and English to the built-in recogniser", async () => {
    await writeHfWhisperPack(join(models, "whisper-ar"), HF_WHISPER_SCRIPT);
    const admin = (await sawt.createKey({ name: "operator", admin: true })).key;
    const reload = await fetch(`${sawt.baseUrl}/v1/admin/models/reload`, {
      method: "POST",
      headers: { "X-API-Key": admin },
    });
    expect(reload.status).toBe(200);
    const health = (await (await fetch(`${sawt.baseUrl}/v1/asr/health`)).json()) as { packs: { name: string }[] };
    expect(health.packs.map((p) => p.name)).toEqual(["whisper-ar"]);
    const arabic = Buffer.from(encodeWav(floatToInt16(concat(silence(0.3), sine(500, 2), silence(0.3))), 16000));
    for (const fields of [{ language: "ar" }, {}] as Record<string, string>[]) {
      const reply = await transcribe({ ...fields, response_format: "json" }, arabic);
      expect(reply.status).toBe(200);
      expect(reply.json).toMatchObject({ text: "السلام عليكم", language: "ar" });
    }
    const english = await transcribe({ language: "en", response_format: "json" });
    expect(english.json.language).toBe("en");
    expectTranscript(speech, english.json.text);
  }, 120_000);

  test("does answer the README's quick-start transcription example", async () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const body = /-d '(\{"input":"[^']*"voice":"Yara_en"[^']*\})' -o hello-en\.wav/.exec(readme)?.[1];
    expect(body, "the README's English speech example").toBeDefined();
    expect(readme).toContain('/v1/asr/audio/transcriptions -H "X-API-Key: $key" -F file=@hello-en.wav -F language=en');
    const spoken = await fetch(`${sawt.baseUrl}/v1/tts/audio/speech`, {
      method: "POST",
      headers: { "X-API-Key": key, "content-type": "application/json" },
      body: body!,
    });
    expect(spoken.status).toBe(200);
    const reply = await transcribe({ language: "en" }, Buffer.from(await spoken.arrayBuffer()));
    expect(reply.status).toBe(200);
    const said = (JSON.parse(body!) as { input: string }).input;
    expect(wordErrorRate(said, reply.json.text)).toBeLessThanOrEqual(MAX_WORD_ERROR_RATE);
  }, 60_000);
});
