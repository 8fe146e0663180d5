/**
 * Applies a key's lexicon to a prompt's text before anything else reads it (numbers, tashkeel,
 * phonemes): every whole-word occurrence of a grapheme becomes its alias text, or a phoneme span
 * (frontend/phoneme-span.ts) for an IPA entry. Longer graphemes win over their prefixes; an entry
 * for the speaking dialect wins over a general one. Matching ignores the harakat the author wrote
 * on the grapheme (the text kit's vowel marks and tatweel), so «محمّد» and «محمد» match the same entry.
 */
import { droppedBy, foldArabic } from "../../text/arabic/fold.ts";
import { WORD_CHARACTER } from "../../text/arabic/marks.ts";
import { phonemeSpan } from "../frontend/phoneme-span.ts";
import type { Dialect } from "../types.ts";
import type { LexiconEntry } from "./store.ts";

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/gu, "\\$&");
/** Vowel marks or tatweel the author may have put between the letters of a grapheme. */
const OPTIONAL_MARKS = `${droppedBy("lexicon")}*`;
/** A grapheme's bare letters: how entries are matched and keyed. */
const bare = (text: string) => foldArabic(text, "lexicon");

/** The pattern of a grapheme: its letters with optional harakat between them, as a whole word. */
function graphemePattern(grapheme: string): string {
  return Array.from(bare(grapheme)).map(escape).join(OPTIONAL_MARKS) + OPTIONAL_MARKS;
}

/** A phoneme span already in the text (SSML `<phoneme>`): its pronunciation is settled. */
const SPAN = /(\uE000[^\uE002]*\uE002)/u;

/** `text` with the entries that apply to `dialect` substituted (never inside a phoneme span). */
export function applyLexicon(text: string, entries: readonly LexiconEntry[], dialect: Dialect | "en"): string {
  if (entries.length === 0) return text;
  return text
    .split(SPAN)
    .map((piece, i) => (i % 2 === 1 ? piece : substitute(piece, entries, dialect)))
    .join("");
}

function substitute(text: string, entries: readonly LexiconEntry[], dialect: Dialect | "en"): string {
  const chosen = new Map<string, LexiconEntry>();
  for (const entry of entries) {
    if (entry.dialect !== undefined && entry.dialect !== dialect) continue;
    const key = bare(entry.grapheme);
    const held = chosen.get(key);
    if (held === undefined || (held.dialect === undefined && entry.dialect !== undefined)) chosen.set(key, entry);
  }
  if (chosen.size === 0) return text;
  const ordered = [...chosen.entries()].sort((a, b) => b[0].length - a[0].length);
  const pattern = new RegExp(
    `(?<![${WORD_CHARACTER}])(?:${ordered.map(([key]) => `(${graphemePattern(key)})`).join("|")})(?![${WORD_CHARACTER}])`,
    "gu",
  );
  return text.replace(pattern, (match, ...groups: unknown[]) => {
    const index = groups.findIndex((g, i) => i < ordered.length && typeof g === "string");
    const entry = ordered[index]?.[1];
    if (!entry) return match;
    return entry.ipa !== undefined ? phonemeSpan(entry.ipa, match) : (entry.alias ?? match);
  });
}
