/**
 * A cache-aware streaming recogniser on the live doors (issue #12): the live session hands each
 * utterance to one model stream, fed only the audio that arrived since the last partial, and the
 * realtime WebSocket's `.completed` carries the streamed model's text.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { loadAsrPacks, type LoadedAsrPacks } from "../../src/asr/packs.ts";
import type { StreamingRecognizer } from "../../src/asr/recognizer.ts";
import { StreamingUtteranceDecoder } from "../../src/asr/live/decoders.ts";
import { floatToInt16, int16ToBytes } from "../../src/audio/wav.ts";
import { letterToneAudio } from "../support/models/ctc.ts";
import { writeStreamingCtcPack } from "../support/models/streaming.ts";
import { startSawt, until, type SawtProcess } from "../support/sawt.ts";
import { concat, modelsDir, silence } from "./support.ts";
import { connect } from "./ws-client.ts";

const TEXT = "سلام عليكم ورحمة الله";
const engine = { admitted: <T>(job: () => Promise<T>) => job(), observe: () => {} };
let models: ReturnType<typeof modelsDir>;
let packs: LoadedAsrPacks;
let recognizer: StreamingRecognizer;

beforeAll(async () => {
  models = modelsDir();
  await writeStreamingCtcPack(join(models.dir, "tone-streaming-ctc"));
  packs = await loadAsrPacks(models.dir);
  recognizer = packs.recognizers.get("tone-streaming-ctc") as StreamingRecognizer;
});

afterAll(async () => {
  await packs?.release();
  models?.remove();
});

describe("streaming recogniser as a live utterance decoder", () => {
  test("does continue one stream across partials and finalise it to the whole utterance's text", async () => {
    const audio = concat(silence(0.2), letterToneAudio(TEXT), silence(0.3));
    const decoder = new StreamingUtteranceDecoder(engine, recognizer, {});
    const partials: string[] = [];
    for (let end = 3200; end < audio.length; end += 3200) partials.push(await decoder.partial(audio.subarray(0, end)));
    const final = await decoder.final(audio);
    expect(final.text).toBe(TEXT);
    expect((await recognizer.recognize(audio)).text).toBe(TEXT);
    // Partials only grow: each is a prefix of the next and of the final text.
    for (const [i, text] of partials.entries()) expect((partials[i + 1] ?? TEXT).startsWith(text)).toBe(true);
    expect(partials.at(-1)!.length).toBeGreaterThan(0);
  });

  test("does start a new stream when the next utterance begins elsewhere", async () => {
    const decoder = new StreamingUtteranceDecoder(engine, recognizer, {});
    const first = concat(silence(0.2), letterToneAudio("سلام"), silence(0.3));
    await decoder.partial(first.subarray(0, 6400));
    expect((await decoder.final(first)).text).toBe("سلام");
    const second = concat(silence(0.2), letterToneAudio("الله"), silence(0.3));
    await decoder.partial(second.subarray(0, 3200));
    expect((await decoder.final(second)).text).toBe("الله");
  });
});

describe("streaming recogniser behind the realtime WebSocket", () => {
  let sawt: SawtProcess;
  let key: string;
  beforeAll(async () => {
    sawt = await startSawt({ env: { SAWT_MODELS_DIR: models.dir, SAWT_STREAMING_PARTIAL_INTERVAL_MS: "200" } });
    key = (await sawt.createKey({ name: "live", rpm: 10_000 })).key;
    await until(async () => (await fetch(`${sawt.baseUrl}/v1/asr/health`)).status === 200, "the ASR engine");
  });
  afterAll(async () => {
    await sawt?.stop();
  });

  test("does complete with the streamed model's text when the client commits", async () => {
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
    const bytes = int16ToBytes(floatToInt16(concat(silence(0.2), letterToneAudio(TEXT), silence(0.3))));
    for (let at = 0; at < bytes.length; at += 640) {
      client.sendJson({
        type: "input_audio_buffer.append",
        audio: Buffer.from(bytes.subarray(at, at + 640)).toString("base64"),
      });
      await Bun.sleep(2);
    }
    client.sendJson({ type: "input_audio_buffer.commit" });
    const completed = await client.next("conversation.item.input_audio_transcription.completed");
    expect(completed.transcript).toBe(TEXT);
    const deltas = client.events.filter((e) => e.type === "conversation.item.input_audio_transcription.delta");
    expect(deltas.length).toBeGreaterThan(0);
    client.ws.close();
  });
});
