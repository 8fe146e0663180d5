/**
 * Arabic number words (Modern Standard Arabic, undiacritised except the accusative tanween
 * alif "ًا"). Rules, chosen to be correct and simple enough to audit:
 *
 * - Numbers read alone use the forms that count a masculine noun ("ثلاثة", "أحد عشر"), which is
 *   also how digits are recited. Nominative unless the caller asks for genitive (years).
 * - Hundreds: مئة، مئتان، ثلاثمئة … تسعمئة (modern joined spelling, "مئة" not "مائة").
 * - A counted noun (thousands, millions, currencies, minutes) follows the last two digits:
 *   1 → "ريال واحد" / "ألف"; 2 → dual "ريالان" / "ألفان"; 3–10 → genitive plural "ثلاثة ريالات";
 *   11–99 → accusative singular "خمسون ريالًا"; a round hundred/thousand → genitive singular
 *   "مئة ريال", with a dual number in construct state "مئتا ريال", "ألفا ريال". When a number
 *   above 100 ends in 1 or 2 the noun is repeated: "مئة ريال وريال", "مئة ألف وألفان".
 * - Number and noun gender follow the counted noun (all currencies are masculine; هللة, دقيقة,
 *   ثانية are feminine: "ثلاث دقائق", "إحدى عشرة دقيقة").
 */

import type { ArabicNoun, Currency } from "../numbers/currencies.ts";
import type { Meridiem, NumberReader } from "./reader.ts";

/** Grammatical gender of the counted noun. */
export type Gender = "masculine" | "feminine";

/** Options of {@link arabicCardinal}. */
export interface ArabicCardinalOptions {
  readonly gender?: Gender;
  /** Genitive turns duals and sound plurals oblique: "ألفين وستة وعشرين". */
  readonly genitive?: boolean;
  /** The number is directly followed by a singular noun: a final dual drops its ن ("مئتا"). */
  readonly construct?: boolean;
}

const ONES_M = ["", "واحد", "اثنان", "ثلاثة", "أربعة", "خمسة", "ستة", "سبعة", "ثمانية", "تسعة", "عشرة"];
const ONES_F = ["", "واحدة", "اثنتان", "ثلاث", "أربع", "خمس", "ست", "سبع", "ثماني", "تسع", "عشر"];
const TENS = ["", "", "عشرون", "ثلاثون", "أربعون", "خمسون", "ستون", "سبعون", "ثمانون", "تسعون"];
const HUNDREDS = ["", "مئة", "مئتان", "ثلاثمئة", "أربعمئة", "خمسمئة", "ستمئة", "سبعمئة", "ثمانمئة", "تسعمئة"];
const ORDINALS = [
  "",
  "الأول",
  "الثاني",
  "الثالث",
  "الرابع",
  "الخامس",
  "السادس",
  "السابع",
  "الثامن",
  "التاسع",
  "العاشر",
];
const DIGITS = ["صفر", "واحد", "اثنان", "ثلاثة", "أربعة", "خمسة", "ستة", "سبعة", "ثمانية", "تسعة"];

/** Gregorian month names as used in Saudi and Egyptian business Arabic. */
export const ARABIC_MONTHS: readonly string[] = [
  "يناير",
  "فبراير",
  "مارس",
  "أبريل",
  "مايو",
  "يونيو",
  "يوليو",
  "أغسطس",
  "سبتمبر",
  "أكتوبر",
  "نوفمبر",
  "ديسمبر",
];

/** Arabic names of Latin letters, for spelling IBANs and codes to an Arabic voice. */
const LETTERS: Record<string, string> = {
  A: "إيه",
  B: "بي",
  C: "سي",
  D: "دي",
  E: "إي",
  F: "إف",
  G: "جي",
  H: "إتش",
  I: "آي",
  J: "جيه",
  K: "كيه",
  L: "إل",
  M: "إم",
  N: "إن",
  O: "أو",
  P: "بي",
  Q: "كيو",
  R: "آر",
  S: "إس",
  T: "تي",
  U: "يو",
  V: "في",
  W: "دبليو",
  X: "إكس",
  Y: "واي",
  Z: "زد",
};

