/**
 * The SRGS matcher: which parses of a rule derive a word sequence, by memoised search over word
 * positions (a chart parser in spirit). For each expansion and start position it finds, for every
 * reachable end position, the best parse: most grammar words (so the least swallowed by GARBAGE),
 * then the highest product of one-of weights, then the first in document order. Cost is bounded:
 * every call counts a step and a search over `maxMatchSteps` steps, or nested deeper than
 * `maxMatchDepth` (rules within rules: the stack), gives up (no match). Left-recursive
 * rules (a rule reaching itself without consuming a word) are cut at the repeated entry. A one-of
 * tries only the items that can start with the next word (first.ts), so big menus stay cheap.
 */
import { choiceIndex } from "./first.ts";
import type { AlternativesExpansion, Expansion, SrgsGrammar, TagExpansion } from "./types.ts";

/** What a parse passed, in order: the grammar's words, tags, and the rules it entered. */
export type ParseEvent =
  | { readonly kind: "word"; readonly text: string }
  | { readonly kind: "tag"; readonly tag: TagExpansion }
  | { readonly kind: "rule"; readonly rule: string; readonly events: readonly ParseEvent[] };

/** Events as a concatenation tree, so that joining parses costs nothing until the end. */
type Events = null | ParseEvent | { readonly left: Events; readonly right: Events };

interface Parse {
  readonly events: Events;
  /** Input words matched by grammar words (GARBAGE's words are not counted). */
  readonly words: number;
  readonly weight: number;
}

type Ends = Map<number, Parse>;

const EMPTY: Parse = { events: null, words: 0, weight: 1 };

class TooManySteps extends Error {}

const better = (a: Parse, b: Parse | undefined): boolean =>
  b === undefined || a.words > b.words || (a.words === b.words && a.weight > b.weight);

function join(a: Parse, b: Parse): Parse {
  const events = a.events === null ? b.events : b.events === null ? a.events : { left: a.events, right: b.events };
  return { events, words: a.words + b.words, weight: a.weight * b.weight };
}

function keep(ends: Ends, end: number, parse: Parse): void {
  if (better(parse, ends.get(end))) ends.set(end, parse);
}

/** Flattens a concatenation tree into the events in order (iteratively: trees can be deep). */
function flatten(events: Events, step: () => void): ParseEvent[] {
  const out: ParseEvent[] = [];
  const stack: Events[] = [events];
  while (stack.length > 0) {
    step();
    const node = stack.pop()!;
    if (node === null) continue;
    if ("left" in node) stack.push(node.right, node.left);
    else out.push(node);
  }
  return out;
}

/** The outcome of matching one grammar against one input. */
export interface ParseResult {
  /** The root rule's parse over the whole input, or undefined when there is none. */
  readonly root: Extract<ParseEvent, { kind: "rule" }> | undefined;
  /** Input words matched by grammar words. */
  readonly words: number;
  /** True when some path ran out of input while the grammar still wanted a word (DTMF: keep collecting). */
  readonly wantsMore: boolean;
}

class Matcher {
  private steps = 0;
  /** Nested match calls now open: bounds the stack a deep or recursive grammar may take. */
  private depth = 0;
  wantsMore = false;
  private readonly memo = new Map<Expansion, Map<number, Ends>>();
  private readonly ruleMemo = new Map<string, Map<number, Ends>>();
  private readonly active = new Set<string>();

  constructor(
    private readonly grammar: SrgsGrammar,
    private readonly input: readonly string[],
  ) {}

  /** Counts one unit of work; past the bound the whole search gives up. */
  step(): void {
    if (++this.steps > this.grammar.limits.maxMatchSteps) throw new TooManySteps();
  }

  rule(name: string, pos: number): Ends {
    this.step();
    let byPos = this.ruleMemo.get(name);
    const known = byPos?.get(pos);
    if (known) return known;
    const key = `${name}@${pos}`;
    if (this.active.has(key)) return new Map();
    this.active.add(key);
    const ends: Ends = new Map();
    for (const [end, parse] of this.match(this.grammar.rules.get(name)!, pos)) {
      const event: ParseEvent = { kind: "rule", rule: name, events: flatten(parse.events, () => this.step()) };
      ends.set(end, { events: event, words: parse.words, weight: parse.weight });
    }
    this.active.delete(key);
    if (!byPos) this.ruleMemo.set(name, (byPos = new Map()));
    byPos.set(pos, ends);
    return ends;
  }

