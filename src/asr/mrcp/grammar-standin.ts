/**
 * TEMPORARY STAND-IN, to be deleted at merge: the real grammar pieces (SRGS parsing and matching
 * with Arabic normalisation, DTMF grammars, NLSML) are written in parallel in
 * src/asr/mrcp/grammar/ (wt-srgs). This file implements only the interface ./grammars.ts
 * re-exports, minimally, so the door and its tests run before that lands: builtin URIs, SRGS
 * `<item>` texts matched after whitespace and diacritic folding, digits, and an NLSML document.
 */

/** A compiled grammar as the door uses it. */
export interface CompiledGrammar {
  readonly mode: "voice" | "dtmf";
  /** builtin:speech/transcribe takes any transcript. */
  readonly transcribe?: boolean;
  readonly items?: readonly string[];
  /** builtin:dtmf/digits bounds. */
  readonly minDigits?: number;
  readonly maxDigits?: number;
}

/** Compile limits. */
export interface GrammarLimits {
  readonly maxBytes: number;
}

const fold = (text: string) =>
  text
    .normalize("NFC")
    .replace(/[\u064B-\u065F\u0670\u0640]/g, "")
    .replace(/[أإآ]/g, "ا")
    .replace(/\s+/g, " ")
    .trim()
    .toLowerCase();

/** Compiles `text/uri-list` builtin URIs or SRGS XML; throws Error on anything else. */
export function compileGrammar(contentType: string, body: string, limits: GrammarLimits): CompiledGrammar {
  if (new TextEncoder().encode(body).length > limits.maxBytes) throw new Error("Grammar too large");
  if (contentType === "text/uri-list") {
    const uri = body.trim();
    if (uri === "builtin:speech/transcribe") return { mode: "voice", transcribe: true };
    const digits = /^builtin:dtmf\/digits(?:\?(.*))?$/.exec(uri);
    if (digits) {
      const params = new URLSearchParams((digits[1] ?? "").replace(/;/g, "&"));
      const length = params.get("length");
      return {
        mode: "dtmf",
        minDigits: Number(length ?? params.get("minlength") ?? 1),
        maxDigits: Number(length ?? params.get("maxlength") ?? 32),
      };
    }
    throw new Error(`Unknown grammar URI ${uri}`);
  }
  if (contentType !== "application/srgs+xml") throw new Error(`Unsupported grammar type ${contentType}`);
  if (/<!DOCTYPE|<!ENTITY/i.test(body)) throw new Error("DTDs are not allowed");
  const mode = /mode\s*=\s*["']dtmf["']/.test(body) ? "dtmf" : "voice";
  const items = [...body.matchAll(/<item(?:\s[^>]*)?>([^<]*)<\/item>/g)].map((m) => fold(m[1]!)).filter(Boolean);
  if (items.length === 0) throw new Error("Grammar has no items");
  return { mode, items };
}

/** The first grammar a transcript matches. */
export function matchTranscript(
  grammars: readonly CompiledGrammar[],
  text: string,
): { grammar: CompiledGrammar; interpretation: string; confidence: number } | null {
  const folded = fold(text);
  for (const grammar of grammars) {
    if (grammar.mode !== "voice") continue;
    if (grammar.transcribe) return folded ? { grammar, interpretation: text.trim(), confidence: 1 } : null;
    const item = grammar.items?.find((i) => i === folded);
    if (item) return { grammar, interpretation: item, confidence: 1 };
  }
  return null;
}

/** Digits against a DTMF grammar: complete, a prefix that may still match, or null. */
export function matchDigits(grammar: CompiledGrammar, digits: string): { interpretation: string; complete: boolean } | null {
  if (grammar.items) {
    if (grammar.items.includes(digits)) return { interpretation: digits, complete: true };
    return grammar.items.some((i) => i.startsWith(digits)) ? { interpretation: digits, complete: false } : null;
  }
  if (!/^[0-9*#A-D]*$/.test(digits) || digits.length > (grammar.maxDigits ?? 32)) return null;
  return { interpretation: digits, complete: digits.length >= (grammar.maxDigits ?? 32) };
}

const escape = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** An NLSML result document (RFC 6787 §9.6). */
export function nlsmlResult(result: {
  grammar?: string;
  interpretation: string;
  input: string;
  mode: "speech" | "dtmf";
  confidence: number;
}): string {
  const grammar = result.grammar ? ` grammar="${escape(result.grammar)}"` : "";
  return (
    `<?xml version="1.0"?>\n<result>\n  <interpretation${grammar} confidence="${result.confidence.toFixed(2)}">\n` +
    `    <instance>${escape(result.interpretation)}</instance>\n` +
    `    <input mode="${result.mode}">${escape(result.input)}</input>\n  </interpretation>\n</result>\n`
  );
}
