/**
 * Numbers → Arabic words (Modern Standard Arabic, the words of ./arabic-words.ts). Rules, chosen
 * to be correct and simple enough to audit:
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
import {
  type ArabicNoun,
  DEFINITE,
  HUNDREDS,
  HUNDREDS_GENITIVE_200,
  ONE_FEMININE_COMPOUND,
  ONES_FEMININE,
  ONES_MASCULINE,
  ORDINAL_ONE_COMPOUND,
  ORDINALS,
  SCALES,
  TEEN_HEADS,
  TEEN_TEN,
  TENS,
} from "./arabic-words.ts";

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

/**
 * Final words that change when a noun follows directly (construct state): a dual drops its ن
 * ("مئتا ريال", "ألفا ريال") and an accusative tamyeez loses its tanween ("اثنا عشر ألف درهم").
 */
export const CONSTRUCT: ReadonlyMap<string, string> = (() => {
  const map = new Map<string, string>();
  for (const scale of SCALES.slice(1)) {
    for (const dual of scale.dual) map.set(dual, dual.slice(0, -1));
    map.set(scale.accusative, scale.singular);
  }
  for (const dual of [HUNDREDS[2]!, HUNDREDS_GENITIVE_200]) map.set(dual, dual.slice(0, -1));
  return map;
})();

/** Largest integer read as words; longer digit strings are read digit by digit. */
export const MAX_ARABIC_CARDINAL = 999_999_999_999_999;

/** A nominative dual or sound plural made genitive: «اثنان» → «اثنين», «عشرون» → «عشرين». */
export function oblique(word: string): string {
  return word.replace(/ان$/, "ين").replace(/ون$/, "ين");
}

function below100(n: number, gender: Gender, genitive: boolean): string {
  const ones = gender === "feminine" ? ONES_FEMININE : ONES_MASCULINE;
  const inCase = (w: string): string => (genitive ? oblique(w) : w);
  const ten = TEEN_TEN[gender];
  if (n <= 10) return inCase(ones[n]!);
  if (n === 11) return `${TEEN_HEADS[11][gender][0]} ${ten}`;
  if (n === 12) return `${TEEN_HEADS[12][gender][genitive ? 1 : 0]} ${ten}`;
  if (n < 20) return `${ones[n - 10]} ${ten}`;
  const unit = n % 10;
  const tens = inCase(TENS[Math.floor(n / 10)]!);
  if (unit === 0) return tens;
  const unitWord = unit === 1 ? (gender === "feminine" ? ONE_FEMININE_COMPOUND : ones[1]!) : inCase(ones[unit]!);
  return `${unitWord} و${tens}`;
}

function below1000(n: number, gender: Gender, genitive: boolean): string {
  const hundreds = Math.floor(n / 100);
  const rest = n % 100;
  const parts: string[] = [];
  if (hundreds > 0) parts.push(genitive && hundreds === 2 ? HUNDREDS_GENITIVE_200 : HUNDREDS[hundreds]!);
  if (rest > 0) parts.push(below100(rest, gender, genitive));
  return parts.join(" و");
}

/** Cardinal number words for a non-negative safe integer up to {@link MAX_ARABIC_CARDINAL}. */
export function arabicCardinal(n: number, options: ArabicCardinalOptions = {}): string {
  if (!Number.isSafeInteger(n) || n < 0 || n > MAX_ARABIC_CARDINAL)
    throw new RangeError(`cannot read ${n} as Arabic words`);
  if (n === 0) return ONES_MASCULINE[0]!;
  const genitive = options.genitive === true;
  const groups: number[] = [];
  for (let rest = n; rest > 0; rest = Math.floor(rest / 1000)) groups.push(rest % 1000);
  const parts: string[] = [];
  for (let k = groups.length - 1; k >= 0; k--) {
    const g = groups[k]!;
    if (g === 0) continue;
    if (k === 0) parts.push(below1000(g, options.gender ?? "masculine", genitive));
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
  if (n === 0) return `${ONES_MASCULINE[0]} ${noun.singular}`;
  if (n === 1) return `${noun.singular} ${noun.feminine ? ONES_FEMININE[1] : ONES_MASCULINE[1]}`;
  if (n === 2) return noun.dual[genitive ? 1 : 0];
  return counted(n, noun, genitive);
}

/** Masculine definite ordinal for a day of the month (1–31): "الخامس عشر". */
export function arabicDayOrdinal(day: number): string {
  if (day <= 10) return ORDINALS[day]!;
  if (day === 11) return `${ORDINAL_ONE_COMPOUND} ${TEEN_TEN.masculine}`;
  if (day < 20) return `${ORDINALS[day - 10]} ${TEEN_TEN.masculine}`;
  const tens = DEFINITE + TENS[Math.floor(day / 10)]!;
  const unit = day % 10;
  if (unit === 0) return tens;
  return `${unit === 1 ? ORDINAL_ONE_COMPOUND : ORDINALS[unit]} و${tens}`;
}
