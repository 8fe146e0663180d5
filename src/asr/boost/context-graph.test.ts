import { describe, expect, test } from "bun:test";
import { ContextGraph, type ContextState } from "./context-graph.ts";
import { PhraseTokenizer } from "./tokenize.ts";

/** Walks `tokens` from the root; the bonuses of each step, and what finishing there gives back. */
function walk(graph: ContextGraph, tokens: readonly number[]): { steps: number[]; total: number } {
  let state: ContextState = graph.root;
  const steps: number[] = [];
  for (const token of tokens) {
    const step = graph.step(state, token);
    steps.push(step.bonus);
    state = step.state;
  }
  return { steps, total: steps.reduce((a, b) => a + b, 0) + graph.finish(state) };
}

describe("context graph", () => {
  test("does pay a phrase's boost per token and keep it once the phrase is complete", () => {
    const graph = new ContextGraph([{ tokens: [1, 2, 3], boost: 2 }]);
    expect(walk(graph, [1, 2, 3])).toEqual({ steps: [2, 2, 2], total: 6 });
    expect(walk(graph, [9, 1, 2, 3, 9]).total).toBe(6);
  });

  test("does take the tentative bonus back when the phrase breaks off", () => {
    const graph = new ContextGraph([{ tokens: [1, 2, 3], boost: 2 }]);
    expect(walk(graph, [1, 2, 9])).toEqual({ steps: [2, 2, -4], total: 0 });
    expect(walk(graph, [1, 2]).total).toBe(0);
  });

  test("does find a phrase that starts inside a broken-off one (failure links)", () => {
    const graph = new ContextGraph([
      { tokens: [1, 2, 3], boost: 1 },
      { tokens: [2, 4], boost: 3 },
    ]);
    expect(walk(graph, [1, 2, 4]).total).toBe(6);
  });

  test("does pay a phrase that ends inside a longer one's walk", () => {
    const graph = new ContextGraph([
      { tokens: [1, 2, 3, 4], boost: 1 },
      { tokens: [2, 3], boost: 2 },
    ]);
    // «2 3» is complete at the third token although the walk is at «1 2 3»; «1 2 3» then breaks off.
    expect(walk(graph, [1, 2, 3, 9]).total).toBe(4);
  });

  test("does leave an empty or zero-boost list empty", () => {
    expect(new ContextGraph([]).empty).toBe(true);
    expect(new ContextGraph([{ tokens: [1], boost: 0 }]).empty).toBe(true);
  });
});

describe("phrase tokenizer", () => {
  test("does join a character vocabulary's words with its word mark, none before the first", () => {
    const tokens = ["▁", "ك", "ل", "ب", "س", "<blk>"];
    expect(new PhraseTokenizer(tokens).encode("كلب  سل")).toEqual([1, 2, 3, 0, 4, 2]);
  });

  test("does cut words into the longest word pieces, each word starting with the mark", () => {
    const tokens = ["<unk>", "▁ال", "▁", "سلام", "ال", "س", "ل", "ا", "م", "<blk>"];
    expect(new PhraseTokenizer(tokens).encode("السلام")).toEqual([1, 3]);
    expect(new PhraseTokenizer(tokens).encode("سلم")).toEqual([2, 5, 6, 8]);
  });

  test("does leave out a phrase the vocabulary cannot spell", () => {
    const tokenizer = new PhraseTokenizer(["▁", "ك", "<blk>"]);
    expect(tokenizer.encode("كق")).toBeNull();
    expect(tokenizer.graph([{ phrase: "ق", boost: 2 }])).toBeNull();
    expect(tokenizer.graph([{ phrase: "ك", boost: 2 }])?.size).toBe(1);
  });
});
