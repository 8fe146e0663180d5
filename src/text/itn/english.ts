/**
 * English inverse text normalisation, inverting Sawt's English reader
 * (src/text/verbalize/english.ts): "twelve dollars and fifty cents" → "$12.50", "fourteen
 * thirty" → "14:30", "March fifth, twenty twenty-four" → "2024-03-05" (ISO: unambiguous, and the
 * TTS reads it back the same), "fifteen percent" → "15%", "zero five oh…" → digits.
 */
import { CURRENCIES as TABLE } from "../numbers/currencies.ts";
import { below100Word, ENGLISH_MONTHS, ENGLISH_PHRASE as P, ordinalWordValue } from "../numbers/english-words.ts";
import { englishCardinal, englishDigitRun, englishYear, type Value } from "./english-numbers.ts";
import { ibanRule } from "./letters.ts";
import {
  joinable,
  type Match,
  pad2,
  type Rule,
  rewriteWords,
  type Word,
  type WrittenToken,
  writeAmount,
  writeInteger,
} from "./words.ts";

const MONTHS = ENGLISH_MONTHS.map((name) => name.toLowerCase());

interface EnglishCurrency {
  readonly prefix: string;
  readonly subunits: number;
  readonly sub: readonly string[];
}

/** Words callers say for a currency or its subunit that the reader does not, by code. */
const HEARD: Readonly<Record<string, { units?: readonly string[]; subs?: readonly string[] }>> = {
  USD: { units: ["bucks"] },
  SAR: { units: ["rial", "rials"], subs: ["halalah"] },
  EGP: { subs: ["piaster", "piasters"] },
};

/**
 * The currency table's English words (and the heard ones) → how the written form puts the
 * currency before the amount: its symbol ("$12.50"), else its code ("SAR 12.50").
 */
const CURRENCIES: ReadonlyMap<string, EnglishCurrency> = new Map(
  TABLE.flatMap((c) => {
    const heard = HEARD[c.code] ?? {};
    const currency = {
      prefix: c.symbol ?? `${c.code} `,
      subunits: c.subunits,
      sub: [...new Set([...c.enSub, ...(heard.subs ?? [])])],
    };
    return [...c.en, ...(heard.units ?? [])].map((word) => [word, currency] as const);
  }),
);
const MERIDIEM: Readonly<Record<string, string>> = { am: "AM", pm: "PM", "a.m": "AM", "p.m": "PM" };
const YEAR_CONTEXT = new Set(["in", "since", "year", "of", "until", "by", "from", "before", "after"]);

function digitValue(key: string | undefined): number | undefined {
  const v = key === P.oh ? 0 : below100Word(key ?? "");
  return v !== undefined && v <= 9 ? v : undefined;
}

/** "in twenty twenty-four", "since nineteen ninety-nine": a year said in pairs after a word that asks for one. */
function year(words: readonly Word[], i: number): Match | undefined {
  if (!YEAR_CONTEXT.has(words[i - 1]?.key ?? "") || !joinable(words, i - 1)) return undefined;
  const y = englishYear(words, i);
  return y && y.end > i + 1 ? { text: String(y.value), end: y.end, kind: "cardinal" } : undefined;
}

/** A number with an optional "point" fraction (digits one by one, as the reader says them). */
function amount(words: readonly Word[], i: number): { units: number; frac?: string; end: number } | undefined {
  const n = englishCardinal(words, i);
  if (!n) return undefined;
  if (joinable(words, n.end - 1) && words[n.end]!.key === P.point) {
    let frac = "";
    let pos = n.end + 1;
    for (
      let d = digitValue(words[pos]?.key);
      d !== undefined && joinable(words, pos - 1);
      d = digitValue(words[pos]?.key)
    ) {
      frac += String(d);
      pos++;
    }
    if (frac !== "") return { units: n.value, frac, end: pos };
  }
  return { units: n.value, end: n.end };
}

const written = (a: { units: number; frac?: string }): string =>
  a.frac === undefined ? writeInteger(a.units) : `${writeInteger(a.units)}.${a.frac}`;

/** "a m" / "p m" / "am" / "a.m." at `pos`: the marker and the index after it. */
function meridiemAt(words: readonly Word[], pos: number): { text: string; end: number } | undefined {
  if (!joinable(words, pos - 1)) return undefined;
  const key = words[pos]?.key ?? "";
  if (MERIDIEM[key]) return { text: MERIDIEM[key]!, end: pos + 1 };
  if ((key === "a" || key === "p") && joinable(words, pos) && words[pos + 1]!.key === "m")
    return { text: key === "a" ? "AM" : "PM", end: pos + 2 };
  return undefined;
}

