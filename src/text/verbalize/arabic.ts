/**
 * The Arabic number reader: amounts, money, dates, times and digit runs said in Modern Standard
 * Arabic with the vocabulary of ../numbers/ (the words ITN reads back), numbers by
 * ../numbers/arabic-cardinal.ts. Each dialect's way of saying the result is applied after it
 * (../numbers/dialects.ts).
 */
import { gregorianMonthName } from "../numbers/arabic-calendar.ts";
import { arabicCardinal, arabicDayOrdinal, countArabic } from "../numbers/arabic-cardinal.ts";
import { LATIN_LETTER_NAMES, MINUTE, ONES_MASCULINE, PHRASE, SECOND } from "../numbers/arabic-words.ts";
import type { Currency } from "../numbers/currencies.ts";
import type { Meridiem, NumberReader } from "./reader.ts";

const ZERO = ONES_MASCULINE[0]!;

function integerOrDigits(digits: string): string {
  const trimmed = digits.replace(/^0+(?=\d)/, "");
  return trimmed.length > 15 ? arabicReader.symbols(digits) : arabicCardinal(Number(trimmed));
}

/** Reads a fraction as a whole number after one "صفر" per leading zero ("05" → "صفر خمسة"). */
function fraction(digits: string): string {
  if (digits.length > 6) return arabicReader.symbols(digits);
  const zeros = /^0*/.exec(digits)![0].length;
  const words = Array<string>(Math.min(zeros, digits.length)).fill(ZERO);
  if (zeros < digits.length) words.push(arabicCardinal(Number(digits)));
  return words.join(" ");
}

/** Arabic number reader for {@link NumberReader}. */
export const arabicReader: NumberReader = {
  integer: integerOrDigits,
  decimal: (integer, frac) => `${integerOrDigits(integer)} ${PHRASE.point} ${fraction(frac)}`,
  negative: (words) => `${PHRASE.minus} ${words}`,
  range: (from, to) => `${from} ${PHRASE.to} ${to}`,
  percent: (words) => `${words} ${PHRASE.percent}`,
  money(integer, frac, currency: Currency, negative) {
    const units = Number(integer.replace(/^0+(?=\d)/, ""));
    const subDigits = String(currency.subunits).length - 1;
    let words: string;
    if (integer.length > 15 || (frac !== undefined && frac.length > subDigits)) {
      // Beyond the subunit precision: a plain decimal, then the currency name.
      words = `${frac === undefined ? integerOrDigits(integer) : arabicReader.decimal(integer, frac)} ${currency.ar.singular}`;
    } else {
      const subs = frac === undefined ? 0 : Number(frac.padEnd(subDigits, "0"));
      const parts: string[] = [];
      if (units > 0 || subs === 0) parts.push(countArabic(units, currency.ar));
      if (subs > 0) parts.push(countArabic(subs, currency.arSub));
      words = parts.join(" و");
    }
    return negative ? arabicReader.negative(words) : words;
  },
  date: (year, month, day) =>
    `${arabicDayOrdinal(day)} ${PHRASE.of} ${gregorianMonthName(month)} ${arabicCardinal(year, { genitive: true })}`,
  time(hours, minutes, seconds, meridiem?: Meridiem) {
    let words = `${PHRASE.hour} ${arabicCardinal(hours)}`;
    if (minutes > 0) words += ` و${countArabic(minutes, MINUTE)}`;
    if (seconds !== undefined && seconds > 0) words += ` و${countArabic(seconds, SECOND)}`;
    return meridiem === undefined ? words : `${words} ${arabicReader.meridiems[meridiem]}`;
  },
  symbols: (run) =>
    [...run]
      .map((c) =>
        c === "+"
          ? PHRASE.plus
          : /\d/.test(c)
            ? ONES_MASCULINE[Number(c)]!
            : (LATIN_LETTER_NAMES[c.toUpperCase()] ?? c),
      )
      .join(" "),
  groupSeparator: "، ",
  meridiems: { am: PHRASE.am, pm: PHRASE.pm },
};
