/**
 * THE English number vocabulary, both ways: the TTS reader says numbers with these words
 * (./english-cardinal.ts, ../verbalize/english.ts) and written forms read them back
 * (../itn/english*.ts, through {@link below100Word} and {@link ordinalWordValue}), so the two can
 * never disagree on a word.
 */

/** English words for 0–19, by value. */
export const ENGLISH_ONES: readonly string[] = [
  "zero",
  "one",
  "two",
  "three",
  "four",
  "five",
  "six",
  "seven",
  "eight",
  "nine",
  "ten",
  "eleven",
  "twelve",
  "thirteen",
  "fourteen",
  "fifteen",
  "sixteen",
  "seventeen",
  "eighteen",
  "nineteen",
];

/** English tens by their digit (20 = "twenty"); 0 and 1 have none. */
export const ENGLISH_TENS: readonly string[] = [
  "",
  "",
  "twenty",
  "thirty",
  "forty",
  "fifty",
  "sixty",
  "seventy",
  "eighty",
  "ninety",
];

/** The hundreds word: "three hundred". */
export const ENGLISH_HUNDRED = "hundred";

/** Scale words by power of 1000 (index 0 is none). */
export const ENGLISH_SCALES: readonly string[] = ["", "thousand", "million", "billion", "trillion"];

/** Ordinals that are not the cardinal + "th" ("one" → "first"); tens in "-ty" take "-tieth". */
export const ENGLISH_IRREGULAR_ORDINALS: Readonly<Record<string, string>> = {
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

/** The words around numbers: what the reader says and written forms look for. */
export const ENGLISH_PHRASE = {
  point: "point",
  percent: "percent",
  minus: "minus",
  plus: "plus",
  to: "to",
  /** Before cents, subunits and seconds: "twelve dollars and fifty cents". */
  and: "and",
  oclock: "o'clock",
  /** A zero said as a letter: "nine oh five". */
  oh: "oh",
  am: "a m",
  pm: "p m",
} as const;

/** The value of a word below 100 ("seven", "forty", "forty-two"), or undefined. */
export function below100Word(key: string): number | undefined {
  const one = ENGLISH_ONES.indexOf(key);
  if (one >= 0) return one;
  const ten = ENGLISH_TENS.indexOf(key);
  if (ten >= 2) return ten * 10;
  const [t, u] = key.split("-");
  const tv = ENGLISH_TENS.indexOf(t ?? "");
  const uv = ENGLISH_ONES.indexOf(u ?? "");
  return tv >= 2 && uv >= 1 && uv <= 9 ? tv * 10 + uv : undefined;
}

/** Irregular ordinal words → their values ("first" → 1). */
const IRREGULAR_ORDINAL_VALUES = new Map(
  Object.entries(ENGLISH_IRREGULAR_ORDINALS).map(([cardinal, ordinal]) => [ordinal, ENGLISH_ONES.indexOf(cardinal)]),
);

/** The value of an ordinal word ("fifth", "twentieth", "twenty-first"), or undefined. */
export function ordinalWordValue(key: string): number | undefined {
  const simple = (w: string): number | undefined => {
    const irregular = IRREGULAR_ORDINAL_VALUES.get(w);
    if (irregular !== undefined) return irregular;
    if (w.endsWith("ieth")) {
      const t = ENGLISH_TENS.indexOf(`${w.slice(0, -4)}y`);
      return t >= 2 ? t * 10 : undefined;
    }
    if (w.endsWith("th")) {
      const v = ENGLISH_ONES.indexOf(w.slice(0, -2));
      return v >= 4 ? v : undefined;
    }
    return undefined;
  };
  const [a, b] = key.split("-");
  if (b === undefined) return simple(a!);
  const t = ENGLISH_TENS.indexOf(a!);
  const u = simple(b);
  return t >= 2 && u !== undefined && u <= 9 ? t * 10 + u : undefined;
}
