/**
 * CTC prefix beam search with contextual biasing, used only when a request boosts phrases (greedy
 * stays the search otherwise). Each hypothesis is a collapsed token prefix with the probability
 * of its alignments ending in blank and in its last token; per frame the most probable tokens
 * extend it (a repeat extends only after a blank); the context graph (../boost/) adds a phrase's
 * boost per token as a prefix spells it and takes it back when the spelling breaks off. Prefixes
 * are nodes of a tree, so two alignments of the same text meet in the same object.
 */
import type { ContextGraph, ContextState } from "../boost/context-graph.ts";
import type { CtcOutput } from "./model.ts";

/** One emitted token and the output frame it was emitted on (as greedy CTC gives them). */
interface CtcToken {
  readonly id: number;
  readonly frame: number;
}

/** Hypotheses kept per frame (sherpa-onnx's default for modified beam search). */
export const CTC_BEAM = 4;

/** Log-probability of blank above which a frame is taken as blank only (probability 0.995). */
const BLANK_FRAME_LP = Math.log(0.995);

interface Prefix {
  readonly id: number;
  frame: number;
  readonly parent: Prefix | null;
  readonly children: Map<number, Prefix>;
  readonly context: ContextState;
  /** Sum of the context bonuses along the prefix. */
  readonly bonus: number;
}

interface Hyp {
  readonly prefix: Prefix;
  blank: number;
  token: number;
}

function logAdd(a: number, b: number): number {
  if (a === -Infinity) return b;
  if (b === -Infinity) return a;
  const max = Math.max(a, b);
  return max + Math.log1p(Math.exp(-Math.abs(a - b)));
}

/** The `count` best ids of `row[from, to)` other than `skip`, best first. */
function topTokens(row: Float32Array, from: number, to: number, count: number, skip: number): number[] {
  const best: number[] = [];
  for (let i = from; i < to; i++) {
    const id = i - from;
    if (id === skip) continue;
    if (best.length === count && row[i]! <= row[from + best[count - 1]!]!) continue;
    let at = Math.min(best.length, count - 1);
    while (at > 0 && row[from + best[at - 1]!]! < row[i]!) at--;
    best.splice(at, 0, id);
    if (best.length > count) best.pop();
  }
  return best;
}

/** The search's result: tokens with frames, and whether the text spells a boosted phrase. */
export interface BiasedCtc {
  readonly tokens: CtcToken[];
  /** True when the kept hypothesis earned a completed phrase's boost. */
  readonly matched: boolean;
}

/** Prefix beam search over `[frames, vocab]` log-probabilities, biased by `graph`. */
export function biasedCtc(output: CtcOutput, blankId: number, graph: ContextGraph, beam = CTC_BEAM): BiasedCtc {
  const root: Prefix = { id: -1, frame: -1, parent: null, children: new Map(), context: graph.root, bonus: 0 };
  let hyps: Hyp[] = [{ prefix: root, blank: 0, token: -Infinity }];
  const { logprobs, vocab } = output;
  for (let t = 0; t < output.frames; t++) {
    const from = t * vocab;
    const blankLp = logprobs[from + blankId]!;
    if (blankLp > BLANK_FRAME_LP) {
      // A frame that is all but surely blank extends no prefix: only its blank path is kept.
      for (const hyp of hyps) {
        hyp.blank = logAdd(hyp.blank, hyp.token) + blankLp;
        hyp.token = -Infinity;
      }
      continue;
    }
    const candidates = topTokens(logprobs, from, from + vocab, beam, blankId);
    const next = new Map<Prefix, Hyp>();
    const previous = new Set(hyps.map((h) => h.prefix));
    const at = (prefix: Prefix) => {
      let hyp = next.get(prefix);
      if (hyp === undefined) next.set(prefix, (hyp = { prefix, blank: -Infinity, token: -Infinity }));
      return hyp;
    };
    for (const hyp of hyps) {
      const total = logAdd(hyp.blank, hyp.token);
      const stay = at(hyp.prefix);
      stay.blank = logAdd(stay.blank, total + blankLp);
      for (const c of candidates) {
        const lp = logprobs[from + c]!;
        const child = extend(hyp.prefix, c, t, graph, previous);
        const extended = at(child);
        if (c === hyp.prefix.id) {
          stay.token = logAdd(stay.token, hyp.token + lp);
          extended.token = logAdd(extended.token, hyp.blank + lp);
        } else extended.token = logAdd(extended.token, total + lp);
      }
    }
    hyps = [...next.values()]
      .filter((h) => logAdd(h.blank, h.token) > -Infinity)
      .sort((a, b) => score(b) - score(a))
      .slice(0, beam);
  }
  const best = hyps.reduce((a, b) => (final(b, graph) > final(a, graph) ? b : a));
  return { tokens: tokensOf(best.prefix), matched: best.prefix.bonus + graph.finish(best.prefix.context) > 0 };
}

function score(h: Hyp): number {
  return logAdd(h.blank, h.token) + h.prefix.bonus;
}

function final(h: Hyp, graph: ContextGraph): number {
  return score(h) + graph.finish(h.prefix.context);
}

/** The prefix `parent` + `id`; a prefix new to the beam is timed at this frame. */
function extend(parent: Prefix, id: number, frame: number, graph: ContextGraph, beam: Set<Prefix>): Prefix {
  let child = parent.children.get(id);
  if (child === undefined) {
    const step = graph.step(parent.context, id);
    child = { id, frame, parent, children: new Map(), context: step.state, bonus: parent.bonus + step.bonus };
    parent.children.set(id, child);
  } else if (!beam.has(child)) child.frame = frame;
  return child;
}

/** The prefix's tokens in order, frames never decreasing. */
function tokensOf(prefix: Prefix): CtcToken[] {
  const out: CtcToken[] = [];
  for (let p: Prefix | null = prefix; p !== null && p.id >= 0; p = p.parent) out.push({ id: p.id, frame: p.frame });
  out.reverse();
  for (let i = 1; i < out.length; i++)
    if (out[i]!.frame < out[i - 1]!.frame) out[i] = { ...out[i]!, frame: out[i - 1]!.frame };
  return out;
}
