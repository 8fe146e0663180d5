/**
 * NLSML results (RFC 6787 §9.6), the body of RECOGNITION-COMPLETE (`Content-Type:
 * application/nlsml+xml`). One `<interpretation>` per N-best entry, best first, each naming its
 * grammar, with `<instance>` (the interpretation: text, or one element per property of a
 * structured value) and `<input mode="speech|dtmf">` (what was heard). Confidences are written in
 * 0.00–1.00 as MRCPv2 defines them (MRCPv1 used 0–100; UniMRCP's NLSML reader, used by umc and
 * asrclient and by Asterisk's and FreeSWITCH's modules, divides values over 1 by 100, so either
 * reads right there, but other MRCPv2 clients expect 0–1). The root carries the MRCPv2 namespace.
 */
import { instanceText } from "./match.ts";
import type { GrammarMatch, SemanticValue } from "./types.ts";

/** One interpretation of an NLSML result. */
export interface NlsmlInterpretation {
  /** The grammar that matched, as the IVR named it (`session:…`, `builtin:…`). */
  readonly grammarUri: string;
  /** A string, or properties written as elements (`{ action: "transfer" }` → `<action>transfer</action>`). */
  readonly instance: SemanticValue;
  /** What was heard: the words, or the DTMF keys. */
  readonly input: string;
  readonly mode: "speech" | "dtmf";
  /** In [0, 1]; clamped. */
  readonly confidence: number;
}

const NAMESPACE = "urn:ietf:params:xml:ns:mrcpv2";
const HEAD = `<?xml version="1.0" encoding="UTF-8"?>\n<result xmlns="${NAMESPACE}">`;

/** Characters XML 1.0 cannot hold at all (controls but tab/LF/CR, lone surrogates, U+FFFE/U+FFFF). */
// (With the u flag a surrogate range matches only unpaired surrogates.)
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF\uD800-\uDFFF]/gu;

const ESCAPES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&apos;",
};

/** Escapes text for XML content or a double-quoted attribute, dropping characters XML cannot hold. */
export function escapeXml(text: string): string {
  return text.replace(NOT_XML, "").replace(/[&<>"']/gu, (c) => ESCAPES[c]!);
}

const confidenceText = (n: number): string => Math.min(1, Math.max(0, Number.isFinite(n) ? n : 0)).toFixed(2);

/** A property name as an XML element name (tags allow only such names; this guards the rest). */
const elementName = (name: string): string => {
  const cleaned = name.replace(/[^\w.-]/gu, "_");
  return /^[A-Za-z_]/u.test(cleaned) ? cleaned : `_${cleaned}`;
};

function instanceXml(value: SemanticValue): string {
  if (typeof value === "string") return escapeXml(value);
  return Object.entries(value)
    .map(([name, inner]) => `<${elementName(name)}>${instanceXml(inner)}</${elementName(name)}>`)
    .join("");
}

/** An NLSML result with one interpretation per entry, in the order given (best first). */
export function nlsmlResult(interpretations: readonly NlsmlInterpretation[]): string {
  const body = interpretations
    .map((entry) => {
      const confidence = confidenceText(entry.confidence);
      return (
        `<interpretation grammar="${escapeXml(entry.grammarUri)}" confidence="${confidence}">` +
        `<instance>${instanceXml(entry.instance)}</instance>` +
        `<input mode="${entry.mode}" confidence="${confidence}">${escapeXml(entry.input)}</input>` +
        "</interpretation>"
      );
    })
    .join("");
  return `${HEAD}${body}</result>`;
}

/** The NLSML result for matches (best first; pass N-Best-List-Length of them). */
export function nlsmlFromMatches(matches: readonly GrammarMatch[]): string {
  return nlsmlResult(
    matches.map((match) => ({
      grammarUri: match.grammar.uri,
      instance: match.interpretation,
      input: match.input,
      mode: match.mode,
      confidence: match.confidence,
    })),
  );
}

/** The NLSML body for no-match (RFC 6787 §9.6: an empty instance and `<input><nomatch/></input>`). */
export function nlsmlNoMatch(mode: "speech" | "dtmf" = "speech"): string {
  return `${HEAD}<interpretation><instance/><input mode="${mode}"><nomatch/></input></interpretation></result>`;
}

/** The NLSML body for no-input (`<input><noinput/></input>`), should a door send one with 002. */
export function nlsmlNoInput(mode: "speech" | "dtmf" = "speech"): string {
  return `${HEAD}<interpretation><instance/><input mode="${mode}"><noinput/></input></interpretation></result>`;
}
