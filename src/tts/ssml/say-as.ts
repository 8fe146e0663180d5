/**
 * `<say-as interpret-as>`: the element's text rewritten so the front-end reads it as asked.
 * Numbers, dates, times and money are then read by the front-end's own readers (src/text/verbalize/numbers.ts)
 * in the voice's language, so SSML and plain text say "15/03/2026" the same way.
 */
import { arabicDayOrdinal } from "../../text/numbers/arabic-cardinal.ts";

/** The interpretations Sawt reads. */
export const SAY_AS = [
  "characters",
  "spell-out",
  "digits",
  "cardinal",
  "ordinal",
  "date",
  "time",
  "telephone",
  "currency",
] as const;
/** One interpretation. */
export type SayAs = (typeof SAY_AS)[number];

/** Thrown for content a say-as cannot read; the SSML parser turns it into a 400. */
export class SayAsError extends Error {}

const digitsOf = (text: string) => text.replace(/[^\d]/gu, "");

/** Each character on its own (digits then read one by one). */
function spell(text: string): string {
  return Array.from(text.replace(/\s+/gu, "")).join(" ");
}

/** A date written in `format` (dmy, mdy, ymd; default: by shape) as ISO, which the front-end reads. */
function isoDate(text: string, format: string | undefined): string {
  const fields = text.trim().split(/[-/.\s]+/u);
  if (fields.length !== 3 || fields.some((f) => !/^\d+$/u.test(f)))
    throw new SayAsError(`say-as date cannot read "${text.trim()}"`);
  const order = format ?? (fields[0]!.length === 4 ? "ymd" : "dmy");
  const at = (letter: string) => fields[order.indexOf(letter)];
  const [y, m, d] = [at("y"), at("m"), at("d")];
  if (!/^(dmy|mdy|ymd)$/u.test(order) || !y || !m || !d)
    throw new SayAsError(`say-as date format "${format}" is not dmy, mdy or ymd`);
  return `${y.padStart(4, "0")}-${m.padStart(2, "0")}-${d.padStart(2, "0")}`;
}

/** Ordinal words: Arabic definite ordinals 1–31, English "1st"; other numbers read as cardinals. */
function ordinal(text: string, language: "ar" | "en"): string {
  const digits = digitsOf(text);
  if (digits === "") throw new SayAsError(`say-as ordinal needs a number, got "${text.trim()}"`);
  const n = Number(digits);
  if (language === "en") {
    const suffix = n % 100 >= 11 && n % 100 <= 13 ? "th" : (["th", "st", "nd", "rd"][n % 10] ?? "th");
    return `${n}${suffix}`;
  }
  return n >= 1 && n <= 31 ? arabicDayOrdinal(n) : digits;
}

/** The text `content` stands for when read as `interpretAs`. */
export function sayAs(interpretAs: SayAs, content: string, language: "ar" | "en", format?: string): string {
  switch (interpretAs) {
    case "characters":
    case "spell-out":
      return spell(content);
    case "digits":
    case "telephone":
      return spell(content.replace(/[^\d+]/gu, ""));
    case "cardinal":
      return content.replace(/(?<=\d)[,\s\u066C](?=\d)/gu, "");
    case "ordinal":
      return ordinal(content, language);
    case "date":
      return isoDate(content, format);
    case "time":
    case "currency":
      return content;
  }
}
