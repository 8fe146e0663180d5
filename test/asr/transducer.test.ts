/**
 * Offline NeMo transducers (sherpa-onnx layout) on constructed RNNT and TDT packs, loaded through
 * the registry as the server loads them: tone speech reads back exactly, word times come from the
 * emission frames, and searches that mishandle the prediction network's output or states, the
 * blank or the TDT durations read wrong text from the very same encoder frames.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { loadAsrPacks, inspectAsrPacks, type LoadedAsrPacks } from "../../src/asr/packs.ts";
import type { TransducerJoint } from "../../src/asr/transducer/model.ts";
import { greedyRnnt, greedyTdt, transducerText, TransducerRecognizer } from "../../src/asr/transducer/pipeline.ts";
import { letterToneAudio } from "../support/models/ctc.ts";
import { transducerTokens, writeToneTransducerPack } from "../support/models/transducer.ts";
import { concat, modelsDir, readyEngine, silence } from "./support.ts";

const TEXT = "سلام عليكم ورحمة الله";
const FRAME = 0.04;
let models: ReturnType<typeof modelsDir>;
let packs: LoadedAsrPacks;
let rnnt: TransducerRecognizer;
let tdt: TransducerRecognizer;

beforeAll(async () => {
  models = modelsDir();
  await writeToneTransducerPack(join(models.dir, "tone-rnnt"));
  await writeToneTransducerPack(join(models.dir, "tone-tdt"), { tdt: true });
  packs = await loadAsrPacks(models.dir);
  rnnt = packs.recognizers.get("tone-rnnt") as TransducerRecognizer;
  tdt = packs.recognizers.get("tone-tdt") as TransducerRecognizer;
});

afterAll(async () => {
  await packs?.release();
  models?.remove();
});

const text = (tokens: Awaited<ReturnType<typeof greedyRnnt>>) => transducerText(tokens, transducerTokens(), FRAME).text;
const blank = transducerTokens().length - 1;

/** A joint whose prediction network never sees its carried states (fresh zero states each call). */
const stateless = (joint: TransducerJoint): TransducerJoint => ({
  initialStates: () => joint.initialStates(),
  predict: (token) => joint.predict(token, joint.initialStates()),
  join: (frame, predicted) => joint.join(frame, predicted),
});

/** A joint whose prediction output is never updated after the start (the decoder is not re-run). */
function frozen(joint: TransducerJoint): TransducerJoint {
  let first: ReturnType<TransducerJoint["predict"]> | undefined;
  return { ...stateless(joint), predict: (token, states) => (first ??= joint.predict(token, states)) };
}

