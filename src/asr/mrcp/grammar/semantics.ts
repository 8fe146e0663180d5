/**
 * Runs a parse's tags (tags.ts) to the value a match returns. Each rule has its own `out`, starting
 * unset; tags assign it or its properties, `rules.<id>` reads the last value of a rule referenced
 * earlier in the same rule, `rules.latest()` the last referenced rule's value. A rule whose tags
 * never assign `out` gets a default, as SISR rules do:
 *
 * - when it referenced exactly one rule (GARBAGE/NULL/VOID do not count): that rule's value, so a
 *   root of `GARBAGE <ruleref uri="#menu"/> GARBAGE` returns what the menu item returns;
 * - otherwise the words it matched, as the grammar spells them, joined by spaces.
 */
import type { ParseEvent } from "./matcher.ts";
import type { SemanticValue, TagExpression, TagStatement } from "./types.ts";

type MutableValue = string | { [property: string]: MutableValue };

/** A rule's value and the grammar words it matched (its sub-rules' words included). */
interface RuleValue {
  readonly value: SemanticValue;
  readonly words: readonly string[];
}

function property(value: SemanticValue | undefined, path: readonly string[]): SemanticValue {
  let current = value;
  for (const name of path) current = typeof current === "object" ? current[name] : undefined;
  return current ?? "";
}

function read(expression: TagExpression, rules: ReadonlyMap<string, SemanticValue>, latest: SemanticValue | undefined) {
  if (expression.kind === "literal") return expression.value;
  return property(expression.rule === "latest" ? latest : rules.get(expression.rule), expression.path);
}

/** Copies a value so that assigning into it never changes a sub-rule's value. */
function copy(value: SemanticValue): MutableValue {
  if (typeof value === "string") return value;
  const out: { [property: string]: MutableValue } = {};
  for (const [key, inner] of Object.entries(value)) out[key] = copy(inner);
  return out;
}

function assign(out: MutableValue | undefined, statement: TagStatement, value: SemanticValue): MutableValue {
  if (statement.path.length === 0) return copy(value);
  const root: { [property: string]: MutableValue } = typeof out === "object" ? out : {};
  let target = root;
  statement.path.forEach((name, index) => {
    if (index === statement.path.length - 1) {
      target[name] = copy(value);
      return;
    }
    const next = target[name];
    target = target[name] = typeof next === "object" ? next : {};
  });
  return root;
}

function evaluateRule(events: readonly ParseEvent[]): RuleValue {
  let out: MutableValue | undefined;
  const rules = new Map<string, SemanticValue>();
  let latest: SemanticValue | undefined;
  let referenced = 0;
  const words: string[] = [];
  for (const event of events) {
    if (event.kind === "word") words.push(event.text);
    else if (event.kind === "rule") {
      const inner = evaluateRule(event.events);
      rules.set(event.rule, inner.value);
      latest = inner.value;
      referenced++;
      words.push(...inner.words);
    } else
      for (const statement of event.tag.statements) out = assign(out, statement, read(statement.value, rules, latest));
  }
  const value = out ?? (referenced === 1 && latest !== undefined ? latest : words.join(" "));
  return { value, words };
}

/** The value of a matched rule (the root rule's parse event). */
export function interpret(root: Extract<ParseEvent, { kind: "rule" }>): SemanticValue {
  return evaluateRule(root.events).value;
}