function scaleNoun(singular: string, plural: string): ArabicNoun {
  return { singular, dual: [`${singular}ان`, `${singular}ين`], plural, accusative: `${singular}ًا`, feminine: false };
}

/** Index = power of 1000. Beyond trillions numbers are read digit by digit. */
const SCALES: readonly ArabicNoun[] = [
  scaleNoun("", ""),
  scaleNoun("ألف", "آلاف"),
  scaleNoun("مليون", "ملايين"),
  scaleNoun("مليار", "مليارات"),
  scaleNoun("تريليون", "تريليونات"),
];
/**
 * Final words that change when a noun follows directly (construct state): a dual drops its ن
 * ("مئتا ريال", "ألفا ريال") and an accusative tamyeez loses its tanween ("اثنا عشر ألف درهم").
 */
const CONSTRUCT = new Map<string, string>();
for (const scale of SCALES.slice(1)) {
  for (const dual of scale.dual) CONSTRUCT.set(dual, dual.slice(0, -1));
  CONSTRUCT.set(scale.accusative, scale.singular);
}
for (const dual of ["مئتان", "مئتين"]) CONSTRUCT.set(dual, dual.slice(0, -1));

const MINUTE: ArabicNoun = {
  singular: "دقيقة",
  dual: ["دقيقتان", "دقيقتين"],
  plural: "دقائق",
  accusative: "دقيقة",
  feminine: true,
};
const SECOND: ArabicNoun = {
  singular: "ثانية",
  dual: ["ثانيتان", "ثانيتين"],
  plural: "ثوان",
  accusative: "ثانية",
  feminine: true,
};

/** Largest integer read as words; longer digit strings are read digit by digit. */
export const MAX_ARABIC_CARDINAL = 999_999_999_999_999;

function below100(n: number, feminine: boolean, genitive: boolean): string {
  const ones = feminine ? ONES_F : ONES_M;
  const oblique = (w: string): string => (genitive ? w.replace(/ان$/, "ين").replace(/ون$/, "ين") : w);
  if (n <= 10) return oblique(ones[n]!);
  if (n === 11) return feminine ? "إحدى عشرة" : "أحد عشر";
  if (n === 12)
    return (feminine ? (genitive ? "اثنتي" : "اثنتا") : genitive ? "اثني" : "اثنا") + (feminine ? " عشرة" : " عشر");
  if (n < 20) return `${ones[n - 10]} ${feminine ? "عشرة" : "عشر"}`;
  const unit = n % 10;
  const tens = oblique(TENS[Math.floor(n / 10)]!);
  if (unit === 0) return tens;
  const unitWord = unit === 1 ? (feminine ? "إحدى" : "واحد") : oblique(ones[unit]!);
  return `${unitWord} و${tens}`;
}

function below1000(n: number, feminine: boolean, genitive: boolean): string {
  const hundreds = Math.floor(n / 100);
  const rest = n % 100;
  const parts: string[] = [];
  if (hundreds > 0) parts.push(genitive && hundreds === 2 ? "مئتين" : HUNDREDS[hundreds]!);
  if (rest > 0) parts.push(below100(rest, feminine, genitive));
  return parts.join(" و");
}

/** Cardinal number words for a non-negative safe integer up to {@link MAX_ARABIC_CARDINAL}. */
export function arabicCardinal(n: number, options: ArabicCardinalOptions = {}): string {
  if (!Number.isSafeInteger(n) || n < 0 || n > MAX_ARABIC_CARDINAL)
    throw new RangeError(`cannot read ${n} as Arabic words`);
  if (n === 0) return "صفر";
  const genitive = options.genitive === true;
  const groups: number[] = [];
  for (let rest = n; rest > 0; rest = Math.floor(rest / 1000)) groups.push(rest % 1000);
  const parts: string[] = [];
  for (let k = groups.length - 1; k >= 0; k--) {
    const g = groups[k]!;
    if (g === 0) continue;
    if (k === 0) parts.push(below1000(g, options.gender === "feminine", genitive));
    else if (g === 1) parts.push(SCALES[k]!.singular);
    else if (g === 2) parts.push(SCALES[k]!.dual[genitive ? 1 : 0]);
    else parts.push(counted(g, SCALES[k]!, genitive));
  }
  let words = parts.join(" و");
  if (options.construct) {
    const last = words.slice(words.lastIndexOf(" ") + 1);
    const construct = CONSTRUCT.get(last);
    if (construct !== undefined) words = words.slice(0, words.length - last.length) + construct;
  }
  return words;
}

