/**
 * Arabic inverse text normalisation: spoken words (MSA and the dialects Sawt speaks) → written
 * tokens. Rules run most specific first at each word: time, date, negative, money/percent,
 * ordinal from 11, digit run (phones, accounts, cards), decimal or cardinal. It inverts what Sawt's
 * TTS front-end says for numbers (../verbalize/), which the round-trip test checks per dialect.
 */
import { arabicAmount, arabicAmountPhrase, arabicNounFirstMoney, writeDecimal } from "./arabic-amounts.ts";
import { digitRun } from "./arabic-numbers.ts";
import { arabicDate, arabicOrdinal, arabicTime } from "./arabic-time.ts";
import { ibanRule } from "./letters.ts";
import { PHRASE } from "../numbers/arabic-words.ts";
import { joinable, type Match, type Rule, rewriteWords, type Word, wordKey, type WrittenToken } from "./words.ts";

const PLUS = wordKey(PHRASE.plus);
const MINUS = wordKey(PHRASE.minus);

/** "+966 50 123 4567": «زائد» and a digit run, groups kept apart by spaces. */
function digits(words: readonly Word[], i: number): Match | undefined {
  const plus = words[i]!.key === PLUS && joinable(words, i);
  const run = digitRun(words, plus ? i + 1 : i);
  if (!run) return undefined;
  return { text: (plus ? "+" : "") + run.groups.join(" "), end: run.end, kind: "digits" };
}

/** A plain or decimal number, with its proclitic («وخمسة» → "و5"). */
function number(words: readonly Word[], i: number): Match | undefined {
  const a = arabicAmount(words, i);
  if (!a) return undefined;
  // «واحد من العملاء», «ولا واحد»: someone, not the number one.
  const one = a.end === i + 1 && a.units === 1 && a.frac === undefined;
  if (one && (words[i + 1]?.key === "من" || words[i - 1]?.key === "ولا")) return undefined;
  return { text: a.clitic + writeDecimal(a), end: a.end, kind: a.frac === undefined ? "cardinal" : "decimal" };
}

/** «سالب» before money (the noun first too: «سالب ريالان», as the reader says -2 ريال), a percentage or a number. */
function negative(words: readonly Word[], i: number): Match | undefined {
  if (words[i]!.key !== MINUS || !joinable(words, i)) return undefined;
  const m = arabicAmountPhrase(words, i + 1) ?? arabicNounFirstMoney(words, i + 1) ?? digitsFree(words, i + 1);
  return m && !/^[وب]/.test(m.text) ? { ...m, text: `-${m.text}` } : undefined;
}

/** A number that is not the start of a digit run («سالب خمسة خمسة» is no negative number). */
function digitsFree(words: readonly Word[], i: number): Match | undefined {
  return digitRun(words, i) ? undefined : number(words, i);
}

/** Ordinals from 11 up («الخامس عشر» → "الـ15"); smaller ones read better as words. */
function ordinal(words: readonly Word[], i: number): Match | undefined {
  const o = arabicOrdinal(words, i);
  return o && o.value >= 11 ? { text: `الـ${o.value}`, end: o.end, kind: "ordinal" } : undefined;
}

const RULES: readonly Rule[] = [
  arabicTime,
  arabicDate,
  ibanRule,
  negative,
  arabicAmountPhrase,
  arabicNounFirstMoney,
  ordinal,
  digits,
  number,
];

/** Arabic spoken words → written tokens (Western digits; see ../format.ts for the digit style). */
export function arabicItn(words: readonly string[]): WrittenToken[] {
  return rewriteWords(words, RULES);
}
