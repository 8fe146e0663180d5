/**
 * Reads the numbers a call centre writes as words of the voice's language: amounts, money,
 * percentages, dates, times, and phone/account numbers (digit by digit). Each recogniser is a
 * regular-expression pass run most-specific first (IBAN → date → time → grouped phone → range
 * → money → percent → ordinal → plain number), so a later pass never sees digits an earlier
 * one already turned into words. Decisions, documented for reviewers:
 *
 * - Digits: Western 0-9, Arabic-Indic ٠-٩ and Eastern ۰-۹; ٫ is a decimal point, ٬ a thousands
 *   separator, ٪ a percent sign.
 * - Digit by digit: runs that start with 0 or +, plain runs of 7+ digits (account numbers are far
 *   more common than unformatted large amounts; write "1,500,000" or add a currency to get
 *   words), IBAN-like codes, and digit groups separated by single spaces or dashes when there are
 *   3+ groups or the first starts with 0/+ ("050 123 4567", "+966 50 123 4567"). Groups are
 *   joined by a comma so the voice pauses as a person would.
 * - Dates: YYYY-MM-DD (also / and .) and DD/MM/YYYY (day first, as in Saudi and Egyptian usage).
 * - Ranges: "9-5", "1-2" (no leading zero, ≤ 4 digits each) read "from … to": "تسعة إلى خمسة".
 * - Times: H:MM or HH:MM[:SS] in 24-hour reading, with optional ص/م/AM/PM.
 * - Money: an amount with a currency word, code or symbol before or after it; fractions become
 *   the subunit ("12.50 ريال" → "اثنا عشر ريالًا وخمسون هللة").
 */

import { asciiNumerals } from "../arabic/digits.ts";
import { arabicReader } from "./arabic.ts";
import { CURRENCIES, type Currency } from "../numbers/currencies.ts";
import { englishReader } from "./english.ts";
import type { Meridiem, NumberReader } from "./reader.ts";

/** Languages the front-end reads numbers in. */
export type NumberLanguage = "ar" | "en";

const READERS: Record<NumberLanguage, NumberReader> = { ar: arabicReader, en: englishReader };

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const alternation = (words: Iterable<string>): string =>
  [...words]
    .sort((a, b) => b.length - a.length)
    .map(escape)
    .join("|");

const SUFFIX_CURRENCY = new Map<string, Currency>();
const PREFIX_CURRENCY = new Map<string, Currency>();
for (const currency of CURRENCIES) {
  for (const alias of currency.aliases) if (!SUFFIX_CURRENCY.has(alias)) SUFFIX_CURRENCY.set(alias, currency);
  for (const prefix of currency.prefixes) if (!PREFIX_CURRENCY.has(prefix)) PREFIX_CURRENCY.set(prefix, currency);
}

/** An amount: optional minus, integer with optional thousands commas, optional fraction. */
const AMOUNT = String.raw`(?<neg>[-−])?(?<int>\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?:\.(?<frac>\d+))?`;
/** Not inside a word or number; a single Arabic proclitic ("ب١٠٠ ريال") is allowed before. */
const NOT_BEFORE = String.raw`(?<![\p{N}.,])(?<![\p{L}\p{M}]{2}|[^وبلفك\P{L}])`;
const NOT_AFTER = String.raw`(?![\p{L}\p{M}\p{N}])`;

