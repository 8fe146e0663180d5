/**
 * English number words → values: cardinals as Sawt's English reader says them ("one hundred
 * twenty-three", no "and") and as people say them ("a hundred and five", "twenty three"),
 * ordinals ("twenty-second"), years in pairs ("twenty twenty-six", "nineteen oh five"), and
 * digit runs ("zero five oh, double five"). Hyphenated compounds are one word.
 */
import {
  below100Word,
  ENGLISH_HUNDRED,
  ENGLISH_ONES,
  ENGLISH_PHRASE,
  ENGLISH_SCALES,
} from "../numbers/english-words.ts";
import { commaAfter, type DigitRun, joinable, settleGroups, type Word } from "./words.ts";

const ONES = ENGLISH_ONES;
const SCALES: Readonly<Record<string, number>> = Object.fromEntries(
  ENGLISH_SCALES.slice(1).map((word, k) => [word, 1000 ** (k + 1)]),
);

/** A parsed value and the index after its last word. */
export interface Value {
  readonly value: number;
  readonly end: number;
}

/** A cardinal from word `i`: hundreds, scales, "a hundred", an "and" after hundred or a scale. */
export function englishCardinal(words: readonly Word[], i: number): Value | undefined {
  let total = 0;
  let current = 0;
  let lastScale = Infinity;
  let last: "none" | "unit" | "teen" | "tens" | "hundred" | "scale" = "none";
  let pos = i;
  let end = i;
  for (;;) {
    if (pos > i && !joinable(words, pos - 1)) break;
    const key = words[pos]?.key ?? "";
    const v = below100Word(key);
    if (v !== undefined) {
      if (v === 0) {
        if (pos === i) return { value: 0, end: pos + 1 };
        break;
      }
      const kind = v < 10 ? "unit" : v < 20 ? "teen" : v % 10 === 0 ? "tens" : "unit";
      const fits =
        last === "none" ||
        last === "hundred" ||
        last === "scale" ||
        (last === "tens" && v < 10 && !key.includes("-") && current % 10 === 0);
      if (!fits) break;
      current += v;
      last = v >= 20 && v % 10 === 0 ? "tens" : kind;
      pos++;
      end = pos;
      continue;
    }
    if ((key === "a" || key === "an") && pos === i && joinable(words, pos)) {
      const next = words[pos + 1]!.key;
      if (next === ENGLISH_HUNDRED || SCALES[next] !== undefined) {
        current = 1;
        last = "unit";
        pos++;
        continue;
      }
      break;
    }
    if (key === ENGLISH_HUNDRED && current >= 1 && current <= 99 && current % 100 === current && last !== "hundred") {
      if (current >= 10 && lastScale !== Infinity) break;
      current *= 100;
      last = "hundred";
      pos++;
      end = pos;
      continue;
    }
    const scale = SCALES[key];
    if (scale !== undefined && current > 0 && scale < lastScale) {
      total += current * scale;
      current = 0;
      lastScale = scale;
      last = "scale";
      pos++;
      end = pos;
      continue;
    }
    if (key === ENGLISH_PHRASE.and && (last === "hundred" || last === "scale") && joinable(words, pos)) {
      const next = below100Word(words[pos + 1]!.key);
      if (next !== undefined && next > 0) {
        pos++;
        continue;
      }
    }
    break;
  }
  return end > i ? { value: total + current, end } : undefined;
}

/** A year said in pairs ("twenty twenty-four", "nineteen oh five", "nineteen hundred") or whole. */
export function englishYear(words: readonly Word[], i: number): Value | undefined {
  const high = below100Word(words[i]?.key ?? "");
  if (high !== undefined && high >= 10 && joinable(words, i)) {
    const next = words[i + 1]!.key;
    if (next === ENGLISH_HUNDRED) return { value: high * 100, end: i + 2 };
    if (next === ENGLISH_PHRASE.oh && joinable(words, i + 1)) {
      const low = below100Word(words[i + 2]!.key);
      if (low !== undefined && low >= 1 && low <= 9) return { value: high * 100 + low, end: i + 3 };
    }
    const low = below100Word(next);
    if (low !== undefined && low >= 10) return { value: high * 100 + low, end: i + 2 };
  }
  const whole = englishCardinal(words, i);
  return whole && whole.value >= 1000 && whole.value <= 2999 ? whole : undefined;
}

/** A digit word at `i` ("oh" only after another digit). */
function digitWord(words: readonly Word[], i: number, first: boolean): number | undefined {
  const key = words[i]?.key ?? "";
  if (key === ENGLISH_PHRASE.oh) return first ? undefined : 0;
  const v = ONES.indexOf(key);
  return v >= 0 && v <= 9 ? v : undefined;
}

/** Digits said one by one, with "double"/"triple" and comma pauses between groups. */
export function englishDigitRun(words: readonly Word[], i: number): DigitRun | undefined {
  const groups: string[] = [""];
  const ends: number[] = [];
  let pos = i;
  for (;;) {
    const key = words[pos]?.key ?? "";
    const times = key === "double" ? 2 : key === "triple" ? 3 : 1;
    const at = times > 1 && joinable(words, pos) ? pos + 1 : pos;
    const d = digitWord(words, at, pos === i && times === 1);
    if (d === undefined) break;
    groups[groups.length - 1] += String(d).repeat(times);
    pos = at + 1;
    if (joinable(words, pos - 1)) continue;
    if (commaAfter(words, pos - 1) && digitWord(words, pos, false) !== undefined) {
      ends.push(pos);
      groups.push("");
      continue;
    }
    break;
  }
  // "two hundred": the last digit starts a cardinal.
  const next = joinable(words, pos - 1) ? words[pos]?.key : undefined;
  if (pos > i + 1 && (next === ENGLISH_HUNDRED || SCALES[next ?? ""] !== undefined) && groups.at(-1)!.length > 1) {
    groups[groups.length - 1] = groups.at(-1)!.slice(0, -1);
    pos--;
  }
  ends.push(pos);
  return settleGroups(groups, ends);
}
