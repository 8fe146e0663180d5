/**
 * Spoken IBANs: Latin letter names (as Sawt's Arabic voice says them, «إس إيه», or English single
 * letters) followed by digit words, read in groups of four with pauses. They become the written
 * IBAN only when the mod-97 check passes, because Arabic letter names are also everyday words
 * («في» is V, «دي» is D) and a guess would rewrite ordinary speech.
 */
import { foldArabic } from "../arabic/fold.ts";
import { LATIN_LETTER_NAMES } from "../numbers/arabic-words.ts";
import { ENGLISH_ONES, ENGLISH_PHRASE } from "../numbers/english-words.ts";
import { groupIban, isIban } from "../redact/checks.ts";
import { digitAt } from "./arabic-numbers.ts";
import { wordKey, commaAfter, joinable, type Match, type Word } from "./words.ts";

/**
 * The Arabic names of Latin letters the reader spells codes with (../numbers/arabic-words.ts),
 * name → letter, unfolded. «بي» names both B and P there; it reads back as B (an IBAN's P then fails
 * the check and its words are left as said).
 */
const ARABIC_LETTERS = new Map<string, string>();
for (const [letter, name] of Object.entries(LATIN_LETTER_NAMES))
  if (!ARABIC_LETTERS.has(name)) ARABIC_LETTERS.set(name, letter);

/** English digit words, "oh" for zero too. */
const ENGLISH_DIGITS: ReadonlyMap<string, number> = new Map([
  ...ENGLISH_ONES.slice(0, 10).map((word, d) => [word, d] as const),
  [ENGLISH_PHRASE.oh, 0],
]);

/**
 * The letter names folded (no hamza: «اس ايه»), as recognisers often write them; safe to read
 * because a spoken IBAN is only written when its mod-97 check passes.
 */
const FOLDED_LETTERS: ReadonlyMap<string, string> = new Map(
  [...ARABIC_LETTERS].map(([name, letter]) => [wordKey(name), letter]),
);

function letterAt(words: readonly Word[], i: number): string | undefined {
  const w = words[i];
  if (!w) return undefined;
  // The letter names as written first: «إي» (E) and «آي» (I) fold to one key.
  const bare = foldArabic(w.core, "lexicon");
  return (
    ARABIC_LETTERS.get(bare) ?? FOLDED_LETTERS.get(w.key) ?? (/^[a-z]$/i.test(bare) ? bare.toUpperCase() : undefined)
  );
}

function symbolAt(words: readonly Word[], i: number): string | undefined {
  const w = words[i];
  if (!w) return undefined;
  const d = digitAt(words, i) ?? ENGLISH_DIGITS.get(w.key);
  return d === undefined ? letterAt(words, i) : String(d);
}

/** Two letter names, then letters and digits (commas between groups), checked as an IBAN. */
export function ibanRule(words: readonly Word[], i: number): Match | undefined {
  const a = letterAt(words, i);
  const b = a && joinable(words, i) ? letterAt(words, i + 1) : undefined;
  if (!a || !b) return undefined;
  let code = a + b;
  let pos = i + 2;
  let best: Match | undefined;
  while (code.length < 34 && (joinable(words, pos - 1) || commaAfter(words, pos - 1))) {
    const s = symbolAt(words, pos);
    if (s === undefined) break;
    code += s;
    pos++;
    if (isIban(code)) best = { text: groupIban(code), end: pos, kind: "iban" };
  }
  return best;
}
