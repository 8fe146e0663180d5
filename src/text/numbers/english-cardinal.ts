/**
 * Numbers → English words for the English voice (Yara_en), with the words of ./english-words.ts:
 * American style without "and" ("one hundred twenty-three"), ordinals ("twenty-second"), years
 * in pairs ("twenty twenty-six", "nineteen oh five").
 */
import {
  ENGLISH_HUNDRED,
  ENGLISH_IRREGULAR_ORDINALS,
  ENGLISH_ONES,
  ENGLISH_PHRASE,
  ENGLISH_SCALES,
  ENGLISH_TENS,
} from "./english-words.ts";

const ONES = ENGLISH_ONES;
const TENS = ENGLISH_TENS;

/** Words for 0–99: "seven", "forty", "forty-two". */
export function below100(n: number): string {
  if (n < 20) return ONES[n]!;
  const unit = n % 10;
  return unit === 0 ? TENS[Math.floor(n / 10)]! : `${TENS[Math.floor(n / 10)]}-${ONES[unit]}`;
}

function below1000(n: number): string {
  const hundreds = Math.floor(n / 100);
  const rest = n % 100;
  if (hundreds === 0) return below100(rest);
  return rest === 0 ? `${ONES[hundreds]} ${ENGLISH_HUNDRED}` : `${ONES[hundreds]} ${ENGLISH_HUNDRED} ${below100(rest)}`;
}

/** Cardinal words for a non-negative safe integer below 10^15. */
export function englishCardinal(n: number): string {
  if (!Number.isSafeInteger(n) || n < 0 || n >= 1e15) throw new RangeError(`cannot read ${n} as English words`);
  if (n === 0) return ONES[0]!;
  const parts: string[] = [];
  for (let k = 0, rest = n; rest > 0; k++, rest = Math.floor(rest / 1000)) {
    const group = rest % 1000;
    if (group > 0) parts.unshift(k === 0 ? below1000(group) : `${below1000(group)} ${ENGLISH_SCALES[k]}`);
  }
  return parts.join(" ");
}

/** Ordinal words: 1 → "first", 15 → "fifteenth", 22 → "twenty-second". */
export function englishOrdinal(n: number): string {
  const words = englishCardinal(n);
  return words.replace(
    /[a-z]+$/,
    (last) => ENGLISH_IRREGULAR_ORDINALS[last] ?? (last.endsWith("y") ? `${last.slice(0, -1)}ieth` : `${last}th`),
  );
}

/** A year read the way English speakers say it. */
export function englishYear(year: number): string {
  const high = Math.floor(year / 100);
  const low = year % 100;
  if (year < 1000 || year % 1000 < 10) return englishCardinal(year); // 2005: "two thousand five"
  if (low === 0) return `${below100(high)} ${ENGLISH_HUNDRED}`;
  return `${below100(high)} ${low < 10 ? `${ENGLISH_PHRASE.oh} ${ONES[low]}` : below100(low)}`;
}
