/**
 * Number words both features read: the TTS front-end says numbers with them and ASR's written
 * forms (inverse text normalisation) read them back, so the two can never disagree on a word.
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