/** "fourteen thirty", "nine oh five", "three o'clock", "three p m", "… and seven seconds". */
function time(words: readonly Word[], i: number): Match | undefined {
  const prev = words[i - 1]?.key ?? "";
  const hour = below100Word(words[i]!.key);
  if (hour === undefined || hour > 23 || YEAR_CONTEXT.has(prev) || !joinable(words, i)) return undefined;
  let end = i + 1;
  let minutes: number | undefined;
  const next = words[end]!.key;
  if (next === P.oclock || next === "oclock") {
    minutes = 0;
    end++;
  } else if (next === P.oh && joinable(words, end)) {
    const m = below100Word(words[end + 1]!.key);
    if (m !== undefined && m >= 1 && m <= 9) [minutes, end] = [m, end + 2];
  } else {
    const m = below100Word(next);
    if (m !== undefined && m >= 10 && m <= 59) [minutes, end] = [m, end + 1];
  }
  let mer = meridiemAt(words, minutes === undefined ? i + 1 : end);
  if (minutes === undefined && !mer) return undefined;
  let text = `${hour}:${pad2(minutes ?? 0)}`;
  if (mer) end = mer.end;
  else if (joinable(words, end - 1) && words[end]?.key === P.and) {
    const s = englishCardinal(words, end + 1);
    const noun = s && joinable(words, s.end - 1) ? words[s.end]?.key : undefined;
    if (s && s.value <= 59 && (noun === "second" || noun === "seconds")) {
      text += `:${pad2(s.value)}`;
      end = s.end + 1;
      // The reader says the marker after the seconds: "three oh five and seven seconds p m".
      mer = meridiemAt(words, end);
      if (mer) end = mer.end;
    }
  }
  return { text: mer ? `${text} ${mer.text}` : text, end, kind: "time" };
}

/** "half past three", "quarter past three", "quarter to four". */
function quarterTime(words: readonly Word[], i: number): Match | undefined {
  const key = words[i]!.key;
  const first = key === "half" ? 30 : key === "quarter" ? 15 : undefined;
  if (first === undefined || !joinable(words, i) || !joinable(words, i + 1)) return undefined;
  const rel = words[i + 1]!.key;
  const hour = below100Word(words[i + 2]?.key ?? "");
  if (hour === undefined || hour < 1 || hour > 12 || (rel !== "past" && rel !== "to")) return undefined;
  if (rel === "to" && first === 30) return undefined;
  const text = rel === "past" ? `${hour}:${first}` : `${hour === 1 ? 12 : hour - 1}:45`;
  return { text, end: i + 3, kind: "time" };
}

function dayAt(words: readonly Word[], i: number): Value | undefined {
  const key = words[i]?.key ?? "";
  const o = ordinalWordValue(key) ?? below100Word(key);
  if (o !== undefined && o >= 1 && o <= 31) {
    if (o >= 20 && o % 10 === 0 && joinable(words, i)) {
      const u = ordinalWordValue(words[i + 1]!.key);
      if (u !== undefined && u <= 9) return { value: o + u, end: i + 2 };
    }
    return { value: o, end: i + 1 };
  }
  return undefined;
}

/** "March fifth, twenty twenty-four", "March the fifth", "the fifth of March 2024". */
function date(words: readonly Word[], i: number): Match | undefined {
  let month = MONTHS.indexOf(words[i]!.key);
  let day: Value | undefined;
  let pos: number;
  if (month >= 0) {
    const the = words[i + 1]?.key === "the" && joinable(words, i) ? 1 : 0;
    day = joinable(words, i + the) ? dayAt(words, i + 1 + the) : undefined;
    if (!day) return undefined;
    pos = day.end;
  } else {
    const start = words[i]!.key === "the" && joinable(words, i) ? i + 1 : i;
    day = dayAt(words, start);
    if (!day || (ordinalWordValue(words[start]!.key) === undefined && start === i)) return undefined;
    if (!joinable(words, day.end - 1) || words[day.end]?.key !== "of" || !joinable(words, day.end)) return undefined;
    month = MONTHS.indexOf(words[day.end + 1]?.key ?? "");
    if (month < 0) return undefined;
    pos = day.end + 2;
  }
  const sep = words[pos - 1]!.post;
  const yearOk = (joinable(words, pos - 1) || (sep === "," && words[pos]?.pre === "")) && words[pos] !== undefined;
  const year = yearOk ? englishYear(words, pos) : undefined;
  if (year) {
    const iso = `${year.value}-${pad2(month + 1)}-${pad2(day.value)}`;
    return { text: iso, end: year.end, kind: "date" };
  }
  const name = MONTHS[month]!;
  return { text: `${name[0]!.toUpperCase()}${name.slice(1)} ${day.value}`, end: pos, kind: "date" };
}

