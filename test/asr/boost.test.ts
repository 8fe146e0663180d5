/**
 * Phrase boosting on constructed recognisers whose scores make «قلب» lose narrowly to «كلب»
 * (test/support/models/near-miss.ts), loaded through the registry as the server loads them:
 * greedy reads «كلب»; a boost of «قلب» makes it win in the CTC prefix beam search, the RNNT
 * modified beam search and the biased TDT search; an unrelated list, or one that only shares the
 * phrase's first letter, changes nothing; a zero boost is no boost.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { loadAsrPacks, type LoadedAsrPacks } from "../../src/asr/packs.ts";
import type { Hotword } from "../../src/asr/types.ts";
import { CtcRecognizer } from "../../src/asr/ctc/pipeline.ts";
import { biasedCtc } from "../../src/asr/ctc/prefix-beam.ts";
import { ContextGraph } from "../../src/asr/boost/context-graph.ts";
import {
  NEAR_MISS_GREEDY,
  NEAR_MISS_PHRASE,
  NEAR_MISS_TOKENS,
  writeNearMissCtcPack,
  writeNearMissTransducerPack,
} from "../support/models/near-miss.ts";
import { modelsDir, silence } from "./support.ts";

let models: ReturnType<typeof modelsDir>;
let packs: LoadedAsrPacks;
const audio = silence(0.5).map((_, i) => 0.1 * Math.sin(i / 5));

beforeAll(async () => {
  models = modelsDir();
  await writeNearMissCtcPack(join(models.dir, "near-ctc"));
  await writeNearMissTransducerPack(join(models.dir, "near-rnnt"));
  await writeNearMissTransducerPack(join(models.dir, "near-tdt"), { tdt: true });
  packs = await loadAsrPacks(models.dir);
});

afterAll(async () => {
  await packs?.release();
  models?.remove();
});

const read = async (pack: string, hotwords?: Hotword[]) =>
  (await packs.recognizers.get(pack)!.recognize(audio, undefined, hotwords ? { hotwords } : {})).text;

describe.each(["near-ctc", "near-rnnt", "near-tdt"])("phrase boosting on %s", (pack) => {
  test("does read the narrow winner without hotwords", async () => {
    expect(packs.recognizers.has(pack)).toBe(true);
    expect(await read(pack)).toBe(NEAR_MISS_GREEDY);
  });

  test("does make the boosted phrase win when it loses narrowly", async () => {
    expect(await read(pack, [{ phrase: NEAR_MISS_PHRASE, boost: 1.5 }])).toBe(NEAR_MISS_PHRASE);
  });

  test("does change nothing when the list is unrelated or only shares a first letter", async () => {
    expect(await read(pack, [{ phrase: "سمع", boost: 5 }])).toBe(NEAR_MISS_GREEDY);
    expect(await read(pack, [{ phrase: "قمر", boost: 1.5 }])).toBe(NEAR_MISS_GREEDY);
    expect(await read(pack, [{ phrase: "hello", boost: 5 }])).toBe(NEAR_MISS_GREEDY);
  });

  test("does not boost a phrase whose boost is 0", async () => {
    expect(await read(pack, [{ phrase: NEAR_MISS_PHRASE, boost: 0 }])).toBe(NEAR_MISS_GREEDY);
  });
});

describe("CTC prefix beam search", () => {
  test("does take back a broken-off phrase's bonus inside the search itself", () => {
    const ctc = packs.recognizers.get("near-ctc") as CtcRecognizer;
    expect(ctc).toBeInstanceOf(CtcRecognizer);
    const id = (piece: string) => NEAR_MISS_TOKENS.indexOf(piece as (typeof NEAR_MISS_TOKENS)[number]);
    // «قم…» takes the first frame while it may become the phrase, and gives it back at «ل».
    const graph = new ContextGraph([{ tokens: [id("ق"), id("م"), id("ر")], boost: 1.5 }]);
    const frames = 6;
    const vocab = NEAR_MISS_TOKENS.length;
    const logprobs = new Float32Array(frames * vocab).fill(Math.log(0.001));
    const set = (t: number, piece: string, p: number) => (logprobs[t * vocab + id(piece)] = Math.log(p));
    for (let t = 0; t < frames; t++) set(t, "<blk>", 0.99);
    set(0, "ك", 0.52);
    set(0, "ق", 0.46);
    set(0, "<blk>", 0.013);
    set(2, "ل", 0.97);
    set(2, "<blk>", 0.02);
    const result = biasedCtc({ logprobs, frames, vocab }, vocab - 1, graph);
    expect(result.matched).toBe(false);
    expect(result.tokens.map((t) => NEAR_MISS_TOKENS[t.id]).join("")).toBe("كل");
  });
});
