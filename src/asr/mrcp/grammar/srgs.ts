/**
 * W3C SRGS 1.0, XML form, into a {@link SrgsGrammar}: `<grammar root mode xml:lang tag-format>`,
 * `<rule id scope>`, `<one-of>`, `<item repeat weight>`, `<ruleref uri="#id">` and
 * `<ruleref special="NULL|VOID|GARBAGE">`, `<token>`, `<tag>`; `<meta>`, `<metadata>`,
 * `<lexicon>`, `<example>` and header `<tag>`s are accepted and ignored (they change nothing a
 * transcript match needs). In `mode="dtmf"` every token is a key: 0–9, *, #, A–D.
 */
import { compilationFailure, loadFailure, quote } from "./errors.ts";
import type { GrammarLimits } from "./limits.ts";
import { matchWords } from "../../../text/arabic/fold.ts";
import { compileTag } from "./tags.ts";
import type { Expansion, SrgsGrammar, TokenExpansion } from "./types.ts";
import { parseXml, type XmlElement } from "./xml.ts";

const fail = (detail: string): never => compilationFailure(`invalid SRGS grammar: ${detail}`);

const IGNORED = new Set(["meta", "metadata", "lexicon", "example"]);
const SPECIALS = new Set(["NULL", "VOID", "GARBAGE"]);
const RULE_ID = /^[\p{L}_][\p{L}\p{N}_.-]*$/u;
const DTMF_KEY = /^[0-9*#A-D]$/u;
/** SRGS token text: a double-quoted token (may hold spaces) or a run of non-space characters. */
const TOKEN_TEXT = /"[^"]*"|[^\s"]+/gu;

interface Context {
  readonly limits: GrammarLimits;
  readonly dtmf: boolean;
  readonly literals: boolean;
  readonly references: Set<string>;
  nodes: number;
}

function count(ctx: Context, n: number): void {
  ctx.nodes += n;
  if (ctx.nodes > ctx.limits.maxNodes) fail(`more than ${ctx.limits.maxNodes} elements and words`);
}

const sequence = (items: Expansion[]): Expansion => (items.length === 1 ? items[0]! : { type: "sequence", items });

function words(ctx: Context, text: string): TokenExpansion[] {
  const tokens: TokenExpansion[] = [];
  for (const piece of text.match(TOKEN_TEXT) ?? []) {
    const written = piece.replace(/^"|"$/gu, "");
    if (ctx.dtmf) {
      for (const key of written.toUpperCase()) {
        if (!DTMF_KEY.test(key))
          fail(`"${quote(written)}" is not a DTMF key sequence (0-9, *, #, A-D) in a mode="dtmf" grammar`);
        tokens.push({ type: "token", word: key, text: key });
      }
      continue;
    }
    const normalized = matchWords(written);
    for (const word of normalized) tokens.push({ type: "token", word, text: normalized.length === 1 ? written : word });
  }
  count(ctx, tokens.length);
  return tokens;
}

function textOnly(element: XmlElement): string {
  for (const child of element.children)
    if (typeof child !== "string") fail(`<${quote(element.name)}> takes text only, not <${quote(child.name)}>`);
  return element.children.join("");
}

function repeatOf(ctx: Context, value: string): { min: number; max: number } {
  const m = /^\s*(\d+)\s*(?:(-)\s*(\d*)\s*)?$/u.exec(value);
  if (!m) return fail(`repeat="${quote(value)}" must be "n", "n-m" or "n-"`);
  const min = Number(m[1]);
  const max = m[2] === undefined ? min : m[3] === "" ? Number.POSITIVE_INFINITY : Number(m[3]);
  const { maxRepeat } = ctx.limits;
  if (min > maxRepeat || (Number.isFinite(max) && max > maxRepeat))
    fail(`repeat="${quote(value)}" is over the bound of ${maxRepeat} repetitions`);
  if (max < min) fail(`repeat="${quote(value)}" has its maximum below its minimum`);
  return { min, max };
}

function weightOf(value: string | undefined): number {
  if (value === undefined) return 1;
  if (!/^\s*(?:\d+\.?\d*|\.\d+)\s*$/u.test(value))
    return fail(`weight="${quote(value)}" must be a non-negative number`);
  return Number(value);
}

function ruleref(ctx: Context, element: XmlElement): Expansion {
  if (element.children.some((child) => typeof child !== "string" || child.trim() !== ""))
    fail("<ruleref> must be empty");
  const { uri, special } = element.attributes;
  if ((uri === undefined) === (special === undefined)) fail("<ruleref> needs exactly one of uri and special");
  if (special !== undefined) {
    if (!SPECIALS.has(special)) fail(`<ruleref special="${quote(special)}"> must be NULL, VOID or GARBAGE`);
    return { type: "special", name: special as "NULL" | "VOID" | "GARBAGE" };
  }
  if (!uri!.startsWith("#"))
    loadFailure(
      `<ruleref uri="${quote(uri!)}">: Sawt does not fetch external grammars; define the rule in this grammar`,
    );
  const rule = uri!.slice(1);
  ctx.references.add(rule);
  return { type: "ruleref", rule };
}

