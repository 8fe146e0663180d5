/**
 * Spoken IBANs: Latin letter names (as Sawt's Arabic voice says them, «إس إيه», or English single
 * letters) followed by digit words, read in groups of four with pauses. They become the written
 * IBAN only when the mod-97 check passes, because Arabic letter names are also everyday words
 * («في» is V, «دي» is D) and a guess would rewrite ordinary speech.
 */
import { foldArabic } from "../arabic/fold.ts";
import { groupIban, isIban } from "../redact/checks.ts";
import { digitAt } from "./arabic-numbers.ts";
import { wordKey, commaAfter, joinable, type Match, type Word } from "./words.ts";

/** Arabic names of Latin letters (src/text/verbalize/arabic.ts reads them so), unfolded. */
const ARABIC_LETTERS: Readonly<Record<string, string>> = {
  إيه: "A",
  بي: "B",
  سي: "C",
  دي: "D",
  إي: "E",
  إف: "F",
  جي: "G",
  إتش: "H",
  آي: "I",
  جيه: "J",
  كيه: "K",
  إل: "L",
  إم: "M",
  إن: "N",
  أو: "O",
  كيو: "Q",
  آر: "R",
  إس: "S",
  تي: "T",
  يو: "U",
  في: "V",
  دبليو: "W",
  إكس: "X",
  واي: "Y",
  زد: "Z",
};

const ENGLISH_DIGITS: Readonly<Record<string, number>> = {
  zero: 0,
  oh: 0,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
};

/**
 * The letter names folded (no hamza: «اس ايه»), as recognisers often write them; safe to read
 * because a spoken IBAN is only written when its mod-97 check passes.
 */
const FOLDED_LETTERS: ReadonlyMap<string, string> = new Map(
  Object.entries(ARABIC_LETTERS).map(([name, letter]) => [wordKey(name), letter]),
);

function letterAt(words: readonly Word[], i: number): string | undefined {
  const w = words[i];
  if (!w) return undefined;
  // The letter names as written first: «إي» (E) and «آي» (I) fold to one key.
  const bare = foldArabic(w.core, "lexicon");
  return ARABIC_LETTERS[bare] ?? FOLDED_LETTERS.get(w.key) ?? (/^[a-z]$/i.test(bare) ? bare.toUpperCase() : undefined);
}

function symbolAt(words: readonly Word[], i: number): string | undefined {
  const w = words[i];
  if (!w) return undefined;
  const d = digitAt(words, i) ?? ENGLISH_DIGITS[w.key];
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
