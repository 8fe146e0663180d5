/**
 * CTC search with contextual biasing, used only when a request boosts phrases (greedy stays the
 * search otherwise), anchored on greedy as the transducer's is (../transducer/beam.ts): one
 * hypothesis follows greedy CTC exactly (the likeliest class per frame, repeats collapsed); where
 * a token that starts a phrase has at least {@link MIN_TOKEN_LP} and, with its boost, comes within
 * {@link SCORE_BEAM} of greedy, a prefix spelling it branches off and is carried by prefix beam
 * search (the probability of its alignments ending in blank and in its last token; a repeat
 * extends only after a blank). The context graph (../boost/) adds a phrase's boost per token as a
 * prefix spells it and takes it back when the spelling breaks off. A branch that completes its
 * phrase and scores above greedy takes its place and is continued greedily, so the text differs
 * from greedy's only where a phrase won. Prefixes are nodes of a tree, so two alignments of the
 * same text meet in the same object.
 */
import { argmax } from "../../onnx/runner.ts";
import type { ContextGraph, ContextState } from "../boost/context-graph.ts";
import type { CtcOutput } from "./model.ts";

/** One emitted token and the output frame it was emitted on (as greedy CTC gives them). */
interface CtcToken {
  readonly id: number;
  readonly frame: number;
}

/** Hypotheses kept per frame, greedy's included (sherpa-onnx's default beam). */
export const CTC_BEAM = 4;

/** Least log-probability (5 %) of a token a branch takes (pyctcdecode's `token_min_logp` idea). */
const MIN_TOKEN_LP = Math.log(0.05);

/** Nats (bonus included) below the best at which a branch is dropped (a decoding beam). */
const SCORE_BEAM = 3;

interface Prefix {
  readonly id: number;
  frame: number;
  readonly parent: Prefix | null;
  readonly children: Map<number, Prefix>;
  readonly context: ContextState;
  /** Sum of the context bonuses along the prefix. */
  readonly bonus: number;
}

/** A branch: its prefix and the log-probabilities of its alignments ending in blank / in its last token. */
interface Branch {
  readonly prefix: Prefix;
  blank: number;
  token: number;
}

/** The greedy hypothesis: its prefix, the class of its last frame and its path's log-probability. */
interface Greedy {
  prefix: Prefix;
  last: number;
  logProb: number;
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
  /** True when the kept hypothesis holds a completed phrase (else the tokens are greedy's). */
  readonly matched: boolean;
}

const branchScore = (b: Branch) => logAdd(b.blank, b.token) + b.prefix.bonus;

/** The biased search over `[frames, vocab]` log-probabilities. */
export function biasedCtc(output: CtcOutput, blankId: number, graph: ContextGraph, beam = CTC_BEAM): BiasedCtc {
  const root: Prefix = { id: -1, frame: -1, parent: null, children: new Map(), context: graph.root, bonus: 0 };
  let greedy: Greedy = { prefix: root, last: -1, logProb: 0 };
  let branches: Branch[] = [];
  const { logprobs, vocab } = output;
  for (let t = 0; t < output.frames; t++) {
    const from = t * vocab;
    const lp = (id: number) => logprobs[from + id]!;
    const live = new Set([greedy.prefix, ...branches.map((b) => b.prefix)]);
    const next = new Map<Prefix, Branch>();
    const at = (prefix: Prefix) => {
      let branch = next.get(prefix);
      if (branch === undefined) next.set(prefix, (branch = { prefix, blank: -Infinity, token: -Infinity }));
      return branch;
    };
    const candidates = topTokens(logprobs, from, from + vocab, beam, blankId).filter((c) => lp(c) >= MIN_TOKEN_LP);
    const y = argmax(logprobs, from, from + vocab);
    // Branches off greedy: a phrase token in place of greedy's class on this frame.
    for (const c of candidates) {
      if (c === y || c === greedy.last) continue;
      const prefix = extend(greedy.prefix, c, t, graph, live);
      if (prefix.context.pending > 0) at(prefix).token = logAdd(at(prefix).token, greedy.logProb + lp(c));
    }
    // Greedy itself.
    if (y !== blankId && y !== greedy.last) {
      greedy.prefix = extend(greedy.prefix, y, t, graph, live);
      greedy.prefix.frame = t; // greedy's emission frame is the one its text is timed by
    }
    greedy.last = y;
    greedy.logProb += lp(y);
    // The branches, by prefix beam search.
    for (const branch of branches) {
      const total = logAdd(branch.blank, branch.token);
      const stay = at(branch.prefix);
      stay.blank = logAdd(stay.blank, total + lp(blankId));
      for (const c of candidates) {
        const extended = at(extend(branch.prefix, c, t, graph, live));
        if (c === branch.prefix.id) {
          stay.token = logAdd(stay.token, branch.token + lp(c));
          extended.token = logAdd(extended.token, branch.blank + lp(c));
        } else extended.token = logAdd(extended.token, total + lp(c));
      }
    }
    next.delete(greedy.prefix);
    [greedy, branches] = select(greedy, [...next.values()], beam);
  }
  const finish = (prefix: Prefix) => prefix.bonus + graph.finish(prefix.context);
  let top: { prefix: Prefix; score: number } = { prefix: greedy.prefix, score: greedy.logProb + finish(greedy.prefix) };
  for (const branch of branches) {
    const score = logAdd(branch.blank, branch.token) + finish(branch.prefix);
    if (finish(branch.prefix) > 0 && score > top.score) top = { prefix: branch.prefix, score };
  }
  return { tokens: tokensOf(top.prefix), matched: finish(top.prefix) > 0 };
}

/**
 * After a frame: a branch that completed a phrase (no tentative bonus left, some kept) and scores
 * above greedy replaces it (continued greedily from its likelier ending); branches still spelling
 * a phrase within {@link SCORE_BEAM} of the best are kept, `beam − 1` at most.
 */
function select(greedy: Greedy, candidates: Branch[], beam: number): [Greedy, Branch[]] {
  candidates.sort((a, b) => branchScore(b) - branchScore(a));
  const greedyScore = greedy.logProb + greedy.prefix.bonus;
  const completed = candidates.find((b) => b.prefix.context.pending === 0 && b.prefix.bonus > 0);
  if (completed && branchScore(completed) > greedyScore) {
    const last = completed.token > completed.blank ? completed.prefix.id : -1;
    greedy = { prefix: completed.prefix, last, logProb: logAdd(completed.blank, completed.token) };
  }
  const floor = Math.max(greedy.logProb + greedy.prefix.bonus, candidates[0] ? branchScore(candidates[0]) : -Infinity);
  const kept = candidates.filter(
    (b) => b.prefix !== greedy.prefix && b.prefix.context.pending > 0 && branchScore(b) >= floor - SCORE_BEAM,
  );
  return [greedy, kept.slice(0, beam - 1)];
}

/** The prefix `parent` + `id`; a prefix no hypothesis held before this frame is timed at it. */
function extend(parent: Prefix, id: number, frame: number, graph: ContextGraph, live: Set<Prefix>): Prefix {
  let child = parent.children.get(id);
  if (child === undefined) {
    const step = graph.step(parent.context, id);
    child = { id, frame, parent, children: new Map(), context: step.state, bonus: parent.bonus + step.bonus };
    parent.children.set(id, child);
  } else if (!live.has(child)) child.frame = frame;
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