/** Converts the mixed content of a rule or item (text, items, one-ofs, rulerefs, tokens, tags). */
function content(ctx: Context, element: XmlElement): Expansion {
  const items: Expansion[] = [];
  for (const child of element.children) {
    if (typeof child === "string") items.push(...words(ctx, child));
    else if (child.name === "item") items.push(item(ctx, child));
    else if (child.name === "one-of") items.push(oneOf(ctx, child));
    else if (child.name === "ruleref") items.push(ruleref(ctx, child));
    else if (child.name === "token") items.push(...words(ctx, `"${textOnly(child).replace(/"/gu, " ")}"`));
    else if (child.name === "tag") items.push(tag(ctx, child));
    else if (child.name !== "example") fail(`<${quote(child.name)}> is not allowed inside <${quote(element.name)}>`);
  }
  return sequence(items);
}

function tag(ctx: Context, element: XmlElement): Expansion {
  const text = textOnly(element);
  if (text.length > ctx.limits.maxTagChars) fail(`a <tag> is longer than ${ctx.limits.maxTagChars} characters`);
  return { type: "tag", text, statements: compileTag(text, ctx.literals) };
}

function item(ctx: Context, element: XmlElement): Expansion {
  const body = content(ctx, element);
  const repeat = element.attributes.repeat;
  if (repeat === undefined) return body;
  const { min, max } = repeatOf(ctx, repeat);
  return min === 1 && max === 1 ? body : { type: "repeat", body, min, max };
}

function oneOf(ctx: Context, element: XmlElement): Expansion {
  const choices: { expansion: Expansion; weight: number }[] = [];
  for (const child of element.children) {
    if (typeof child === "string") {
      if (child.trim() !== "") fail(`<one-of> holds <item>s only, not the text "${quote(child)}"`);
    } else if (child.name === "item")
      choices.push({ expansion: item(ctx, child), weight: weightOf(child.attributes.weight) });
    else fail(`<one-of> holds <item>s only, not <${quote(child.name)}>`);
  }
  if (choices.length === 0) fail("<one-of> without an <item>");
  return { type: "alternatives", choices };
}

function modeOf(value: string | undefined): "voice" | "dtmf" {
  if (value === undefined || value === "voice" || value === "speech") return "voice";
  if (value === "dtmf") return "dtmf";
  return fail(`mode="${quote(value)}" must be voice or dtmf`);
}

/** Compiles an `application/srgs+xml` body; throws a {@link GrammarError}. */
export function compileSrgs(body: string, limits: GrammarLimits, uri: string, weight: number): SrgsGrammar {
  const { root: grammar, elements } = parseXml(body, limits);
  if (grammar.name !== "grammar") fail(`the root element must be <grammar>, not <${quote(grammar.name)}>`);
  const attributes = grammar.attributes;
  const mode = modeOf(attributes.mode);
  const tagFormat = attributes["tag-format"];
  const ctx: Context = {
    limits,
    dtmf: mode === "dtmf",
    literals: tagFormat?.endsWith("-literals") ?? false,
    references: new Set(),
    nodes: elements,
  };
  const rules = new Map<string, Expansion>();
  for (const child of grammar.children) {
    if (typeof child === "string") {
      if (child.trim() !== "") fail(`text "${quote(child)}" outside a <rule>`);
      continue;
    }
    if (child.name === "tag" || IGNORED.has(child.name)) continue;
    if (child.name !== "rule") fail(`<${quote(child.name)}> is not allowed inside <grammar>`);
    const id = child.attributes.id;
    if (id === undefined || !RULE_ID.test(id) || SPECIALS.has(id))
      fail(`<rule id="${quote(id ?? "")}"> needs a valid id`);
    if (rules.has(id!)) fail(`two rules named "${quote(id!)}"`);
    const scope = child.attributes.scope ?? "private";
    if (scope !== "public" && scope !== "private") fail(`<rule scope="${quote(scope)}"> must be public or private`);
    if (rules.size >= limits.maxRules) fail(`more than ${limits.maxRules} rules`);
    rules.set(id!, content(ctx, child));
  }
  for (const reference of ctx.references)
    if (!rules.has(reference)) fail(`<ruleref uri="#${quote(reference)}"> names a rule that is not defined`);
  const root = attributes.root ?? rules.keys().next().value ?? fail("the grammar has no <rule>");
  if (!rules.has(root)) fail(`root="${quote(root)}" names a rule that is not defined`);
  const language = attributes["xml:lang"];
  return { kind: "srgs", uri, weight, language, mode, root, rules, tagFormat, limits };
}
