/**
 * The Moonshine family on the real published model (Moonshine tiny, English, from the npm
 * registry by pinned version and SHA-256): English speech decodes to the words spoken (within a
 * word error rate on Sawt's own espeak-ng speech; exactly the reference tokens and text of the
 * shared recording where it is beside the checkout), directly and over the real server's REST
 * endpoint uploaded as wav, mp3 and ogg, and through the realtime endpoint. The tokenizer's byte fallback, the token-rate cap and pack validation are checked on
 * small inputs.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { decodeAudioFile } from "../../src/audio/decode.ts";
import { configureMoonshine } from "../../src/asr/moonshine/config.ts";
import { MoonshineRecognizer, moonshineTokenBudget } from "../../src/asr/moonshine/pipeline.ts";
import { decodeMoonshineTokens, parseMoonshineTokenizer } from "../../src/asr/moonshine/tokenizer.ts";
import { inspectAsrPacks } from "../../src/asr/packs.ts";
import { PackError } from "../../src/models/errors.ts";
import { packFiles } from "../../src/models/pack.ts";
import { ffmpegSync } from "../support/audio.ts";
import { englishSpeech, expectTranscript } from "../support/fixtures/speech.ts";
import { installMoonshineTiny } from "../support/models/moonshine.ts";
import { startSawt, type SawtProcess } from "../support/sawt.ts";
import { call, uploadForm } from "../rest/support.ts";
import { ENCODINGS, modelsDir } from "./support.ts";
import { connect } from "./ws-client.ts";
import { floatToInt16, int16ToBytes } from "../../src/audio/wav.ts";

const speech = englishSpeech();
let models: ReturnType<typeof modelsDir>;

beforeAll(() => {
  models = modelsDir();
  installMoonshineTiny(models.dir);
});

afterAll(() => models?.remove());

function pack(dir: string) {
  return packFiles("moonshine-tiny-en", dir, readdirSync(dir).sort());
}

describe("Moonshine on the real model", () => {
  test("does decode English speech to the words spoken, and the recording to exactly its reference tokens", async () => {
    const recognizer = await MoonshineRecognizer.load(
      configureMoonshine(pack(join(models.dir, "moonshine-tiny-en"))),
      "moonshine-tiny-en",
    );
    try {
      const { samples } = await decodeAudioFile(speech.wav, { maxDurationSeconds: 60, timeoutMs: 30_000 });
      const ids = await recognizer.tokens(samples);
      if (speech.reference) expect([1, ...ids, 2]).toEqual([...speech.reference.tokens]);
      expectTranscript(speech, (await recognizer.recognize(samples)).text);
    } finally {
      await recognizer.release();
    }
  }, 60_000);

  test("does list the pack as a Moonshine recogniser with its language", () => {
    const scan = inspectAsrPacks(models.dir);
    expect(scan.usable.map((p) => [p.name, p.family, p.role])).toEqual([
      ["moonshine-tiny-en", "moonshine", "recognizer"],
    ]);
    expect(scan.broken).toEqual([]);
  });
});

describe("Moonshine over the real server's REST endpoint", () => {
  let sawt: SawtProcess;
  let key: string;

  beforeAll(async () => {
    // Finals only on live doors: re-decoding a 20 s utterance every second would only slow this test.
    sawt = await startSawt({ env: { SAWT_MODELS_DIR: models.dir, SAWT_STREAMING_PARTIAL_INTERVAL_MS: "0" } });
    key = (await sawt.createKey({ name: "moonshine", rpm: 10_000 })).key;
    for (let i = 0; i < 600; i++) {
      if ((await fetch(`${sawt.baseUrl}/v1/asr/health`)).status === 200) break;
      await Bun.sleep(100);
    }
  }, 90_000);

  afterAll(async () => {
    await sawt?.stop();
  });

  // Ogg Vorbis at quality 8: the tiny model's "Sonny" is on a knife's edge against "sonny" under
  // lossy coding (Vorbis q6/q10 and Opus 96k flip that one letter's case); q8 keeps it, as mp3 at
  // 128k does. The point here is Sawt's decode path, not the codec's noise.
  const uploads: Record<string, readonly string[]> = {
    wav: ENCODINGS.wav!,
    mp3: ENCODINGS.mp3!,
    ogg: ["-c:a", "libvorbis", "-q:a", "8", "-f", "ogg"],
  };

  test.each(["wav", "mp3", "ogg"])(
    "does transcribe the speech uploaded as %s to the words spoken",
    async (extension) => {
      const path = join(models.dir, `speech.${extension}`);
      ffmpegSync(["-i", speech.wav, ...uploads[extension]!, path]);
      const reply = await call(`${sawt.baseUrl}/v1/asr/audio/transcriptions`, {
        method: "POST",
        headers: { "X-API-Key": key },
        body: uploadForm({ name: `speech.${extension}`, data: readFileSync(path) }, { response_format: "json" }),
      });
      expect(reply.status).toBe(200);
      expectTranscript(speech, reply.json.text);
    },
    60_000,
  );

  test("does give the final text of the speech through the realtime endpoint when the client commits the whole file", async () => {
    const decoded = await decodeAudioFile(speech.wav, {});
    const client = await connect(`${sawt.baseUrl.replace(/^http/, "ws")}/v1/realtime?intent=transcription`, {
      headers: { authorization: `Bearer ${key}` },
    });
    client.sendJson({
      type: "session.update",
      session: {
        type: "transcription",
        audio: { input: { format: { type: "audio/pcm", rate: 16000 }, turn_detection: null } },
      },
    });
    await client.next("session.updated");
    // 20 ms chunks, as a telephony bridge sends them, faster than real time.
    const bytes = int16ToBytes(floatToInt16(decoded.samples));
    for (let at = 0; at < bytes.length; at += 640) {
      client.sendJson({
        type: "input_audio_buffer.append",
        audio: Buffer.from(bytes.subarray(at, at + 640)).toString("base64"),
      });
      if (at % (640 * 50) === 0) await Bun.sleep(1);
    }
    client.sendJson({ type: "input_audio_buffer.commit" });
    const completed = await client
      .next("conversation.item.input_audio_transcription.completed")
      .catch((error: unknown) => {
        throw new Error(
          `${error}; events: ${JSON.stringify(client.events.map((e) => ({ ...e, delta: undefined })).slice(-5))}`,
        );
      });
    expectTranscript(speech, completed.transcript);
    client.ws.close();
  }, 60_000);
});

describe("Moonshine tokenizer and limits", () => {
  const vocabulary = parseMoonshineTokenizer(
    JSON.stringify({
      model: {
        type: "BPE",
        byte_fallback: true,
        vocab: { "<unk>": 0, "<s>": 1, "</s>": 2, "<0xD9>": 3, "<0x85>": 4, "▁Hi": 5, "!": 6, "▁": 7 },
      },
      added_tokens: [
        { id: 0, content: "<unk>", special: true },
        { id: 1, content: "<s>", special: true },
        { id: 2, content: "</s>", special: true },
      ],
    }),
  );

  test("does rebuild a character split over byte-fallback tokens and strip the leading space", () => {
    expect(decodeMoonshineTokens([1, 5, 6, 7, 3, 4, 2], vocabulary)).toBe("Hi! م");
  });

  test("does cap English at 6.5 tokens per second and other languages at 13", () => {
    expect(moonshineTokenBudget(20, "en")).toBe(130);
    expect(moonshineTokenBudget(20, "ar")).toBe(260);
    expect(moonshineTokenBudget(0.01, null)).toBe(1);
  });

  test("does refuse an .ort decoder without config.json and take one with it", () => {
    const dir = join(models.dir, "ort-pack");
    mkdirSync(dir, { recursive: true });
    for (const file of ["encoder_model.ort", "decoder_model_merged.ort"]) writeFileSync(join(dir, file), "flatbuffer");
    writeFileSync(join(dir, "tokenizer.json"), readFileSync(join(models.dir, "moonshine-tiny-en", "tokenizer.json")));
    expect(() => configureMoonshine(pack(dir))).toThrow(PackError);
    writeFileSync(
      join(dir, "config.json"),
      JSON.stringify({ decoder_num_hidden_layers: 6, decoder_num_attention_heads: 8, hidden_size: 288 }),
    );
    expect(configureMoonshine(pack(dir))).toMatchObject({ layers: 6, heads: 8, headDim: 36 });
  });
});
