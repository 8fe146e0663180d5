/**
 * Transducer searches biased towards boosted phrases, used only when a request boosts phrases
 * (greedy stays the search otherwise):
 * - RNNT: greedy search with branches carried by modified beam search (one symbol per frame, as
 *   sherpa-onnx's modified_beam_search) wherever a phrase is within reach (see {@link biasedRnnt});
 * - TDT: greedy search whose token choice adds the context graph's bonus (durations as the
 *   greedy search reads them), as TDT's skipping frames leaves no common frame to beam over.
 * The context graph (../boost/) adds a phrase's boost per token and takes it back when the
 * spelling breaks off. Token sequences are nodes of a tree holding their prediction network
 * output, so each is predicted once.
 */
import { argmax } from "../../onnx/runner.ts";
import type { ContextGraph, ContextState } from "../boost/context-graph.ts";
import type { PredictorOutput, TransducerJoint } from "./model.ts";
import { tdtAdvance, type TdtFrame } from "./tdt.ts";

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

/** A hypothesis: its token sequence and log-probability. */
interface Hyp {
  seq: Sequence;
  logProb: number;
}

const scoreOf = (h: Hyp) => h.logProb + h.seq.bonus;

/**
 * RNNT search biased by `graph`, anchored on greedy: one hypothesis follows the greedy search
 * exactly (up to `maxSymbols` per frame, the greedy choice each time); where a token that starts
 * or continues a phrase has at least {@link MIN_BRANCH_LP} and is within {@link SCORE_BEAM} of
 * the best choice (boost included), a hypothesis spelling it branches off and is carried by
 * modified beam search (one symbol per frame, at most `beam − 1` of them, two paths to one
 * sequence adding up). A branch that completes a phrase and then scores above the greedy one takes
 * its place and is continued greedily. So while no phrase is in reach the search costs what greedy
 * costs, and when no phrase is completed its text is greedy's. Frames may come in pieces (the
 * streaming transducer feeds it chunk by chunk).
 */
export class BiasedRnntSearch {
  private readonly root: Sequence;
  private free: Hyp;
  private branches = new Map<Sequence, number>();

  constructor(
    private readonly joint: TransducerJoint,
    private readonly blankId: number,
    private readonly graph: ContextGraph,
    private readonly maxSymbols: number,
    private readonly beam = TRANSDUCER_BEAM,
  ) {
    this.root = rootOf(graph);
    this.free = { seq: this.root, logProb: 0 };
  }

  private readonly predicted = async (seq: Sequence): Promise<PredictorOutput> =>
    (seq.predicted ??= await (seq.parent === null
      ? this.joint.predict(this.blankId, this.joint.initialStates())
      : this.joint.predict(seq.token!.id, seq.parent.predicted!.states)));

  /** Searches `frames`, the first of which is frame `offset` of the stream. */
  async push(frames: readonly Float32Array[], offset: number, signal?: AbortSignal): Promise<void> {
    const { joint, blankId, graph, beam } = this;
    const vocab = blankId + 1;
    await this.predicted(this.root);
    for (const [i, frame] of frames.entries()) {
      signal?.throwIfAborted();
      const t = offset + i;
      const next = new Map<Sequence, number>();
      const add = (seq: Sequence, logProb: number) => next.set(seq, logAdd(next.get(seq) ?? -Infinity, logProb));
      const free = this.free;
      const before = free.logProb;
      for (let symbol = 0; symbol < this.maxSymbols; symbol++) {
        const logits = await joint.join(frame, free.seq.predicted!.out);
        const lp = logSoftmax(logits, vocab);
        const y = argmax(logits, 0, vocab);
        if (symbol === 0) {
          for (const id of best(lp, beam, blankId)) {
            if (id === y || lp[id]! < MIN_BRANCH_LP) continue;
            const branch = child(free.seq, { id, frame: t, duration: 1 }, graph);
            if (branch.context.pending > 0) add(branch, before + lp[id]!);
          }
        }
        free.logProb += lp[y]!;
        if (y === blankId) break;
        free.seq = child(free.seq, { id: y, frame: t, duration: 1 }, graph);
        await this.predicted(free.seq);
      }
      for (const [seq, logProb] of this.branches) {
        const lp = logSoftmax(await joint.join(frame, seq.predicted!.out), vocab);
        add(seq, logProb + lp[blankId]!);
        for (const id of best(lp, beam, blankId))
          add(child(seq, { id, frame: t, duration: 1 }, graph), logProb + lp[id]!);
      }
      next.delete(free.seq);
      [this.free, this.branches] = await select(free, next, beam, this.predicted);
    }
  }

