/**
 * Grammar reference lists, the bodies a RECOGNIZE carries to name grammars instead of holding one:
 *
 * - `text/uri-list` (RFC 2483): one URI per line, `#` lines are comments.
 * - `text/grammar-ref-list` (RFC 6787): `<uri>;weight="0.75"` entries, one per line or
 *   separated by commas, as UniMRCP's asrclient writes them.
 */
import { compilationFailure, quote } from "./errors.ts";

/** One referenced grammar and its weight (1 when none is given). */
export interface GrammarReference {
  readonly uri: string;
  readonly weight: number;
}

const WEIGHTED = /^<([^<>]*)>\s*(?:;\s*weight\s*=\s*"?([^";,\s]*)"?)?$/u;

/** Parses a `text/uri-list` or `text/grammar-ref-list` body; throws a compilation failure. */
export function parseGrammarReferences(body: string, maxEntries: number): GrammarReference[] {
  const references: GrammarReference[] = [];
  for (const line of body.split(/\r?\n|,(?=\s*<)/u)) {
    const entry = line.trim();
    if (entry === "" || entry.startsWith("#")) continue;
    if (references.length >= maxEntries) compilationFailure(`more than ${maxEntries} grammars in one list`);
    if (!entry.startsWith("<")) {
      if (/\s/u.test(entry)) compilationFailure(`"${quote(entry)}" is not a URI`);
      references.push({ uri: entry, weight: 1 });
      continue;
    }
    const m = WEIGHTED.exec(entry);
    if (!m || m[1]!.trim() === "") return compilationFailure(`"${quote(entry)}" is not a <uri>;weight="w" entry`);
    const weight = m[2] === undefined ? 1 : Number(m[2]);
    if (!Number.isFinite(weight) || weight < 0 || m[2] === "")
      compilationFailure(`"${quote(entry)}": the weight must be a non-negative number`);
    references.push({ uri: m[1]!.trim(), weight });
  }
  if (references.length === 0) compilationFailure("the grammar list names no grammar");
  return references;
}