describe("offline NeMo transducer", () => {
  test("does list the RNNT and TDT packs as transducer recognisers", () => {
    const scan = inspectAsrPacks(models.dir);
    expect(scan.usable.map((p) => [p.name, p.family])).toEqual([
      ["tone-rnnt", "nemo-transducer"],
      ["tone-tdt", "nemo-transducer"],
    ]);
    expect([rnnt.family, tdt.family]).toEqual(["nemo-transducer", "nemo-tdt"]);
  });

  test.each(["RNNT", "TDT"])("does read tone speech back exactly with %s greedy search", async (kind) => {
    const recognizer = kind === "TDT" ? tdt : rnnt;
    expect((await recognizer.recognize(letterToneAudio(TEXT))).text).toBe(TEXT);
    expect((await recognizer.recognize(letterToneAudio("الله"))).text).toBe("الله");
  });

  test.each(["RNNT", "TDT"])("does time words from their emission frames with %s", async (kind) => {
    const { words } = await (kind === "TDT" ? tdt : rnnt).recognize(letterToneAudio("سلام عليكم"));
    expect(words!.map((w) => w.word)).toEqual(["سلام", "عليكم"]);
    expect(words![0]!.start).toBeCloseTo(0.16, 5);
    expect(words![1]!.start).toBeCloseTo(0.96, 5);
    expect(words![0]!.end).toBeGreaterThan(words![0]!.start);
    expect(words![0]!.end).toBeLessThanOrEqual(words![1]!.start);
  });

  test("does give wrong text when RNNT search does not re-run the prediction network after a token", async () => {
    const frames = await rnnt.encode(letterToneAudio(TEXT));
    expect(text(await greedyRnnt(frames, rnnt.joint, blank))).toBe(TEXT);
    expect(text(await greedyRnnt(frames, frozen(rnnt.joint), blank))).not.toBe(TEXT);
  });

  test("does give wrong text when RNNT search drops the prediction network's states", async () => {
    const frames = await rnnt.encode(letterToneAudio(TEXT));
    expect(text(await greedyRnnt(frames, stateless(rnnt.joint), blank))).not.toBe(TEXT);
  });

  test("does give wrong text when the blank is taken to be id 0", async () => {
    const frames = await rnnt.encode(letterToneAudio(TEXT));
    expect(text(await greedyRnnt(frames, rnnt.joint, 0))).not.toBe(TEXT);
    expect(text(await greedyTdt(await tdt.encode(letterToneAudio(TEXT)), tdt.joint, 0))).not.toBe(TEXT);
  });

  test("does give wrong text when TDT search drops the states or does not re-run the prediction network", async () => {
    const frames = await tdt.encode(letterToneAudio(TEXT));
    expect(text(await greedyTdt(frames, tdt.joint, blank))).toBe(TEXT);
    expect(text(await greedyTdt(frames, stateless(tdt.joint), blank))).not.toBe(TEXT);
    expect(text(await greedyTdt(frames, frozen(tdt.joint), blank))).not.toBe(TEXT);
  });

  test("does give wrong text when TDT search ignores the durations or decodes the TDT joiner as RNNT", async () => {
    const frames = await tdt.encode(letterToneAudio(TEXT));
    const stepByOne: TransducerJoint = {
      initialStates: () => tdt.joint.initialStates(),
      predict: (token, states) => tdt.joint.predict(token, states),
      join: async (frame, predicted) => {
        const logits = Float32Array.from(await tdt.joint.join(frame, predicted));
        logits.fill(0, blank + 1).fill(1, blank + 2, blank + 3); // always duration 1
        return logits;
      },
    };
    expect(text(await greedyTdt(frames, stepByOne, blank))).not.toBe(TEXT);
    expect(text(await greedyRnnt(frames, tdt.joint, blank))).not.toBe(TEXT);
  });

  test.each(["tone-rnnt", "tone-tdt"])(
    "does put monotonic word times inside their segment through the ASR service (%s)",
    async (pack) => {
      const engine = await readyEngine(models.dir, { SAWT_ASR_PACK: pack });
      try {
        const transcript = await engine.service.transcribeSamples(
          concat(silence(0.5), letterToneAudio(TEXT), silence(0.5)),
        );
        expect(transcript.text).toBe(TEXT);
        for (const segment of transcript.segments) {
          const words = segment.words!;
          expect(words.length).toBeGreaterThan(0);
          for (const [i, word] of words.entries()) {
            expect(word.start).toBeGreaterThanOrEqual(segment.start);
            expect(word.end).toBeLessThanOrEqual(segment.end);
            expect(word.end).toBeGreaterThan(word.start);
            if (i > 0) expect(word.start).toBeGreaterThanOrEqual(words[i - 1]!.end);
          }
        }
      } finally {
        await engine.release();
      }
    },
  );

  test("does report a transducer whose tokens.txt does not match vocab_size", async () => {
    const dir = modelsDir();
    try {
      await writeToneTransducerPack(join(dir.dir, "short"));
      await Bun.write(join(dir.dir, "short", "tokens.txt"), "▁ 0\nا 1\n<blk> 2\n");
      const scan = inspectAsrPacks(dir.dir);
      expect(scan.broken.map((b) => [b.pack, b.family])).toEqual([["short", "nemo-transducer"]]);
      expect(scan.broken[0]!.reason).toContain("vocab_size");
    } finally {
      dir.remove();
    }
  });
});
