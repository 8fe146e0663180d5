/**
 * Transducer searches biased towards boosted phrases, used only when a request boosts phrases
 * (greedy stays the search otherwise):
 * - RNNT: modified beam search (one symbol per frame at most, as sherpa-onnx's
 *   modified_beam_search): per encoder frame every hypothesis is joined once, each may stay
 *   (blank) or take one of its best tokens, and at most {@link TRANSDUCER_BEAM} token sequences
 *   are kept (two paths to one sequence add up): the best outside a phrase and the best spelling
 *   one (see {@link pruned});
 * - TDT: greedy search whose token choice adds the context graph's bonus (durations as the
 *   greedy search reads them), as TDT's skipping frames leaves no common frame to beam over.
 * The context graph (../boost/) adds a phrase's boost per token and takes it back when the
 * spelling breaks off. Token sequences are nodes of a tree holding their prediction network
 * output, so each is predicted once.
 */
import { argmax } from "../../runtime/onnx-runner.ts";
import type { ContextGraph, ContextState } from "../boost/context-graph.ts";
import type { PredictorOutput, TransducerJoint } from "./model.ts";

/** Hypotheses kept per frame (sherpa-onnx's default). */
export const TRANSDUCER_BEAM = 4;

/** One emitted token: its id, frame and (TDT) duration in frames (as the greedy searches give). */
interface Token {
  readonly id: number;
  readonly frame: number;
  readonly duration: number;
}

interface Sequence {
  readonly token: Token | null;
  readonly parent: Sequence | null;
  readonly children: Map<number, Sequence>;
  readonly context: ContextState;
  readonly bonus: number;
  predicted?: PredictorOutput;
}

/** A biased search's tokens and whether they spell a boosted phrase (else the caller keeps greedy). */
export interface BiasedTokens {
  readonly tokens: Token[];
  readonly matched: boolean;
}

/** log-softmax of `logits[0, vocab)`. */
function logSoftmax(logits: Float32Array, vocab: number): Float64Array {
  let max = -Infinity;
  for (let i = 0; i < vocab; i++) max = Math.max(max, logits[i]!);
  let sum = 0;
  for (let i = 0; i < vocab; i++) sum += Math.exp(logits[i]! - max);
  const norm = max + Math.log(sum);
  const out = new Float64Array(vocab);
  for (let i = 0; i < vocab; i++) out[i] = logits[i]! - norm;
  return out;
}

/** The `count` best ids of `lp` other than `skip`, best first (one pass, no sort of the vocabulary). */
function best(lp: Float64Array, count: number, skip: number): number[] {
  const ids: number[] = [];
  for (let id = 0; id < lp.length; id++) {
    if (id === skip || (ids.length === count && lp[id]! <= lp[ids[count - 1]!]!)) continue;
    let at = ids.length;
    while (at > 0 && lp[ids[at - 1]!]! < lp[id]!) at--;
    ids.splice(at, 0, id);
    if (ids.length > count) ids.pop();
  }
  return ids;
}

function logAdd(a: number, b: number): number {
  if (a === -Infinity) return b;
  const max = Math.max(a, b);
  return max + Math.log1p(Math.exp(-Math.abs(a - b)));
}

function child(parent: Sequence, token: Token, graph: ContextGraph): Sequence {
  let next = parent.children.get(token.id);
  if (next === undefined) {
    const step = graph.step(parent.context, token.id);
    next = { token, parent, children: new Map(), context: step.state, bonus: parent.bonus + step.bonus };
    parent.children.set(token.id, next);
  }
  return next;
}

function tokensOf(sequence: Sequence): Token[] {
  const out: Token[] = [];
  for (let s: Sequence | null = sequence; s?.token; s = s.parent) out.push(s.token);
  return out.reverse();
}

function rootOf(graph: ContextGraph): Sequence {
  return { token: null, parent: null, children: new Map(), context: graph.root, bonus: 0 };
}

