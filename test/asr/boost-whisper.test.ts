/**
 * Phrase boosting on Whisper (the constructed pair): the phrases, most boosted first, become
 * previous-text context before the request's prompt; a long prompt is cut from its start so the
 * phrases keep their room in the decoder's n_text_ctx/2 − 1 context tokens; a zero boost is none.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { loadAsrPacks, type LoadedAsrPacks } from "../../src/asr/packs.ts";
import type { Recognizer, RecognizeOptions } from "../../src/asr/recognizer.ts";
import type { WhisperBackend } from "../../src/asr/whisper/pipeline.ts";
import { writeWhisperPack, type WhisperPack } from "../support/models/whisper.ts";
import { modelsDir, sine } from "./support.ts";

let models: ReturnType<typeof modelsDir>;
let packs: LoadedAsrPacks;
let recognizer: Recognizer;
let pack: WhisperPack;

beforeAll(async () => {
  models = modelsDir();
  pack = await writeWhisperPack(join(models.dir, "whisper-test"), { rows: ["السلام عليكم"], bands: [[0, 8000]] });
  packs = await loadAsrPacks(models.dir);
  recognizer = packs.recognizers.get("whisper-test")!;
});

afterAll(async () => {
  await packs?.release();
  models?.remove();
});

/** The tokens the decoder's first step is fed for `options` (seen at the pack's backend). */
async function firstStep(options: RecognizeOptions): Promise<number[]> {
  const backend = (recognizer as unknown as { backend: WhisperBackend }).backend;
  const encode = backend.encode;
  const fed: number[][] = [];
  const watched: WhisperBackend["encode"] = async (mel, frames) => {
    const make = await encode.call(backend, mel, frames);
    return () => {
      const window = make();
      return {
        feed: (tokens) => {
          fed.push([...tokens]);
          return window.feed(tokens);
        },
      };
    };
  };
  Object.assign(backend, { encode: watched });
  try {
    await recognizer.recognize(sine(500, 2), undefined, options);
  } finally {
    Object.assign(backend, { encode });
  }
  return fed[0]!;
}

describe("phrase boosting on Whisper", () => {
  test("does put the phrases before the prompt as previous-text context", async () => {
    const v = pack.vocab;
    const task = [v.sot, v.languages.ar, v.transcribe, v.noTimestamps];
    expect(await firstStep({ hotwords: [{ phrase: "#", boost: 0 }] })).toEqual(task);
    const phrases = await firstStep({ hotwords: [{ phrase: "#", boost: 2 }] });
    expect(phrases[0]).toBe(v.sotPrev);
    expect(phrases.slice(-task.length)).toEqual(task);
    const withPrompt = await firstStep({ hotwords: [{ phrase: "#", boost: 2 }], prompt: "#" });
    // The phrase context, then the prompt's " #".
    expect(withPrompt.slice(0, phrases.length - task.length)).toEqual(phrases.slice(0, -task.length));
    expect(withPrompt.slice(phrases.length - task.length, -task.length)).toEqual([v.blank, v.error]);
  });

  test("does cut a long prompt, not the phrases, to fit the context", async () => {
    const v = pack.vocab;
    const glossary = await firstStep({ hotwords: [{ phrase: "#", boost: 2 }] });
    const long = await firstStep({ hotwords: [{ phrase: "#", boost: 2 }], prompt: "# ".repeat(40) });
    // n_text_ctx 64 keeps 31 context tokens: the phrases' first, then the prompt's tail.
    expect(long.length).toBe(1 + 31 + 4);
    expect(long.slice(0, glossary.length - 4)).toEqual(glossary.slice(0, -4));
    expect(long[0]).toBe(v.sotPrev);
  });
});