/** Money, percentages and plain numbers; "minus" before any of them. */
function quantity(words: readonly Word[], i: number): Match | undefined {
  const minus = (words[i]!.key === P.minus || words[i]!.key === "negative") && joinable(words, i);
  const start = minus ? i + 1 : i;
  const run = englishDigitRun(words, start);
  if (run) {
    if (minus) return undefined;
    return { text: run.groups.join(" "), end: run.end, kind: "digits" };
  }
  const a = amount(words, start);
  if (!a) return undefined;
  const sign = minus ? "-" : "";
  const next = joinable(words, a.end - 1) ? (words[a.end]?.key ?? "") : "";
  const currency = CURRENCIES.get(next);
  if (currency) {
    let end = a.end + 1;
    let subs: number | undefined;
    if (a.frac === undefined && joinable(words, end - 1) && words[end]?.key === P.and) {
      const s = englishCardinal(words, end + 1);
      const noun = s && joinable(words, s.end - 1) ? words[s.end]!.key : "";
      if (s && s.value > 0 && s.value < currency.subunits && currency.sub.includes(noun))
        [subs, end] = [s.value, s.end + 1];
    }
    const value = a.frac === undefined ? writeAmount(a.units, subs, currency.subunits) : written(a);
    return { text: `${sign}${currency.prefix}${value}`, end, kind: "money" };
  }
  if (next === P.percent) return { text: `${sign}${written(a)}%`, end: a.end + 1, kind: "percent" };
  if (next === "per" && joinable(words, a.end) && words[a.end + 1]?.key === "cent")
    return { text: `${sign}${written(a)}%`, end: a.end + 2, kind: "percent" };
  if (!minus && a.end === i + 1 && words[i]!.key === "one" && pronounOne(words, i)) return undefined;
  return { text: sign + written(a), end: a.end, kind: a.frac === undefined ? "cardinal" : "decimal" };
}

const BEFORE_PRONOUN_ONE = new Set([
  "no",
  "any",
  "every",
  "some",
  "each",
  "the",
  "this",
  "that",
  "which",
  "another",
  "a",
]);

/** "one of them", "no one", "the red one": the pronoun, not the number. */
function pronounOne(words: readonly Word[], i: number): boolean {
  const next = joinable(words, i) ? words[i + 1]!.key : "";
  return (
    next === "of" ||
    next === "another" ||
    BEFORE_PRONOUN_ONE.has(words[i - 1]?.key ?? "") ||
    words[i - 2]?.key === "the"
  );
}

/** "plus nine six six, …": a "+" before a digit run. */
function plus(words: readonly Word[], i: number): Match | undefined {
  if (words[i]!.key !== "plus" || !joinable(words, i)) return undefined;
  const run = englishDigitRun(words, i + 1);
  return run ? { text: `+${run.groups.join(" ")}`, end: run.end, kind: "digits" } : undefined;
}

/** Ordinals → "5th", "22nd"; "first" and "second" alone stay words (their other meanings win). */
function ordinal(words: readonly Word[], i: number): Match | undefined {
  const key = words[i]!.key;
  const tens = below100Word(key);
  let value = ordinalWordValue(key);
  let end = i + 1;
  if (tens !== undefined && tens >= 20 && tens % 10 === 0 && joinable(words, i)) {
    const u = ordinalWordValue(words[i + 1]!.key);
    if (u !== undefined && u <= 9) [value, end] = [tens + u, i + 2];
  }
  if (value === undefined || (end === i + 1 && (key === "first" || key === "second"))) return undefined;
  const suffix = value % 100 >= 11 && value % 100 <= 13 ? "th" : (["th", "st", "nd", "rd"][value % 10] ?? "th");
  return { text: `${value}${suffix}`, end, kind: "ordinal" };
}

const RULES: readonly Rule[] = [date, year, quarterTime, time, ibanRule, plus, ordinal, quantity];

/** English spoken words → written tokens. */
export function englishItn(words: readonly string[]): WrittenToken[] {
  return rewriteWords(words, RULES);
}