/** Modified beam search (RNNT, one symbol per frame) biased by `graph`. */
export async function biasedRnnt(
  frames: readonly Float32Array[],
  joint: TransducerJoint,
  blankId: number,
  graph: ContextGraph,
  signal?: AbortSignal,
  beam = TRANSDUCER_BEAM,
): Promise<BiasedTokens> {
  const vocab = blankId + 1;
  const root = rootOf(graph);
  root.predicted = await joint.predict(blankId, joint.initialStates());
  let hyps = new Map<Sequence, number>([[root, 0]]);
  for (const [t, frame] of frames.entries()) {
    signal?.throwIfAborted();
    const next = new Map<Sequence, number>();
    const add = (s: Sequence, logProb: number) => next.set(s, logAdd(next.get(s) ?? -Infinity, logProb));
    for (const [sequence, logProb] of hyps) {
      const lp = logSoftmax(await joint.join(frame, sequence.predicted!.out), vocab);
      add(sequence, logProb + lp[blankId]!);
      for (const id of best(lp, beam, blankId))
        add(child(sequence, { id, frame: t, duration: 1 }, graph), logProb + lp[id]!);
    }
    const kept = pruned([...next], beam);
    for (const [sequence] of kept)
      sequence.predicted ??= await joint.predict(sequence.token!.id, sequence.parent!.predicted!.states);
    hyps = new Map(kept);
  }
  let top = root;
  let topScore = -Infinity;
  for (const [sequence, logProb] of hyps) {
    const total = logProb + sequence.bonus + graph.finish(sequence.context);
    if (total > topScore) [top, topScore] = [sequence, total];
  }
  return { tokens: tokensOf(top), matched: top.bonus + graph.finish(top.context) > 0 };
}

/**
 * Log-probability (bonus included) below the best hypothesis at which a phrase-walking one is
 * dropped: a phrase token the model finds this much less likely than the best choice, even with
 * its boost, is not what was said (Kaldi's decoding beam, in nats).
 */
const SCORE_BEAM = 3;

/**
 * The hypotheses kept after a frame: the best one outside any phrase, and up to `beam − 1` of
 * the best still spelling a phrase. Only a phrase's bonus can change which text wins over greedy
 * (a search that completes no phrase is discarded for greedy's text), so alternatives outside
 * phrases are not worth a joiner run each: while no phrase is in reach the search joins once per
 * frame, as greedy does.
 */
function pruned(candidates: Array<[Sequence, number]>, beam: number): Array<[Sequence, number]> {
  candidates.sort(([a, pa], [b, pb]) => pb + b.bonus - (pa + a.bonus));
  const floor = candidates[0]![1] + candidates[0]![0].bonus - SCORE_BEAM;
  const free = candidates.find(([s]) => s.context.pending === 0);
  const walking = candidates
    .filter(([s, p]) => s.context.pending > 0 && p + s.bonus >= floor)
    .slice(0, free ? beam - 1 : beam);
  return free ? [free, ...walking] : walking;
}

/** sherpa-onnx's token limit per frame for TDT (as the greedy search). */
const TDT_MAX_TOKENS_PER_FRAME = 5;

/** Greedy TDT search whose token choice adds the context bonus. */
export async function biasedTdt(
  frames: readonly Float32Array[],
  joint: TransducerJoint,
  blankId: number,
  graph: ContextGraph,
  signal?: AbortSignal,
): Promise<BiasedTokens> {
  const vocab = blankId + 1;
  let at = rootOf(graph);
  let predicted = await joint.predict(blankId, joint.initialStates());
  let onThisFrame = 0;
  for (let t = 0; t < frames.length; ) {
    signal?.throwIfAborted();
    const logits = await joint.join(frames[t]!, predicted.out);
    const lp = logSoftmax(logits, vocab);
    let y = blankId;
    let bestScore = lp[blankId]!;
    for (const id of best(lp, TRANSDUCER_BEAM, blankId)) {
      const score = lp[id]! + graph.step(at.context, id).bonus;
      if (score > bestScore) [y, bestScore] = [id, score];
    }
    let skip = argmax(logits, vocab, logits.length);
    if (y !== blankId) {
      at = child(at, { id: y, frame: t, duration: skip }, graph);
      predicted = await joint.predict(y, predicted.states);
      onThisFrame += 1;
    }
    if (skip > 0) onThisFrame = 0;
    if (onThisFrame >= TDT_MAX_TOKENS_PER_FRAME || (y === blankId && skip === 0)) {
      onThisFrame = 0;
      skip = 1;
    }
    t += skip;
  }
  return { tokens: tokensOf(at), matched: at.bonus + graph.finish(at.context) > 0 };
}
