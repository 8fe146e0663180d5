/**
 * First-word index of a one-of, so that a large menu or directory grammar (thousands of items)
 * tries at each position only the items that can start with the word there, instead of all of
 * them. FIRST sets are the classic parser construction: the words an expansion can begin with,
 * whether it can begin with any word (GARBAGE), and whether it can match nothing at all. Where a
 * rule reaches itself the set is taken as "any word", which only costs speed, never a match.
 */
import type { AlternativesExpansion, Expansion, SrgsGrammar } from "./types.ts";

interface First {
  readonly words: ReadonlySet<string>;
  /** Can begin with any word (GARBAGE, or a cycle through rule references). */
  readonly any: boolean;
  /** Can match no word at all. */
  readonly nullable: boolean;
}

/** Which choices of a one-of to try, by the next input word. */
export interface ChoiceIndex {
  readonly byWord: ReadonlyMap<string, readonly number[]>;
  /** Choices to try whatever the next word is (or at the end of the input). */
  readonly always: readonly number[];
  /** Some choice needs a word first: at the end of the input, more input could match. */
  readonly wantsWord: boolean;
}

const ANY: First = { words: new Set(), any: true, nullable: true };
const firsts = new WeakMap<Expansion, First>();
const indexes = new WeakMap<AlternativesExpansion, ChoiceIndex>();

/** The rules being expanded and how deep the walk is (bounded like the matcher's stack). */
interface Walk {
  readonly grammar: SrgsGrammar;
  readonly visiting: Set<string>;
  depth: number;
}

function firstOf(walk: Walk, expansion: Expansion): First {
  const known = firsts.get(expansion);
  if (known) return known;
  if (walk.depth >= walk.grammar.limits.maxMatchDepth) return ANY;
  walk.depth++;
  const first = compute(walk, expansion);
  walk.depth--;
  firsts.set(expansion, first);
  return first;
}

function union(parts: readonly First[], nullable: boolean): First {
  const words = new Set<string>();
  for (const part of parts) for (const word of part.words) words.add(word);
  return { words, any: parts.some((part) => part.any), nullable };
}

function compute(walk: Walk, expansion: Expansion): First {
  switch (expansion.type) {
    case "token":
      return { words: new Set([expansion.word]), any: false, nullable: false };
    case "tag":
      return { words: new Set(), any: false, nullable: true };
    case "special":
      return expansion.name === "GARBAGE" ? ANY : { words: new Set(), any: false, nullable: expansion.name === "NULL" };
    case "ruleref": {
      if (walk.visiting.has(expansion.rule)) return ANY;
      walk.visiting.add(expansion.rule);
      const first = firstOf(walk, walk.grammar.rules.get(expansion.rule)!);
      walk.visiting.delete(expansion.rule);
      return first;
    }
    case "sequence": {
      const parts: First[] = [];
      for (const item of expansion.items) {
        const part = firstOf(walk, item);
        parts.push(part);
        if (!part.nullable) return union(parts, false);
      }
      return union(parts, true);
    }
    case "alternatives": {
      const parts = expansion.choices.map((choice) => firstOf(walk, choice.expansion));
      return union(
        parts,
        parts.some((part) => part.nullable),
      );
    }
    case "repeat": {
      const body = firstOf(walk, expansion.body);
      return { ...body, nullable: body.nullable || expansion.min === 0 };
    }
  }
}

/** The index of a one-of's choices by first word (built once per one-of, then cached). */
export function choiceIndex(grammar: SrgsGrammar, expansion: AlternativesExpansion): ChoiceIndex {
  const known = indexes.get(expansion);
  if (known) return known;
  const byWord = new Map<string, number[]>();
  const always: number[] = [];
  let wantsWord = false;
  expansion.choices.forEach((choice, i) => {
    const first = firstOf({ grammar, visiting: new Set(), depth: 0 }, choice.expansion);
    if (first.any || first.nullable) always.push(i);
    if (first.words.size > 0 || first.any) wantsWord = true;
    if (first.any) return;
    for (const word of first.words) {
      const list = byWord.get(word);
      if (list) list.push(i);
      else byWord.set(word, [i]);
    }
  });
  const index = { byWord, always, wantsWord };
  indexes.set(expansion, index);
  return index;
}