  /** The tokens so far: greedy's, or a branch's that completed a phrase and scores above them. */
  result(): BiasedTokens {
    const { graph } = this;
    // A branch ends with what it kept: only one holding a completed phrase may beat greedy's text.
    const total = (h: Hyp) => scoreOf(h) + graph.finish(h.seq.context);
    const done = [...this.branches]
      .map(([seq, logProb]) => ({ seq, logProb }))
      .filter((h) => h.seq.bonus + graph.finish(h.seq.context) > 0);
    const top = done.reduce((a, b) => (total(b) > total(a) ? b : a), this.free);
    return { tokens: tokensOf(top.seq), matched: top.seq.bonus + graph.finish(top.seq.context) > 0 };
  }
}

/** {@link BiasedRnntSearch} over a whole segment's frames. */
export async function biasedRnnt(
  frames: readonly Float32Array[],
  joint: TransducerJoint,
  blankId: number,
  graph: ContextGraph,
  maxSymbols: number,
  signal?: AbortSignal,
): Promise<BiasedTokens> {
  const search = new BiasedRnntSearch(joint, blankId, graph, maxSymbols);
  await search.push(frames, 0, signal);
  return search.result();
}

/**
 * After a frame: a branch that completed a phrase (no tentative bonus left, some kept) and
 * scores above the greedy hypothesis replaces it; branches still spelling a phrase within
 * {@link SCORE_BEAM} of the best are kept, `beam − 1` at most; the rest are dropped.
 */
async function select(
  free: Hyp,
  candidates: Map<Sequence, number>,
  beam: number,
  predicted: (seq: Sequence) => Promise<PredictorOutput>,
): Promise<[Hyp, Map<Sequence, number>]> {
  const sorted = [...candidates].map(([seq, logProb]) => ({ seq, logProb })).sort((a, b) => scoreOf(b) - scoreOf(a));
  const completed = sorted.find((h) => h.seq.context.pending === 0 && h.seq.bonus > 0);
  if (completed && scoreOf(completed) > scoreOf(free)) {
    free = completed;
    await predicted(free.seq);
  }
  const floor = Math.max(scoreOf(free), sorted[0] ? scoreOf(sorted[0]) : -Infinity) - SCORE_BEAM;
  const kept = sorted.filter((h) => h.seq !== free.seq && h.seq.context.pending > 0 && scoreOf(h) >= floor);
  const branches = new Map<Sequence, number>();
  for (const h of kept.slice(0, beam - 1)) {
    await predicted(h.seq);
    branches.set(h.seq, h.logProb);
  }
  return [free, branches];
}

/**
 * Log-probability (bonus included) below the best hypothesis at which a phrase branch is
 * dropped: a phrase token the model finds this much less likely than the best choice, even with
 * its boost, is not what was said (a decoding beam, in nats).
 */
const SCORE_BEAM = 3;

/**
 * Least log-probability (5 %) of the token a phrase branch starts with: below it the model has
 * not heard the phrase begin, whatever the boost. Without it a model unsure of every frame (blank
 * barely likelier than each token) would branch on every frame.
 */
const MIN_BRANCH_LP = Math.log(0.05);

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
  const frame: TdtFrame = { tokens: 0 };
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
    const duration = argmax(logits, vocab, logits.length);
    if (y !== blankId) {
      at = child(at, { id: y, frame: t, duration }, graph);
      predicted = await joint.predict(y, predicted.states);
    }
    t += tdtAdvance(frame, y !== blankId, duration);
  }
  return { tokens: tokensOf(at), matched: at.bonus + graph.finish(at.context) > 0 };
}
