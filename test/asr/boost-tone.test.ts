/**
 * Phrase boosting on the tone recognisers (offline CTC and RNNT, and the cache-aware streaming
 * families, whole segments as the file path decodes them), which read tone speech exactly: a list
 * that matches nothing, or a phrase the model hears, leaves text and word times exactly as greedy
 * gives them; and on the streaming models, whose every frame leaves a few percent to each token,
 * even a boost of 10 does not spell a phrase out of the frames' leftover mass.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { loadAsrPacks, type LoadedAsrPacks } from "../../src/asr/packs.ts";
import type { Hotword } from "../../src/asr/types.ts";
import { letterToneAudio, writeToneCtcPack } from "../support/models/ctc.ts";
import { writeToneTransducerPack } from "../support/models/transducer.ts";
import { writeStreamingCtcPack, writeStreamingTransducerPack } from "../support/models/streaming.ts";
import { concat, modelsDir, silence } from "./support.ts";

const TEXT = "سلام عليكم";
let models: ReturnType<typeof modelsDir>;
let packs: LoadedAsrPacks;
const audio = concat(silence(0.5), letterToneAudio(TEXT), silence(0.5));

beforeAll(async () => {
  models = modelsDir();
  await writeStreamingCtcPack(join(models.dir, "tone-streaming-ctc"));
  await writeStreamingTransducerPack(join(models.dir, "tone-streaming-rnnt"));
  await writeToneCtcPack(join(models.dir, "tone-ctc"));
  await writeToneTransducerPack(join(models.dir, "tone-rnnt"));
  packs = await loadAsrPacks(models.dir);
});

afterAll(async () => {
  await packs?.release();
  models?.remove();
});

const recognize = (pack: string, hotwords?: Hotword[]) =>
  packs.recognizers.get(pack)!.recognize(audio, undefined, hotwords ? { hotwords } : {});
const read = async (pack: string, hotwords?: Hotword[]) => (await recognize(pack, hotwords)).text;

describe.each(["tone-ctc", "tone-rnnt", "tone-streaming-ctc", "tone-streaming-rnnt"])(
  "phrase boosting on %s",
  (pack) => {
    test("does keep text and word times with an unrelated list or a phrase it hears", async () => {
      const plain = await recognize(pack);
      expect(plain.text).toBe(TEXT);
      expect(plain.words?.length).toBe(2);
      expect(await recognize(pack, [{ phrase: "قرش", boost: 3 }])).toEqual(plain);
      expect(
        await recognize(pack, [
          { phrase: "عليكم", boost: 3 },
          { phrase: "سلم", boost: 3 },
        ]),
      ).toEqual(plain);
    });

    test("does not spell a phrase out of a frame's leftover mass, even at boost 10", async () => {
      expect(await read(pack, [{ phrase: "زز", boost: 10 }])).toBe(TEXT);
    });
  },
);
