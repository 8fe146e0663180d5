/**
 * English number words for the English voice (Yara_en): American style without "and"
 * ("one hundred twenty-three"), decimals digit by digit after "point", years in pairs
 * ("twenty twenty-six"), times in 24-hour style as written ("fourteen thirty", "nine oh five").
 */

import { ENGLISH_ONES, ENGLISH_TENS } from "../numbers/english-words.ts";
import type { Currency } from "../numbers/currencies.ts";
import type { NumberReader } from "./reader.ts";

const ONES = ENGLISH_ONES;
const TENS = ENGLISH_TENS;
const SCALES = ["", "thousand", "million", "billion", "trillion"];
const ORDINAL_WORDS: Record<string, string> = {
  one: "first",
  two: "second",
  three: "third",
  five: "fifth",
  eight: "eighth",
  nine: "ninth",
  twelve: "twelfth",
};

/** English month names, January first. */
export const ENGLISH_MONTHS: readonly string[] = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];

function below100(n: number): string {
  if (n < 20) return ONES[n]!;
  const unit = n % 10;
  return unit === 0 ? TENS[Math.floor(n / 10)]! : `${TENS[Math.floor(n / 10)]}-${ONES[unit]}`;
}

function below1000(n: number): string {
  const hundreds = Math.floor(n / 100);
  const rest = n % 100;
  if (hundreds === 0) return below100(rest);
  return rest === 0 ? `${ONES[hundreds]} hundred` : `${ONES[hundreds]} hundred ${below100(rest)}`;
}

/** Cardinal words for a non-negative safe integer below 10^15. */
export function englishCardinal(n: number): string {
  if (!Number.isSafeInteger(n) || n < 0 || n >= 1e15) throw new RangeError(`cannot read ${n} as English words`);
  if (n === 0) return "zero";
  const parts: string[] = [];
  for (let k = 0, rest = n; rest > 0; k++, rest = Math.floor(rest / 1000)) {
    const group = rest % 1000;
    if (group > 0) parts.unshift(k === 0 ? below1000(group) : `${below1000(group)} ${SCALES[k]}`);
  }
  return parts.join(" ");
}

/** Ordinal words: 1 → "first", 15 → "fifteenth", 22 → "twenty-second". */
export function englishOrdinal(n: number): string {
  const words = englishCardinal(n);
  return words.replace(
    /[a-z]+$/,
    (last) => ORDINAL_WORDS[last] ?? (last.endsWith("y") ? `${last.slice(0, -1)}ieth` : `${last}th`),
  );
}

/** A year read the way English speakers say it. */
export function englishYear(year: number): string {
  const high = Math.floor(year / 100);
  const low = year % 100;
  if (year < 1000 || year % 1000 < 10) return englishCardinal(year); // 2005: "two thousand five"
  if (low === 0) return `${below100(high)} hundred`;
  return `${below100(high)} ${low < 10 ? `oh ${ONES[low]}` : below100(low)}`;
}

function integerOrDigits(digits: string): string {
  const trimmed = digits.replace(/^0+(?=\d)/, "");
  return trimmed.length > 15 ? englishReader.symbols(digits) : englishCardinal(Number(trimmed));
}

function plural(n: number, forms: readonly [string, string]): string {
  return `${englishCardinal(n)} ${n === 1 ? forms[0] : forms[1]}`;
}

/** English number reader for {@link NumberReader}. */
export const englishReader: NumberReader = {
  integer: integerOrDigits,
  decimal: (integer, frac) => `${integerOrDigits(integer)} point ${englishReader.symbols(frac)}`,
  negative: (words) => `minus ${words}`,
  range: (from, to) => `${from} to ${to}`,
  percent: (words) => `${words} percent`,
  money(integer, frac, currency: Currency, negative) {
    const subDigits = String(currency.subunits).length - 1;
    let words: string;
    if (integer.length > 15 || (frac !== undefined && frac.length > subDigits)) {
      words = `${frac === undefined ? integerOrDigits(integer) : englishReader.decimal(integer, frac)} ${currency.en[1]}`;
    } else {
      const units = Number(integer);
      const subs = frac === undefined ? 0 : Number(frac.padEnd(subDigits, "0"));
      const parts: string[] = [];
      if (units > 0 || subs === 0) parts.push(plural(units, currency.en));
      if (subs > 0) parts.push(plural(subs, currency.enSub));
      words = parts.join(" and ");
    }
    return negative ? `minus ${words}` : words;
  },
  date: (year, month, day) => `${ENGLISH_MONTHS[month - 1]} ${englishOrdinal(day)}, ${englishYear(year)}`,
  time(hours, minutes, seconds, meridiem) {
    let words =
      minutes === 0
        ? `${englishCardinal(hours)} o'clock`
        : `${englishCardinal(hours)} ${minutes < 10 ? `oh ${ONES[minutes]}` : below100(minutes)}`;
    if (seconds !== undefined && seconds > 0) words += ` and ${plural(seconds, ["second", "seconds"])}`;
    if (meridiem !== undefined) words = `${words.replace(/ o'clock$/, "")} ${englishReader.meridiems[meridiem]}`;
    return words;
  },
  symbols: (run) =>
    [...run].map((c) => (c === "+" ? "plus" : /\d/.test(c) ? ONES[Number(c)]! : c.toUpperCase())).join(" "),
  groupSeparator: ", ",
  ordinal: englishOrdinal,
  meridiems: { am: "a m", pm: "p m" },
};
