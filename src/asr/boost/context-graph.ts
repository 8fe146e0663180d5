/**
 * Contextual biasing: a prefix tree over the token ids of the phrases to favour, with failure
 * links (Aho–Corasick) so a phrase is found wherever it starts in a hypothesis. The idea is the
 * one sherpa-onnx's ContextGraph and Riva's word boosting use: a search adds the phrase's boost per
 * token as a hypothesis walks into the tree, takes back what it added when the walk breaks off
 * before a phrase is complete, and keeps it once the phrase is complete.
 *
 * Accounting (our own): a hypothesis at node n holds a tentative bonus φ(n) = score(n) − kept(n),
 * the part of its path's scores not yet backed by a completed phrase; completed phrases ending at
 * a step pay out their full score. One step from s to n pays `completed(n) + φ(n) − φ(s)`, so a
 * phrase spelt to its end earns exactly its tokens' boosts and a broken-off walk earns nothing.
 */

/** One state of the graph; searches hold a reference per hypothesis. */
export interface ContextState {
  /** Sum of the boosts of the tokens from the root to here. */
  readonly score: number;
  /** Tentative bonus a hypothesis here holds (taken back if the phrase is not finished). */
  readonly pending: number;
  /** Scores of the phrases that end here, this node's own and those ending in a suffix of it. */
  readonly completed: number;
}

interface Node extends ContextState {
  score: number;
  pending: number;
  completed: number;
  end: boolean;
  /** Score of the deepest phrase end on the root path (this node included). */
  kept: number;
  readonly next: Map<number, Node>;
  fail: Node | null;
}

function node(score: number): Node {
  return { score, pending: 0, completed: 0, end: false, kept: 0, next: new Map(), fail: null };
}

/** A phrase as token ids and its per-token boost. */
export interface TokenPhrase {
  readonly tokens: readonly number[];
  readonly boost: number;
}

/** The prefix tree of a phrase list for one vocabulary. */
export class ContextGraph {
  readonly root: ContextState;
  /** How many phrases were put in (duplicates merged by their larger boost). */
  readonly size: number;

  constructor(phrases: readonly TokenPhrase[]) {
    const root = node(0);
    let size = 0;
    for (const { tokens, boost } of phrases) {
      if (tokens.length === 0 || !(boost > 0)) continue;
      let at = root;
      for (const token of tokens) {
        let child = at.next.get(token);
        if (child === undefined) {
          child = node(at.score + boost);
          at.next.set(token, child);
        } else child.score = Math.max(child.score, at.score + boost);
        at = child;
      }
      at.end = true;
      size += 1;
    }
    this.root = root;
    this.size = size;
    link(root);
  }

  /** True when no phrase could ever pay out (an empty list, or every boost 0). */
  get empty(): boolean {
    return this.size === 0;
  }

  /** The state after `token` and what the step pays (negative when a partial walk breaks off). */
  step(state: ContextState, token: number): { state: ContextState; bonus: number } {
    let at = state as Node;
    let next = at.next.get(token);
    while (next === undefined && at.fail !== null) {
      at = at.fail;
      next = at.next.get(token);
    }
    const to = next ?? (this.root as Node);
    return { state: to, bonus: to.completed + to.pending - state.pending };
  }

  /** What a hypothesis ending at `state` gives back: its unfinished phrase's tentative bonus. */
  finish(state: ContextState): number {
    return -state.pending;
  }
}

/** Failure links, kept scores and completed scores, breadth first (parents before children). */
function link(root: Node): void {
  const queue: Node[] = [];
  for (const child of root.next.values()) {
    child.fail = root;
    queue.push(child);
  }
  for (const child of root.next.values()) settle(child, 0);
  for (let i = 0; i < queue.length; i++) {
    const parent = queue[i]!;
    for (const [token, child] of parent.next) {
      let fail = parent.fail;
      while (fail !== null && !fail.next.has(token)) fail = fail.fail;
      child.fail = fail?.next.get(token) ?? root;
      settle(child, parent.kept);
      queue.push(child);
    }
  }
}

/** A node's scores once its parent's kept score and its failure link are known. */
function settle(n: Node, parentKept: number): void {
  n.kept = n.end ? n.score : parentKept;
  n.pending = n.score - n.kept;
  const fail = n.fail;
  const suffix = fail === null ? 0 : fail.completed;
  n.completed = (n.end ? n.score : 0) + suffix;
}