const IBAN = /(?<![\p{L}\p{N}])[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?(?![\p{L}\p{N}])/gu;
const ISO_DATE = /(?<!\d|\d[-/.])(\d{4})([-/.])(\d{1,2})\2(\d{1,2})(?!\d|[-/.]\d)/gu;
const DMY_DATE = /(?<!\d|\d[-/.])(\d{1,2})([-/.])(\d{1,2})\2(\d{4})(?!\d|[-/.]\d)/gu;
const TIME =
  /(?<![\d:.])([01]?\d|2[0-3]):([0-5]\d)(?::([0-5]\d))?(?!\d|:\d)(?:\s?(AM|PM|am|pm|a\.m\.|p\.m\.|ص|م)(?![\p{L}\p{M}]))?/gu;
const GROUPED = /(?<![\p{L}\p{N}+])(\+?\d{1,5}(?:[ -]\d{2,8})+)(?![\p{N}]|[.,]\d)/gu;
const MONEY_SUFFIX = new RegExp(
  `${NOT_BEFORE}${AMOUNT} ?(?<cur>${alternation(SUFFIX_CURRENCY.keys())})${NOT_AFTER}`,
  "gu",
);
const MONEY_PREFIX = new RegExp(
  `(?<![\\p{L}\\p{N}])(?<neg0>[-−])?(?<cur>${alternation(PREFIX_CURRENCY.keys())}) ?${AMOUNT.replace("(?<neg>[-−])?", "")}(?![\\p{N}]|[.,]\\d)`,
  "gu",
);
const PERCENT = new RegExp(`${NOT_BEFORE}${AMOUNT} ?%`, "gu");
/** "%50" / "٪٥٠": the sign typed first, as some Arabic keyboards produce it. */
const PERCENT_FIRST = new RegExp(`(?<![\\p{N}])%${AMOUNT.replace("(?<neg>[-−])?", "")}(?![\\p{N}]|[.,]\\d)`, "gu");
/** "9-5", "1-2": not when money or a percent follows, whose own passes read the amount. */
const RANGE = new RegExp(
  `(?<![\\p{L}\\p{N}.,:\\-−+])([1-9]\\d{0,3})-([1-9]\\d{0,3})(?![\\p{N}]|[-.,:]\\d| ?(?:%|${alternation(SUFFIX_CURRENCY.keys())}))`,
  "gu",
);
const ORDINAL = /(?<![\p{L}\p{N}])(\d{1,9})(st|nd|rd|th)(?![\p{L}])/gu;
const NUMBER = /(?<!\p{N})(?<sign>(?<![\p{L}\p{N}])[-−+])?(?<int>\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?:\.(?<frac>\d+))?/gu;

/** Single-letter Arabic proclitics ("و٥" = "and five") stay attached to the words that follow. */
const PROCLITIC = /(?:^|[^\p{L}\p{M}])[وبلفك]$/u;
const WORDLIKE = /[\p{L}\p{M}\p{N}]/u;

/** Replaces each match for which `read` returns words, spacing them off adjacent letters. */
function rewrite(text: string, pattern: RegExp, read: (m: RegExpExecArray) => string | undefined): string {
  let out = "";
  let last = 0;
  for (const m of text.matchAll(pattern)) {
    const words = read(m as RegExpExecArray);
    if (words === undefined) continue;
    const end = m.index + m[0].length;
    const before = text.slice(Math.max(0, m.index - 2), m.index);
    const padLeft = WORDLIKE.test(before.slice(-1)) && !PROCLITIC.test(before) ? " " : "";
    const padRight = WORDLIKE.test(text[end] ?? "") ? " " : "";
    out += text.slice(last, m.index) + padLeft + words + padRight;
    last = end;
  }
  return out + text.slice(last);
}

const stripCommas = (digits: string): string => digits.replaceAll(",", "");

/** Words for an amount (integer or decimal), without sign handling. */
function amountWords(reader: NumberReader, int: string, frac: string | undefined): string {
  const digits = stripCommas(int);
  return frac === undefined ? reader.integer(digits) : reader.decimal(digits, frac);
}

function readDate(reader: NumberReader, year: string, month: string, day: string): string | undefined {
  const [y, m, d] = [Number(year), Number(month), Number(day)];
  return m >= 1 && m <= 12 && d >= 1 && d <= 31 ? reader.date(y, m, d) : undefined;
}

function meridiem(marker: string | undefined): Meridiem | undefined {
  if (marker === undefined) return undefined;
  return /^[aAص]/u.test(marker) ? "am" : "pm";
}

function readGrouped(reader: NumberReader, run: string): string | undefined {
  const groups = run.split(/[ -]/);
  const digits = groups.join("").replace("+", "").length;
  const leading = /^[+0]/.test(run);
  if (digits < 7 || !groups.some((g) => g.replace("+", "").length >= 3)) return undefined;
  if (groups.length < 3 && !leading) return undefined; // "2020-2024", "123 4567": not a phone
  return groups.map((g) => reader.symbols(g)).join(reader.groupSeparator);
}

function readNumber(reader: NumberReader, groups: Record<string, string | undefined>): string {
  const { sign, int = "", frac } = groups;
  if (sign === "+") return reader.symbols(`+${int}`) + (frac === undefined ? "" : ` ${reader.symbols(frac)}`);
  let words: string;
  if (frac === undefined && !int.includes(",") && (int.length >= 7 || (int.length > 1 && int.startsWith("0")))) {
    words = reader.symbols(int);
  } else {
    words = amountWords(reader, int, frac);
  }
  return sign === undefined ? words : reader.negative(words);
}

/**
 * Rewrites every number in `text` as words of `lang` (see the file comment for the rules).
 * Text without digits comes back unchanged apart from digit-system folding.
 */
export function normalizeNumbers(text: string, lang: NumberLanguage): string {
  const reader = READERS[lang];
  let out = asciiNumerals(text);
  if (!/\d/.test(out)) return out;
  out = rewrite(out, IBAN, (m) =>
    m[0]
      .replace(/ /g, "")
      .match(/.{1,4}/g)!
      .map((g) => reader.symbols(g))
      .join(reader.groupSeparator),
  );
  out = rewrite(out, ISO_DATE, (m) => readDate(reader, m[1]!, m[3]!, m[4]!));
  out = rewrite(out, DMY_DATE, (m) => readDate(reader, m[4]!, m[3]!, m[1]!));
  out = rewrite(out, TIME, (m) =>
    reader.time(Number(m[1]), Number(m[2]), m[3] === undefined ? undefined : Number(m[3]), meridiem(m[4])),
  );
  out = rewrite(out, GROUPED, (m) => readGrouped(reader, m[1]!));
  out = rewrite(out, RANGE, (m) => reader.range(reader.integer(m[1]!), reader.integer(m[2]!)));
  out = rewrite(out, MONEY_SUFFIX, (m) => {
    const g = m.groups!;
    return reader.money(stripCommas(g.int!), g.frac, SUFFIX_CURRENCY.get(g.cur!)!, g.neg !== undefined);
  });
  out = rewrite(out, MONEY_PREFIX, (m) => {
    const g = m.groups!;
    return reader.money(stripCommas(g.int!), g.frac, PREFIX_CURRENCY.get(g.cur!)!, g.neg0 !== undefined);
  });
  out = rewrite(out, PERCENT, (m) => {
    const g = m.groups!;
    const words = reader.percent(amountWords(reader, g.int!, g.frac));
    return g.neg === undefined ? words : reader.negative(words);
  });
  out = rewrite(out, PERCENT_FIRST, (m) => reader.percent(amountWords(reader, m.groups!.int!, m.groups!.frac)));
  const ordinal = reader.ordinal;
  if (ordinal !== undefined) out = rewrite(out, ORDINAL, (m) => ordinal(Number(m[1])));
  return rewrite(out, NUMBER, (m) => readNumber(reader, m.groups!));
}

/** {@link normalizeNumbers} for the English voice: English words, phone digits one by one. */
export function normalizeNumbersEnglish(text: string): string {
  return normalizeNumbers(text, "en");
}
