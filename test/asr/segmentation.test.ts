/**
 * The segmentation policy (src/asr/segmentation/): speech spans grouped into utterances across
 * short pauses, utterances longer than the window cut at their longest silences, audio that fits
 * the window decoded whole and split back into utterances by word times, texts joined by the
 * word rule; and a three-minute recording with pauses (and a 45 s run of speech) through the
 * engine: ≤ 30 s segments, monotonic times, every word once.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { appendWords, joinPieceTexts, marksWordStarts } from "../../src/asr/segmentation/join.ts";
import { decodePieces, fitWindow, policyOptions, utterances } from "../../src/asr/segmentation/policy.ts";
import { reportPiece } from "../../src/asr/segmentation/report.ts";
import type { TranscriptWord } from "../../src/asr/types.ts";
import { letterToneAudio, writeToneCtcPack } from "../support/models/ctc.ts";
import { concat, modelsDir, readyEngine, silence } from "./support.ts";

const S = 16000;
const span = (from: number, to: number) => ({ start: Math.round(from * S), end: Math.round(to * S) });
const options = policyOptions(30);

describe("segmentation policy", () => {
  test("does keep speech separated by pauses under 0.5 s in one utterance", () => {
    const groups = utterances([span(0, 1), span(1.2, 2), span(2.3, 3), span(4, 5)], options);
    expect(groups.map((g) => [g.start / S, g.end / S, g.spans.length])).toEqual([
      [0, 3, 3],
      [4, 5, 1],
    ]);
  });

  test("does cut an utterance longer than the window at its longest pause until every part fits", () => {
    // 50 s of speech in 1 s spans with 0.2 s pauses, one 0.4 s pause at 20 s.
    const spans = [];
    for (let t = 0; t < 50; t += 1.2) spans.push(span(t, t + 1));
    const long = spans.findIndex((s) => s.start >= 20 * S);
    for (let i = long; i < spans.length; i++) spans[i] = span(spans[i]!.start / S + 0.2, spans[i]!.end / S + 0.2);
    const parts = fitWindow(spans, 30 * S);
    expect(parts[0]!.end).toBe(spans[long - 1]!.end);
    for (const part of parts) expect(part.end - part.start).toBeLessThanOrEqual(30 * S);
    expect(parts.flatMap((p) => p.spans)).toEqual(spans);
  });

  test("does decode audio that fits the window whole and longer audio utterance by utterance", () => {
    const spans = [span(1, 2), span(4, 5)];
    expect(decodePieces(spans, 10 * S, options).map((p) => [p.start, p.end, p.utterances.length])).toEqual([
      [0, 10 * S, 2],
    ]);
    expect(decodePieces(spans, 40 * S, options).map((p) => [p.start / S, p.end / S])).toEqual([
      [1, 2],
      [4, 5],
    ]);
    expect(decodePieces([], 10 * S, options)).toEqual([]);
  });

  test("does split a piece decoded whole into its utterances by word times, keeping a straddling word whole", () => {
    const piece = decodePieces([span(1, 2), span(3, 4), span(6, 7)], 10 * S, options)[0]!;
    const words = [
      { word: "a", start: 1.1, end: 1.5 },
      { word: "bc", start: 1.8, end: 3.5 },
      { word: "d", start: 6.2, end: 6.8 },
    ];
    const segments = reportPiece(piece, { text: "a bc d", words });
    expect(segments.map((s) => [s.text, s.start / S, s.end / S])).toEqual([
      ["a bc", 1, 4],
      ["d", 6, 7],
    ]);
    expect(reportPiece(piece, { text: "a bc d" }).map((s) => [s.text, s.start / S, s.end / S])).toEqual([
      ["a bc d", 1, 7],
    ]);
  });

  test("does join piece texts with a space unless the next one continues a word", () => {
    expect(joinPieceTexts([{ text: "مرح" }, { text: "" }, { text: "با", continuesWord: true }, { text: "بكم" }])).toBe(
      "مرحبا بكم",
    );
    const words: TranscriptWord[] = [{ word: "مرح", start: 0, end: 1 }];
    appendWords(
      words,
      [
        { word: "با", start: 2, end: 3 },
        { word: "بكم", start: 3, end: 4 },
      ],
      true,
    );
    expect(words.map((w) => [w.word, w.start, w.end])).toEqual([
      ["مرحبا", 0, 3],
      ["بكم", 3, 4],
    ]);
  });

  test("does tell word-piece vocabularies (▁word) from character ones (standalone ▁)", () => {
    expect(marksWordStarts(["▁مر", "حبا", "<blk>"])).toBe(true);
    expect(marksWordStarts(["▁", "م", "ر", "<blk>"])).toBe(false);
  });
});

describe("a three-minute recording with pauses", () => {
  const SENTENCES = ["سلام عليكم", "كيف حالك", "شكرا جزيلا", "مع السلامة"];
  let models: ReturnType<typeof modelsDir>;
  let engine: Awaited<ReturnType<typeof readyEngine>>;
  let recording: Float32Array;
  const said: string[] = [];
  const run = { start: 0, end: 0 };

  beforeAll(async () => {
    models = modelsDir();
    await writeToneCtcPack(join(models.dir, "tone-ctc"));
    engine = await readyEngine(models.dir);
    const parts: Float32Array[] = [silence(0.5)];
    let seconds = 0.5;
    for (let n = 0; seconds < 180; n++) {
      // Sentence 8 opens a 45 s run of speech whose pauses (0.3 s) never end an utterance.
      const count = n === 8 ? 16 : 1;
      if (count > 1) run.start = seconds;
      for (let k = 0; k < count; k++) {
        const sentence = SENTENCES[(n + k) % SENTENCES.length]!;
        // The tone voice spells a word break as a tone: a sentence ends with one, as speech would.
        parts.push(letterToneAudio(`${sentence} `), silence(count > 1 ? 0.3 : 0.6 + ((n * 7) % 10) * 0.2));
        seconds += parts[parts.length - 2]!.length / S + parts[parts.length - 1]!.length / S;
        said.push(sentence);
      }
      if (count > 1) run.end = seconds;
    }
    recording = concat(...parts);
  });

  afterAll(async () => {
    await engine?.release();
    models?.remove();
  });

  test("does give every word once in segments of at most 30 s with monotonic times", async () => {
    expect(recording.length / S).toBeGreaterThan(180);
    const transcript = await engine.service.transcribeSamples(recording);
    expect(transcript.text).toBe(said.join(" "));
    let previous = 0;
    for (const segment of transcript.segments) {
      expect(segment.start).toBeGreaterThanOrEqual(previous);
      expect(segment.end).toBeGreaterThan(segment.start);
      expect(segment.end - segment.start).toBeLessThanOrEqual(30);
      for (const word of segment.words ?? []) {
        expect(word.start).toBeGreaterThanOrEqual(previous);
        expect(word.end).toBeLessThanOrEqual(segment.end);
        previous = word.end;
      }
      previous = segment.end;
    }
    // The run of speech longer than the window is cut (at a pause) into a few long segments.
    expect(run.end - run.start).toBeGreaterThan(30);
    const inRun = transcript.segments.filter((s) => s.end > run.start && s.start < run.end);
    expect(inRun.length).toBeGreaterThanOrEqual(2);
    expect(inRun.length).toBeLessThan(16);
    expect(inRun.some((s) => s.end - s.start > 20)).toBe(true);
    expect(transcript.words?.map((w) => w.word).join(" ")).toBe(transcript.text);
  });
});
