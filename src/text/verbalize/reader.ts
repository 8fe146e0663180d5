/** The contract between the number scanner (numbers.ts) and a language's number words. */

import type { Currency } from "../numbers/currencies.ts";

/** AM/PM marker found after a time. */
export type Meridiem = "am" | "pm";

/**
 * Turns already-recognised numeric values into words of one language. Digits arrive as ASCII
 * strings without separators; every method returns plain words without digits.
 */
export interface NumberReader {
  /** A whole number, e.g. "1500". Strings longer than 15 digits may be read digit by digit. */
  integer(digits: string): string;
  /** A decimal number: integer part and fraction digits as written ("3", "05"). */
  decimal(integerDigits: string, fractionDigits: string): string;
  /** Prefixes a minus to number words. */
  negative(words: string): string;
  /** Joins the two ends of a numeric range ("9-5", "1-2"). */
  range(from: string, to: string): string;
  /** Suffixes "percent" to number words. */
  percent(words: string): string;
  /** An amount of money, `fractionDigits` undefined when none was written. */
  money(integerDigits: string, fractionDigits: string | undefined, currency: Currency, negative: boolean): string;
  /** A calendar date (validated: month 1–12, day 1–31). */
  date(year: number, month: number, day: number): string;
  /** A clock time (validated: hours 0–23, minutes and seconds 0–59). */
  time(hours: number, minutes: number, seconds: number | undefined, meridiem: Meridiem | undefined): string;
  /** Reads a run of digits, "+" and Latin letters one symbol at a time (phones, accounts, IBANs). */
  symbols(run: string): string;
  /** Placed between the groups of a grouped phone/account number: a short spoken pause. */
  readonly groupSeparator: string;
  /** Ordinal for "1st", "2nd" (languages that write them); undefined leaves them alone. */
  readonly ordinal?: (n: number) => string;
  /** Meridiem words after a time, e.g. "صباحًا" or "a m". */
  readonly meridiems: Readonly<Record<Meridiem, string>>;
}
