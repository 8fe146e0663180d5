/**
 * A recogniser channel's grammars over the pure grammar kit (./grammar/): DEFINE-GRAMMAR'd ones
 * by `session:<Content-Id>`, what a RECOGNIZE body names, and a failure as the RFC's
 * Completion-Cause (004 grammar-load-failure, 005 grammar-compilation-failure, 006 otherwise).
 */
import { type CompiledGrammar, compileGrammar, compileGrammars, GrammarError } from "./grammar/index.ts";

/** Recogniser completion causes (RFC 6787 §9.4.11) Sawt sends. */
export const RecogCause = {
  success: "000 success",
  noMatch: "001 no-match",
  noInputTimeout: "002 no-input-timeout",
  grammarLoadFailure: "004 grammar-load-failure",
  grammarCompilationFailure: "005 grammar-compilation-failure",
  error: "006 recognizer-error",
  successMaxtime: "008 success-maxtime",
  noMatchMaxtime: "015 no-match-maxtime",
} as const;

/** Text on one short line (a header value). */
export function oneLine(text: string): string {
  return text.replace(/[\r\n]+/g, " ").slice(0, 200);
}

/** The Completion-Cause and Completion-Reason headers of a failure. */
export function failureHeaders(error: unknown): [string, string][] {
  const cause =
    error instanceof GrammarError
      ? error.completionCode === 4
        ? RecogCause.grammarLoadFailure
        : RecogCause.grammarCompilationFailure
      : RecogCause.error;
  return [
    ["Completion-Cause", cause],
    ["Completion-Reason", oneLine(error instanceof Error ? error.message : String(error))],
  ];
}

const contentId = (headers: ReadonlyMap<string, string>) => headers.get("content-id")?.replace(/^<(.*)>$/, "$1");

/** One channel's grammars; see the file comment. Methods throw GrammarError. */
export class SessionGrammars {
  private readonly defined = new Map<string, CompiledGrammar>();

  constructor(private readonly maxBytes: number) {}

  private get limits() {
    return { maxBytes: this.maxBytes };
  }

  private readonly resolve = (uri: string) => this.defined.get(uri);

  /** DEFINE-GRAMMAR: compiles and keeps the grammar (a URI list defines the grammar it names). */
  define(headers: ReadonlyMap<string, string>, body: string): void {
    const id = contentId(headers);
    if (!id || body.trim() === "") throw new GrammarError("load", "DEFINE-GRAMMAR needs a Content-Id and a body");
    const uri = `session:${id}`;
    const grammar = compileGrammar(headers.get("content-type") ?? "", body, this.limits, {
      uri,
      resolve: this.resolve,
    });
    this.defined.set(uri, grammar);
  }

  /** The grammars a RECOGNIZE body names; an inline grammar with a Content-Id is kept for later (§9.9). */
  recognize(headers: ReadonlyMap<string, string>, body: string): CompiledGrammar[] {
    const type = headers.get("content-type") ?? "";
    if (body.trim() === "") throw new GrammarError("load", "RECOGNIZE names no grammar");
    const id = contentId(headers);
    const uri = id ? `session:${id}` : "";
    const grammars = compileGrammars(type, body, this.limits, { uri, resolve: this.resolve });
    if (id && grammars.length === 1 && !/uri-list|grammar-ref-list/i.test(type)) this.defined.set(uri, grammars[0]!);
    return grammars;
  }
}