  match(expansion: Expansion, pos: number): Ends {
    this.step();
    let byPos = this.memo.get(expansion);
    const known = byPos?.get(pos);
    if (known) return known;
    if (++this.depth > this.grammar.limits.maxMatchDepth) throw new TooManySteps();
    const ends = this.compute(expansion, pos);
    this.depth--;
    if (!byPos) this.memo.set(expansion, (byPos = new Map()));
    byPos.set(pos, ends);
    return ends;
  }

  /** Extends every parse in `frontier` by one `expansion`. */
  private extend(frontier: Ends, expansion: Expansion): Ends {
    const next: Ends = new Map();
    for (const [start, before] of frontier)
      for (const [end, parse] of this.match(expansion, start)) {
        this.step();
        keep(next, end, join(before, parse));
      }
    return next;
  }

  /** The choices of a one-of that can match at `pos`, in document order (first.ts). */
  private candidates(expansion: AlternativesExpansion, pos: number): readonly number[] {
    const index = choiceIndex(this.grammar, expansion);
    if (pos >= this.input.length) {
      if (index.wantsWord) this.wantsMore = true;
      return index.always;
    }
    const starting = index.byWord.get(this.input[pos]!);
    if (!starting) return index.always;
    if (index.always.length === 0) return starting;
    return [...starting, ...index.always].sort((a, b) => a - b);
  }

  private compute(expansion: Expansion, pos: number): Ends {
    switch (expansion.type) {
      case "token":
        if (pos >= this.input.length) this.wantsMore = true;
        else if (this.input[pos] === expansion.word)
          return new Map([[pos + 1, { events: { kind: "word", text: expansion.text }, words: 1, weight: 1 }]]);
        return new Map();
      case "tag":
        return new Map([[pos, { events: { kind: "tag", tag: expansion }, words: 0, weight: 1 }]]);
      case "ruleref":
        return this.rule(expansion.rule, pos);
      case "special": {
        if (expansion.name === "NULL") return new Map([[pos, EMPTY]]);
        const ends: Ends = new Map();
        if (expansion.name === "GARBAGE") for (let end = pos; end <= this.input.length; end++) ends.set(end, EMPTY);
        return ends;
      }
      case "sequence": {
        let frontier: Ends = new Map([[pos, EMPTY]]);
        for (const item of expansion.items) {
          frontier = this.extend(frontier, item);
          if (frontier.size === 0) break;
        }
        return frontier;
      }
      case "alternatives": {
        const ends: Ends = new Map();
        for (const i of this.candidates(expansion, pos)) {
          const { expansion: choice, weight } = expansion.choices[i]!;
          for (const [end, parse] of this.match(choice, pos))
            keep(ends, end, { ...parse, weight: parse.weight * weight });
        }
        return ends;
      }
      case "repeat":
        return this.repeat(expansion.body, expansion.min, expansion.max, pos);
    }
  }

  /**
   * `body` min..max times. Past `min`, an iteration that reaches no end position not already
   * reached adds nothing (its parses start where earlier ones did), so the loop stops there: this
   * bounds open ends (`"0-"`) and bodies that can match no word.
   */
  private repeat(body: Expansion, min: number, max: number, pos: number): Ends {
    const results: Ends = new Map();
    let frontier: Ends = new Map([[pos, EMPTY]]);
    if (min === 0) results.set(pos, EMPTY);
    for (let count = 1; count <= max && frontier.size > 0; count++) {
      frontier = this.extend(frontier, body);
      if (count < min) continue;
      let added = false;
      for (const [end, parse] of frontier) {
        if (!results.has(end)) added = true;
        keep(results, end, parse);
      }
      if (!added) break;
    }
    return results;
  }
}

/** Matches `input` (normalised words, or DTMF keys) against the grammar's root rule, whole. */
export function parseInput(grammar: SrgsGrammar, input: readonly string[]): ParseResult {
  const matcher = new Matcher(grammar, input);
  try {
    const parse = matcher.rule(grammar.root, 0).get(input.length);
    const root = parse?.events as Extract<ParseEvent, { kind: "rule" }> | undefined;
    return { root, words: parse?.words ?? 0, wantsMore: matcher.wantsMore };
  } catch (error) {
    if (error instanceof TooManySteps) return { root: undefined, words: 0, wantsMore: false };
    throw error;
  }
}
