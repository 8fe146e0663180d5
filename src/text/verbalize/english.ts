/**
 * The English number reader for the English voice (Yara_en), with the words of ../numbers/
 * (the words ITN reads back): decimals digit by digit after "point", dates as "March fifth,
 * twenty twenty-six", times in 24-hour style as written ("fourteen thirty", "nine oh five").
 */
import type { Currency } from "../numbers/currencies.ts";
import { below100, englishCardinal, englishOrdinal, englishYear } from "../numbers/english-cardinal.ts";
import { ENGLISH_MONTHS, ENGLISH_ONES, ENGLISH_PHRASE } from "../numbers/english-words.ts";
import type { NumberReader } from "./reader.ts";

const ONES = ENGLISH_ONES;
const P = ENGLISH_PHRASE;

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
  decimal: (integer, frac) => `${integerOrDigits(integer)} ${P.point} ${englishReader.symbols(frac)}`,
  negative: (words) => `${P.minus} ${words}`,
  range: (from, to) => `${from} ${P.to} ${to}`,
  percent: (words) => `${words} ${P.percent}`,
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
      words = parts.join(` ${P.and} `);
    }
    return negative ? englishReader.negative(words) : words;
  },
  date: (year, month, day) => `${ENGLISH_MONTHS[month - 1]} ${englishOrdinal(day)}, ${englishYear(year)}`,
  time(hours, minutes, seconds, meridiem) {
    let words =
      minutes === 0
        ? `${englishCardinal(hours)} ${P.oclock}`
        : `${englishCardinal(hours)} ${minutes < 10 ? `${P.oh} ${ONES[minutes]}` : below100(minutes)}`;
    if (seconds !== undefined && seconds > 0) words += ` ${P.and} ${plural(seconds, ["second", "seconds"])}`;
    if (meridiem !== undefined) {
      const bare = words.endsWith(` ${P.oclock}`) ? words.slice(0, -P.oclock.length - 1) : words;
      words = `${bare} ${englishReader.meridiems[meridiem]}`;
    }
    return words;
  },
  symbols: (run) =>
    [...run].map((c) => (c === "+" ? P.plus : /\d/.test(c) ? ONES[Number(c)]! : c.toUpperCase())).join(" "),
  groupSeparator: ", ",
  ordinal: englishOrdinal,
  meridiems: { am: P.am, pm: P.pm },
};
