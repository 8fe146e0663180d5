/**
 * What a character-level voice can read (a Piper voice with `phoneme_type: text`, a sherpa-onnx
 * VITS voice without espeak): the letters, marks and digits of its vocabulary. A text holding none
 * of them is the caller's input, not a failure of the voice, so synthesis refuses it with 400
 * before any audio instead of answering "Synthesis produced no audio" (issue #32).
 */
import { AppError } from "../errors/taxonomy.ts";
import { WORD_CHARACTER } from "../text/arabic/marks.ts";
import type { CharacterSet } from "./renderer.ts";
import type { Sentence } from "./frontend/index.ts";
import type { PlanStep } from "./plan.ts";

/** Symbols that are speech (letters, the marks on them, digits); spaces and punctuation only shape the pauses around it. */
const SPOKEN = new RegExp(`[${WORD_CHARACTER}]`, "u");

/** Scripts named in details, in the order they are listed; a vocabulary in none reads "its own characters". */
const SCRIPTS = ["Arabic", "Latin", "Cyrillic", "Greek", "Hebrew", "Devanagari", "Han", "Hangul", "Thai"].map(
  (name) => ({ name, pattern: new RegExp(`^\\p{Script=${name}}$`, "u") }),
);

/**
 * The character set of a vocabulary: `symbols` are the voice's input symbols, `substitutions`
 * what a symbol is replaced by first (Piper's phoneme_map), `symbolsOf` how a sentence becomes
 * symbols (the same function the voice speaks from).
 */
export function characterSet(
  symbols: Iterable<string>,
  substitutions: ReadonlyMap<string, readonly string[]>,
  symbolsOf: (sentence: Sentence) => readonly string[],
): CharacterSet {
  const spoken = new Set([...symbols].filter((symbol) => SPOKEN.test(symbol)));
  const scripts = SCRIPTS.filter(({ pattern }) => [...spoken].some((symbol) => pattern.test(symbol)));
  const reads =
    scripts.length === 0 ? "its own characters" : `${scripts.map((script) => script.name).join(" and ")} script`;
  return {
    reads,
    speaks: (sentence) =>
      symbolsOf(sentence).some((symbol) => (substitutions.get(symbol) ?? [symbol]).some((s) => spoken.has(s))),
  };
}

/** The detail of a refused input: the voice, its engine and what it reads. */
export function unspeakableDetail(voice: string, engine: string, reads: string): string {
  return `Voice ${voice} (${engine}) reads ${reads} only; the input has no character it can speak`;
}

/**
 * Refuses (400 bad_request) a plan in which no sentence holds a character its voice speaks, when
 * a character-level voice is among them: decided from the plan, so before any audio is sent.
 * Voices that read any text (espeak-ng phonemes) always count as speaking; a plan with no
 * sentence at all is left to the no-audio rule.
 */
export function assertSpeakable(steps: readonly PlanStep[], voiceName: (voice: string) => string): void {
  let refused: { voice: string; engine: string; reads: string } | undefined;
  for (const step of steps) {
    if (step.kind !== "sentence") continue;
    const { characters, engine } = step.speaker.renderer;
    if (characters === undefined || characters.speaks(step.sentence)) return;
    refused ??= { voice: voiceName(step.speaker.voice), engine, reads: characters.reads };
  }
  if (refused) throw new AppError("bad_request", unspeakableDetail(refused.voice, refused.engine, refused.reads));
}
