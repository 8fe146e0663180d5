/**
 * The entry points the MRCP recogniser door calls for grammar bodies (inline in RECOGNIZE, or in
 * DEFINE-GRAMMAR) and for builtin URIs. Media types (parameters such as `;charset=` ignored):
 *
 * - `application/srgs+xml` (and `application/grammar+xml`, its MRCPv1-era name): SRGS XML.
 * - `text/uri-list`, `text/grammar-ref-list`: references. `builtin:` URIs are compiled here;
 *   `session:` URIs name a grammar the session defined earlier and are looked up through the
 *   caller's `resolve`; any other scheme (`http:`, `file:` …) is a load failure: Sawt fetches nothing.
 *
 * Everything else (the SRGS ABNF form `application/srgs`, JSGF, …) is a load failure (004).
 */
import { compileBuiltin } from "./builtin.ts";
import { compilationFailure, GrammarError, loadFailure, quote } from "./errors.ts";
import { type GrammarLimits, resolveLimits } from "./limits.ts";
import { compileSrgs } from "./srgs.ts";
import type { CompiledGrammar } from "./types.ts";
import { parseGrammarReferences } from "./uri-list.ts";

/** Most grammars one reference list may name. */
const MAX_REFERENCES = 32;

const XML_TYPES = new Set(["application/srgs+xml", "application/grammar+xml"]);
const LIST_TYPES = new Set(["text/uri-list", "text/grammar-ref-list"]);

/** What the door may add to a compilation. */
export interface CompileOptions {
  /** The URI the NLSML result names for an inline grammar: `session:<Content-Id>` (default ""). */
  readonly uri?: string;
  /** The grammar's weight among the active ones (default 1). */
  readonly weight?: number;
  /** Finds a grammar the session defined (`session:` URI, as written in the list); undefined if none. */
  readonly resolve?: (uri: string) => CompiledGrammar | undefined;
}

const mediaType = (contentType: string): string => (contentType.split(";", 1)[0] ?? "").trim().toLowerCase();

/** True when Sawt takes grammar bodies of this Content-Type (a door may answer 409 otherwise). */
export function isGrammarMediaType(contentType: string): boolean {
  const type = mediaType(contentType);
  return XML_TYPES.has(type) || LIST_TYPES.has(type);
}

function compileReference(
  uri: string,
  weight: number,
  limits: GrammarLimits,
  resolve: CompileOptions["resolve"],
): CompiledGrammar {
  const scheme = /^([a-z][a-z0-9+.-]*):/iu.exec(uri)?.[1]?.toLowerCase();
  if (scheme === "builtin") return compileBuiltin(uri, limits, weight);
  if (scheme === "session") {
    const grammar = resolve?.(uri) ?? loadFailure(`${quote(uri)}: no grammar of that name was defined in this session`);
    return { ...grammar, weight: grammar.weight * weight };
  }
  return loadFailure(`${quote(uri)}: Sawt does not fetch grammars; send it inline or with DEFINE-GRAMMAR`);
}

/**
 * Compiles every grammar a body names: one for an SRGS document, one per entry for a reference
 * list. Throws a {@link GrammarError} (load → 004, compilation → 005).
 */
export function compileGrammars(
  contentType: string,
  body: string,
  limits?: Partial<GrammarLimits>,
  options: CompileOptions = {},
): CompiledGrammar[] {
  const bounds = resolveLimits(limits);
  const type = mediaType(contentType);
  if (XML_TYPES.has(type)) return [compileSrgs(body, bounds, options.uri ?? "", options.weight ?? 1)];
  if (!LIST_TYPES.has(type))
    return loadFailure(
      `Content-Type "${quote(contentType)}": Sawt takes application/srgs+xml and text/uri-list grammars`,
    );
  const bytes = Buffer.byteLength(body, "utf8");
  if (bytes > bounds.maxBytes)
    compilationFailure(`the grammar list is ${bytes} bytes, over the ${bounds.maxBytes} allowed`);
  return parseGrammarReferences(body, MAX_REFERENCES).map((reference) =>
    compileReference(reference.uri, reference.weight * (options.weight ?? 1), bounds, options.resolve),
  );
}

/**
 * Compiles a body that holds one grammar (an SRGS document, or a list naming exactly one URI, such
 * as `builtin:dtmf/digits?length=4`). Throws a {@link GrammarError}: load → 004, compilation → 005.
 */
export function compileGrammar(
  contentType: string,
  body: string,
  limits?: Partial<GrammarLimits>,
  options: CompileOptions = {},
): CompiledGrammar {
  const grammars = compileGrammars(contentType, body, limits, options);
  if (grammars.length !== 1)
    throw new GrammarError("compilation", `the list names ${grammars.length} grammars where one was expected`);
  return grammars[0]!;
}
