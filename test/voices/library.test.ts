import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { encodeWav } from "../../src/audio/wav.ts";
import { AppError } from "../../src/errors/taxonomy.ts";
import { createLogger } from "../../src/log/logger.ts";
import { openDatabase } from "../../src/store/database.ts";
import { KeyStore } from "../../src/store/keys.ts";
import { readSpeakerEncoderConfig } from "../../src/voices/encoder/config.ts";
import { SpeakerEncoder } from "../../src/voices/encoder/model.ts";
import { VoiceLibrary } from "../../src/voices/service.ts";
import { ClonedVoiceStore } from "../../src/voices/store.ts";
import { tone } from "../support/audio.ts";
import { SPEAKER_EMBEDDING_DIM, writeSpeakerEncoderPack } from "../support/models/speaker-encoder.ts";
import { tempDir } from "../support/sawt.ts";

const dir = tempDir("sawt-voices-");
const quiet = createLogger();
let encoder: SpeakerEncoder;
let counter = 0;

function sample(frequency: number, seconds: number): string {
  const path = join(dir.path, `sample-${counter++}.wav`);
  writeFileSync(path, encodeWav(tone(frequency, seconds, 16000, 0.5), 16000));
  return path;
}

function setup() {
  const db = openDatabase(join(dir.path, `db-${counter++}`));
  const keys = new KeyStore(db);
  return {
    store: new ClonedVoiceStore(db),
    a: keys.create({ name: "a", rpm: 5 }).id,
    b: keys.create({ name: "b", rpm: 5 }).id,
  };
}

beforeAll(async () => {
  await writeSpeakerEncoderPack(join(dir.path, "models"));
  encoder = await SpeakerEncoder.load(readSpeakerEncoderConfig(join(dir.path, "models"))!);
});
afterAll(() => dir.remove());

describe("voice library", () => {
  test("does answer 501 and delete the samples when no speaker encoder is installed", () => {
    const { store, a } = setup();
    const library = new VoiceLibrary(store, { encoder: undefined, ttsEmbeddingDim: SPEAKER_EMBEDDING_DIM }, quiet);
    const path = sample(300, 2);
    let error: unknown;
    try {
      library.create(a, "agent", [path]);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).status).toBe(501);
    expect((error as AppError).detail).toContain("speaker-encoder");
    return Bun.sleep(50).then(() => expect(existsSync(path)).toBe(false));
  });

  test("does answer 501 when no TTS model accepts an embedding of the encoder's size", () => {
    const { store, a } = setup();
    for (const dim of [undefined, SPEAKER_EMBEDDING_DIM + 1]) {
      const library = new VoiceLibrary(store, { encoder, ttsEmbeddingDim: dim }, quiet);
      expect(library.unavailableReason()).toBeDefined();
      expect(() => library.create(a, "agent", [sample(300, 2)])).toThrow(/Voice cloning is not available/);
    }
  });

  test("does train a voice to ready with an embedding that depends on the speaker", async () => {
    const { store, a } = setup();
    const library = new VoiceLibrary(store, { encoder, ttsEmbeddingDim: SPEAKER_EMBEDDING_DIM }, quiet);
    const lowPath = sample(250, 2);
    const low = library.create(a, "low", [lowPath]);
    const high = library.create(a, "high", [sample(3500, 1), sample(3500, 1)]);
    expect(low.status).toBe("training");
    await library.idle();
    expect(library.get(a, low.voice_id).status).toBe("ready");
    expect(library.get(a, high.voice_id).status).toBe("ready");
    const lowEmbedding = store.embedding(a, low.voice_id)!;
    const highEmbedding = store.embedding(a, high.voice_id)!;
    expect(lowEmbedding).toHaveLength(SPEAKER_EMBEDDING_DIM);
    expect(Math.hypot(...lowEmbedding)).toBeCloseTo(1, 5);
    // A low tone puts its energy in the first band of mel bins, a high tone in a later one.
    expect(lowEmbedding[0]! - lowEmbedding[3]!).toBeGreaterThan(highEmbedding[0]! - highEmbedding[3]!);
    expect(existsSync(lowPath)).toBe(false);
  });

  test("does fail training with a reason when a sample is unreadable or too short", async () => {
    const { store, a } = setup();
    const library = new VoiceLibrary(store, { encoder, ttsEmbeddingDim: SPEAKER_EMBEDDING_DIM }, quiet);
    const junk = join(dir.path, `junk-${counter++}.wav`);
    writeFileSync(
      junk,
      new Uint8Array(4096).map((_, i) => (i * 7919) & 255),
    );
    const broken = library.create(a, "broken", [sample(300, 2), junk]);
    const short = library.create(a, "short", [sample(300, 0.3)]);
    await library.idle();
    const brokenView = library.get(a, broken.voice_id);
    expect(brokenView.status).toBe("failed");
    expect(brokenView.reason).toMatch(/^sample 2: /);
    expect(brokenView.reason).not.toContain(dir.path);
    expect(library.get(a, short.voice_id).reason).toMatch(/too short/);
    expect(existsSync(junk)).toBe(false);
  });

  test("does keep voices private to their key and answer 404 to others", async () => {
    const { store, a, b } = setup();
    const library = new VoiceLibrary(store, { encoder, ttsEmbeddingDim: SPEAKER_EMBEDDING_DIM }, quiet);
    const voice = library.create(a, "mine", [sample(300, 2)]);
    await library.idle();
    expect(library.list(b, []).map((v) => ("voice_id" in v ? v.voice_id : ""))).not.toContain(voice.voice_id);
    expect(() => library.get(b, voice.voice_id)).toThrow(expect.objectContaining({ status: 404 }));
    expect(() => library.delete(b, voice.voice_id)).toThrow(expect.objectContaining({ status: 404 }));
    expect(store.embedding(b, voice.voice_id)).toBeUndefined();
    library.delete(a, voice.voice_id);
    expect(() => library.get(a, voice.voice_id)).toThrow(expect.objectContaining({ status: 404 }));
  });

  test("does mark voices interrupted by a restart as failed", () => {
    const { store, a } = setup();
    const voice = store.create(a, "stuck");
    expect(store.failInterrupted("interrupted by a restart")).toBe(1);
    expect(store.get(a, voice.id)?.status).toBe("failed");
  });
});
