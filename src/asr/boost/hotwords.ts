/**
 * The hotwords of a request or a key's phrase list: parsing, bounds and merging. The request
 * syntax follows sherpa-onnx's hotwords file (one phrase per line, an optional `:score` per
 * phrase), as form fields: `hotwords=طلب,رقم الطلب:3` (entries separated by commas, Arabic
 * commas or new lines) or one entry per repeated `hotwords[]`; `boost` is the per-token boost of
 * entries that give none (default {@link DEFAULT_BOOST}).
 */
import type { Hotword } from "../../core/asr.ts";
import { AppError, Detail, type FieldError } from "../../errors/taxonomy.ts";

/** Bounds of phrase boosting, per request and per key (docs/transcripts.md). */
export const HOTWORD_LIMITS = {
  /** Phrases in one request (after the key's list is merged in) and in one key's list. */
  maxPhrases: 1000,
  /** Characters of one phrase. */
  maxPhraseChars: 100,
  /** Per-token boost range (log-probability). */
  minBoost: 0,
  maxBoost: 10,
} as const;

/** Per-token boost of an entry that names none (sherpa-onnx's default hotwords score). */
export const DEFAULT_BOOST = 1.5;

/** Separators between entries of one `hotwords` value: comma, Arabic comma, new line. */
const SEPARATORS = /[,،\n\r]+/;
/** A trailing `:number` is the entry's boost. */
const WITH_BOOST = /^(.*?)\s*:\s*([+-]?(?:\d+\.?\d*|\.\d+))$/s;
/** Characters a phrase may not hold: controls, and markup/template syntax (D7's spirit). */
const FORBIDDEN = /[\u0000-\u001f\u007f<>{}$]/;

/** A boost in range, or the error message. */
function boostProblem(boost: number): string | null {
  return Number.isFinite(boost) && boost >= HOTWORD_LIMITS.minBoost && boost <= HOTWORD_LIMITS.maxBoost
    ? null
    : `boost must be a number from ${HOTWORD_LIMITS.minBoost} to ${HOTWORD_LIMITS.maxBoost}`;
}

/** The problem with a phrase, or null. */
export function phraseProblem(phrase: string): string | null {
  if (phrase.length === 0) return "phrase cannot be empty";
  if ([...phrase].length > HOTWORD_LIMITS.maxPhraseChars)
    return `phrase is longer than ${HOTWORD_LIMITS.maxPhraseChars} characters`;
  if (FORBIDDEN.test(phrase)) return "phrase holds a control character or one of < > { } $";
  if (!/[\p{L}\p{N}]/u.test(phrase)) return "phrase has no letter or digit";
  return null;
}

/** A phrase as stored and matched: NFC, inner white space single spaces. */
export function normalizePhrase(phrase: string): string {
  return phrase.normalize("NFC").trim().replace(/\s+/g, " ");
}

/** Reads a `boost` field value; undefined when absent. Throws 422 naming `field`. */
export function parseBoost(value: string | number | undefined, field: string): number | undefined {
  if (value === undefined || (typeof value === "string" && value.trim() === "")) return undefined;
  const boost = typeof value === "number" ? value : /^[+-]?(\d+\.?\d*|\.\d+)$/.test(value.trim()) ? Number(value) : NaN;
  const problem = boostProblem(boost);
  if (problem !== null) throw invalid([{ field, message: problem }]);
  return boost;
}

/**
 * Reads hotword entries (each value may hold several, separated by commas or new lines; an
 * entry is `phrase` or `phrase:boost`). Empty entries are skipped; an ill-formed one, or more
 * than {@link HOTWORD_LIMITS.maxPhrases}, is a 422 naming `field`. Duplicates keep their larger boost.
 */
export function parseHotwords(values: readonly string[], field: string, defaultBoost = DEFAULT_BOOST): Hotword[] {
  const entries = values.flatMap((value) => value.split(SEPARATORS)).filter((entry) => entry.trim() !== "");
  if (entries.length > HOTWORD_LIMITS.maxPhrases)
    throw invalid([{ field, message: `At most ${HOTWORD_LIMITS.maxPhrases} hotwords (got ${entries.length})` }]);
  const errors: FieldError[] = [];
  const hotwords: Hotword[] = [];
  for (const [i, entry] of entries.entries()) {
    const parts = WITH_BOOST.exec(entry.trim());
    const phrase = normalizePhrase(parts ? parts[1]! : entry);
    const boost = parts ? Number(parts[2]) : defaultBoost;
    const problem = phraseProblem(phrase) ?? boostProblem(boost);
    if (problem !== null && errors.length < 10)
      errors.push({ field, message: `entry ${i + 1} (${JSON.stringify(entry.trim().slice(0, 40))}): ${problem}` });
    else if (problem === null) hotwords.push({ phrase, boost });
  }
  if (errors.length > 0) throw invalid(errors);
  return mergeHotwords(hotwords);
}

/**
 * The request's hotwords and the key's list as one list (a phrase in both keeps the request's
 * boost). More than {@link HOTWORD_LIMITS.maxPhrases} together is a 422 naming `field`.
 */
export function mergeHotwords(
  request: readonly Hotword[],
  key: readonly Hotword[] = [],
  field = "hotwords",
): Hotword[] {
  const byPhrase = new Map<string, number>();
  for (const { phrase, boost } of key) byPhrase.set(phrase, boost);
  const fromRequest = new Map<string, number>();
  for (const { phrase, boost } of request) fromRequest.set(phrase, Math.max(boost, fromRequest.get(phrase) ?? 0));
  for (const [phrase, boost] of fromRequest) byPhrase.set(phrase, boost);
  if (byPhrase.size > HOTWORD_LIMITS.maxPhrases)
    throw invalid([
      {
        field,
        message: `At most ${HOTWORD_LIMITS.maxPhrases} hotwords with the key's phrase list (got ${byPhrase.size})`,
      },
    ]);
  return [...byPhrase].map(([phrase, boost]) => ({ phrase, boost }));
}

function invalid(fields: FieldError[]): AppError {
  return new AppError("validation", Detail.validationFailed, { fields });
}