/** n (≥ 3) things of `noun`, by the agreement rules in the file comment. */
function counted(n: number, noun: ArabicNoun, genitive: boolean): string {
  const rest = n % 100;
  const base = n - rest;
  if (rest === 0) return `${arabicCardinal(n, { genitive, construct: true })} ${noun.singular}`;
  if (rest <= 2 && base > 0) {
    const head = `${arabicCardinal(base, { genitive, construct: true })} ${noun.singular}`;
    return `${head} و${rest === 1 ? noun.singular : noun.dual[genitive ? 1 : 0]}`;
  }
  const words = arabicCardinal(n, { gender: noun.feminine ? "feminine" : "masculine", genitive });
  return `${words} ${rest <= 10 ? noun.plural : noun.accusative}`;
}

/** A number followed by its counted noun with correct agreement: "مئة وخمسون ريالًا". */
export function countArabic(n: number, noun: ArabicNoun, genitive = false): string {
  if (n === 0) return `صفر ${noun.singular}`;
  if (n === 1) return `${noun.singular} ${noun.feminine ? "واحدة" : "واحد"}`;
  if (n === 2) return noun.dual[genitive ? 1 : 0];
  return counted(n, noun, genitive);
}

/** Masculine definite ordinal for a day of the month (1–31): "الخامس عشر". */
export function arabicDayOrdinal(day: number): string {
  if (day <= 10) return ORDINALS[day]!;
  if (day === 11) return "الحادي عشر";
  if (day < 20) return `${ORDINALS[day - 10]} عشر`;
  const tens = day >= 30 ? "الثلاثون" : "العشرون";
  const unit = day % 10;
  if (unit === 0) return tens;
  return `${unit === 1 ? "الحادي" : ORDINALS[unit]} و${tens}`;
}

function integerOrDigits(digits: string): string {
  const trimmed = digits.replace(/^0+(?=\d)/, "");
  return trimmed.length > 15 ? arabicReader.symbols(digits) : arabicCardinal(Number(trimmed));
}

/** Reads a fraction as a whole number after one "صفر" per leading zero ("05" → "صفر خمسة"). */
function fraction(digits: string): string {
  if (digits.length > 6) return arabicReader.symbols(digits);
  const zeros = /^0*/.exec(digits)![0].length;
  const words = Array<string>(Math.min(zeros, digits.length)).fill("صفر");
  if (zeros < digits.length) words.push(arabicCardinal(Number(digits)));
  return words.join(" ");
}

/** Arabic number reader for {@link NumberReader}. */
export const arabicReader: NumberReader = {
  integer: integerOrDigits,
  decimal: (integer, frac) => `${integerOrDigits(integer)} فاصلة ${fraction(frac)}`,
  negative: (words) => `سالب ${words}`,
  range: (from, to) => `${from} إلى ${to}`,
  percent: (words) => `${words} بالمئة`,
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
    `${arabicDayOrdinal(day)} من ${ARABIC_MONTHS[month - 1]} ${arabicCardinal(year, { genitive: true })}`,
  time(hours, minutes, seconds, meridiem?: Meridiem) {
    let words = `الساعة ${arabicCardinal(hours)}`;
    if (minutes > 0) words += ` و${countArabic(minutes, MINUTE)}`;
    if (seconds !== undefined && seconds > 0) words += ` و${countArabic(seconds, SECOND)}`;
    return meridiem === undefined ? words : `${words} ${arabicReader.meridiems[meridiem]}`;
  },
  symbols: (run) =>
    [...run]
      .map((c) => (c === "+" ? "زائد" : /\d/.test(c) ? DIGITS[Number(c)]! : (LETTERS[c.toUpperCase()] ?? c)))
      .join(" "),
  groupSeparator: "، ",
  meridiems: { am: "صباحًا", pm: "مساءً" },
};
