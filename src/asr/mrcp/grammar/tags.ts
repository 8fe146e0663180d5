/**
 * The part of SISR 1.0 (W3C Semantic Interpretation for Speech Recognition) that IVR grammars
 * use to return a value, parsed once at compile time into {@link TagStatement}s:
 *
 * - `out = "transfer";` `out.action = 'balance';` (also the older `$ = …`, `$.action = …`)
 * - `out = rules.latest();` `out.city = rules.city;` `out.code = rules.airport.code;`
 * - a tag that holds no assignment (`<tag>balance</tag>`, or any tag with
 *   `tag-format="semantics/1.0-literals"`) is a string literal: the rule's value.
 *
 * Anything else (arithmetic, `var`, function calls other than `rules.latest()`) fails the grammar
 * (005) with the statement named: running ECMAScript from the network is out of the question, and
 * a silently wrong interpretation would send a caller down the wrong menu branch.
 */
import { compilationFailure, quote } from "./errors.ts";
import type { TagExpression, TagStatement } from "./types.ts";

type Token = { readonly kind: "name" | "string" | "number" | "punct"; readonly text: string };

const LEXEME = /\s*(?:([A-Za-z_$][\w$]*)|("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')|(-?\d+(?:\.\d+)?)|([.=;()]))/uy;
const ESCAPES: Readonly<Record<string, string>> = { n: "\n", t: "\t", r: "\r", b: "\b", f: "\f", v: "\v", "0": "\0" };

function unquote(literal: string): string {
  return literal.slice(1, -1).replace(/\\(u[0-9a-fA-F]{4}|.)/gu, (_, escaped: string) => {
    if (escaped.length === 5) return String.fromCharCode(Number.parseInt(escaped.slice(1), 16));
    return ESCAPES[escaped] ?? escaped;
  });
}

function lex(text: string): Token[] {
  const tokens: Token[] = [];
  LEXEME.lastIndex = 0;
  while (LEXEME.lastIndex < text.length) {
    if (/^\s*$/u.test(text.slice(LEXEME.lastIndex))) break;
    const at = LEXEME.lastIndex;
    const m = LEXEME.exec(text);
    if (!m) return compilationFailure(`<tag> "${quote(text)}": cannot read it from "${quote(text.slice(at))}"`);
    if (m[1] !== undefined) tokens.push({ kind: "name", text: m[1] });
    else if (m[2] !== undefined) tokens.push({ kind: "string", text: unquote(m[2]) });
    else if (m[3] !== undefined) tokens.push({ kind: "number", text: m[3] });
    else tokens.push({ kind: "punct", text: m[4]! });
  }
  return tokens;
}

/** Reads statements from a token list; `fail` names the statement a problem is in. */
class Reader {
  private at = 0;
  constructor(
    private readonly tokens: readonly Token[],
    private readonly tag: string,
  ) {}

  done(): boolean {
    return this.at >= this.tokens.length;
  }

  fail(problem: string): never {
    return compilationFailure(`<tag> "${quote(this.tag)}": ${problem} (Sawt evaluates out/$ = "literal" | rules.x)`);
  }

  peek(): Token | undefined {
    return this.tokens[this.at];
  }

  next(): Token {
    return this.tokens[this.at++] ?? this.fail("the statement ends too early");
  }

  expect(text: string): void {
    const token = this.next();
    if (token.kind !== "punct" || token.text !== text) this.fail(`expected "${text}", found "${quote(token.text)}"`);
  }

  skip(text: string): boolean {
    const token = this.peek();
    if (token?.kind === "punct" && token.text === text) {
      this.at++;
      return true;
    }
    return false;
  }

  /** `.a.b` after a target or a rule reference. */
  path(): string[] {
    const path: string[] = [];
    while (this.skip(".")) {
      const name = this.next();
      if (name.kind !== "name" || name.text.includes("$"))
        this.fail(`expected a property name after ".", found "${quote(name.text)}"`);
      path.push(name.text);
    }
    return path;
  }

  expression(): TagExpression {
    const token = this.next();
    if (token.kind === "string" || token.kind === "number") return { kind: "literal", value: token.text };
    if (token.kind === "name" && (token.text === "true" || token.text === "false"))
      return { kind: "literal", value: token.text };
    if (token.kind !== "name" || token.text !== "rules")
      return this.fail(`"${quote(token.text)}" is not a value Sawt reads`);
    this.expect(".");
    const rule = this.next();
    if (rule.kind !== "name") return this.fail(`expected a rule name after "rules.", found "${quote(rule.text)}"`);
    if (rule.text === "latest") {
      this.expect("(");
      this.expect(")");
      return { kind: "rule", rule: "latest", path: this.path() };
    }
    return { kind: "rule", rule: rule.text, path: this.path() };
  }

  statement(): TagStatement {
    const target = this.next();
    if (target.kind !== "name" || (target.text !== "out" && target.text !== "$"))
      this.fail(`a statement must assign to out or $, not start with "${quote(target.text)}"`);
    const path = this.path();
    this.expect("=");
    return { path, value: this.expression() };
  }
}

/**
 * Compiles one tag's text. `literals` is true for `tag-format="semantics/1.0-literals"`. Throws a
 * compilation failure naming the tag when it holds a statement Sawt does not evaluate.
 */
export function compileTag(text: string, literals: boolean): TagStatement[] {
  const trimmed = text.trim();
  if (trimmed === "") return [];
  if (literals || !/[=]/u.test(trimmed)) {
    const quoted = /^("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*');?$/u.exec(trimmed);
    return [{ path: [], value: { kind: "literal", value: quoted ? unquote(quoted[1]!) : trimmed } }];
  }
  const reader = new Reader(lex(trimmed), trimmed);
  const statements: TagStatement[] = [];
  while (!reader.done()) {
    if (reader.skip(";")) continue;
    statements.push(reader.statement());
    if (!reader.done()) reader.expect(";");
  }
  return statements;
}
