/**
 * The Hugging Face seq2seq decoder contract (Optimum's ONNX export, as onnx-community publishes it
 * for transformers.js), shared by the families that use it (Moonshine, Whisper in the HF layout).
 * Two shapes are published:
 *
 * - merged (`decoder_model_merged.onnx`): `input_ids` int64 [1, n], `encoder_hidden_states`,
 *   `use_cache_branch` bool [1] and `past_key_values.<layer>.{decoder,encoder}.{key,value}`
 *   [1, heads, len, head_dim] → `logits` [1, n, vocab] and `present.<layer>.…` of the same names.
 *   The first step runs with empty (length 0) caches and `use_cache_branch = false` and computes
 *   the cross-attention keys/values; every later step feeds back all `present.*.decoder.*` (one
 *   position longer each step) and the FIRST step's `present.*.encoder.*` (later steps return them
 *   unchanged or empty), with `use_cache_branch = true` (transformers.js
 *   `src/models/modeling_utils.js` decoder_forward sets it from whether a cache exists).
 * - split (`decoder_model.onnx` + `decoder_with_past_model.onnx`, Optimum's older export and
 *   `--no-post-process`): the first step runs `decoder_model` (no past inputs; it returns every
 *   present), later steps `decoder_with_past_model` with the caches as above.
 *
 * Feeds are limited to the inputs a session declares (transformers.js picks feeds by the session's
 * input names the same way): an export that dropped `encoder_hidden_states` from the with-past
 * decoder, or has no `use_cache_branch`, is fed without them.
 *
 * The caches never leave the decoder's worker (issue 38): a decode holds one decoder session
 * (src/onnx session.ts HeldSession), sends it the encoder output once, and each step sends the new
 * token ids and gets back the logits while the presents are kept there as the next step's past.
 * The split layout's first step runs on its own session, whose presents go once to the held
 * with-past session.
 */
import { bool, f32, floatData, type HeldSession, i64, type Session, type Tensor } from "../../onnx/runner.ts";

/** Cache geometry: decoder layers, key/value heads and head size. */
export interface CacheGeometry {
  readonly layers: number;
  readonly heads: number;
  readonly headDim: number;
}

/** The decoder sessions of one pack and the input names each declares (null: not known, feed all). */
export type Seq2SeqDecoderSessions =
  | { readonly kind: "merged"; readonly merged: Session; readonly inputs: ReadonlySet<string> | null }
  | {
      readonly kind: "split";
      readonly first: Session;
      readonly withPast: Session;
      readonly firstInputs: ReadonlySet<string> | null;
      readonly withPastInputs: ReadonlySet<string> | null;
    };

const KINDS = ["key", "value"] as const;
const PARTS = ["decoder", "encoder"] as const;

function pick(feeds: Record<string, Tensor>, declared: ReadonlySet<string> | null): Record<string, Tensor> {
  if (declared === null) return feeds;
  return Object.fromEntries(Object.entries(feeds).filter(([name]) => declared.has(name)));
}

/** `present.<layer>.<part>.<kind>` → `past_key_values.…` for the given parts. */
function presentsToPast(layers: number, parts: readonly (typeof PARTS)[number][]): Record<string, string> {
  const map: Record<string, string> = {};
  for (let layer = 0; layer < layers; layer++)
    for (const part of parts)
      for (const kind of KINDS) map[`present.${layer}.${part}.${kind}`] = `past_key_values.${layer}.${part}.${kind}`;
  return map;
}

/** The logits of the last position of a `logits` output [1, n, vocab]. */
function lastLogits(out: Readonly<Record<string, Tensor>>): Float32Array {
  const logits = out.logits;
  const data = floatData(logits, "logits");
  const vocab = logits!.dims[2] ?? 0;
  if (vocab === 0) throw new Error("decoder returned empty logits");
  return data.subarray(data.length - vocab);
}

/**
 * Decodes over one encoding, on a decoder session held for it: {@link feed} the prompt, then one
 * token at a time; {@link restart} decodes again from an empty cache over the same encoding (a
 * temperature fallback), which stays in the worker; {@link release} frees the hold. Feeds go one
 * at a time (each awaits the last).
 */
export class Seq2SeqRun {
  private held: HeldSession | undefined;
  /** Whether the held session has the encoder output already (it keeps it across restarts). */
  private hiddenSent = false;
  private fed = 0;
  private released = false;
  /** The first step's presents (split layout) until the with-past session takes them. */
  private pendingPast: Record<string, Tensor> | undefined;

  constructor(
    private readonly decoder: Seq2SeqDecoder,
    private readonly sessions: Seq2SeqDecoderSessions,
    private readonly hidden: Tensor,
  ) {}

  /** Feeds `ids` after everything fed so far; the logits of the last position. */
  async feed(ids: readonly number[]): Promise<Float32Array> {
    if (this.released) throw new Error("a released decode was fed");
    const first = this.fed === 0;
    this.fed++;
    const input_ids = i64(ids, [1, ids.length]);
    const { layers } = this.decoder.geometry;
    if (this.sessions.kind === "merged") {
      this.held ??= await this.sessions.merged.hold();
      const feeds: Record<string, Tensor> = { input_ids, use_cache_branch: bool([!first], [1]) };
      const transfer: string[] = [];
      if (!this.hiddenSent) {
        feeds.encoder_hidden_states = this.hidden;
        // The hold keeps it for every restart: nothing on this thread needs it again.
        transfer.push("encoder_hidden_states");
        this.hiddenSent = true;
      }
      if (first) Object.assign(feeds, this.decoder.emptyCache());
      // The first step computes the cross-attention caches; later steps return them unchanged.
      const keep = presentsToPast(layers, first ? PARTS : ["decoder"]);
      const out = await this.held.run({ feeds: pick(feeds, this.sessions.inputs), fetch: ["logits"], keep, transfer });
      return lastLogits(out);
    }
    const { first: firstSession, withPast, firstInputs, withPastInputs } = this.sessions;
    if (first) {
      const out = await firstSession.run(pick({ input_ids, encoder_hidden_states: this.hidden }, firstInputs));
      // Its presents move once to the held with-past session, which keeps them from then on.
      const presents: Record<string, Tensor> = {};
      for (const [present, past] of Object.entries(presentsToPast(layers, PARTS))) {
        const tensor = out[present];
        if (tensor === undefined) throw new Error(`decoder returned no ${present}`);
        presents[past] = tensor;
      }
      this.pendingPast = presents;
      return lastLogits(out);
    }
    this.held ??= await withPast.hold();
    const feeds: Record<string, Tensor> = { input_ids, ...(this.pendingPast ?? {}) };
    const transfer = Object.keys(this.pendingPast ?? {});
    this.pendingPast = undefined;
    if (!this.hiddenSent) {
      // Copied, not moved: the first session takes it again on a restart.
      feeds.encoder_hidden_states = this.hidden;
      this.hiddenSent = true;
    }
    const keep = presentsToPast(layers, ["decoder"]);
    const out = await this.held.run({ feeds: pick(feeds, withPastInputs), fetch: ["logits"], keep, transfer });
    return lastLogits(out);
  }

  /** Starts a new decode over the same encoding: the next {@link feed} is a first step again. */
  restart(): void {
    this.fed = 0;
    this.pendingPast = undefined;
  }

  /** Frees the held decoder session and what its worker keeps for this decode (once). */
  release(): void {
    this.released = true;
    this.held?.release();
    this.held = undefined;
  }
}

/** Runs a pack's decoder sessions by the cache protocol above. */
export class Seq2SeqDecoder {
  constructor(
    private readonly sessions: Seq2SeqDecoderSessions,
    readonly geometry: CacheGeometry,
  ) {}

  /**
   * A new decode over the encoder output `hidden`, which it takes over: in the merged layout it
   * moves to the decoder's worker, so the caller must not read it again.
   */
  start(hidden: Tensor): Seq2SeqRun {
    return new Seq2SeqRun(this, this.sessions, hidden);
  }

  /** Empty (length 0) past caches for a merged decoder's first step. */
  emptyCache(): Record<string, Tensor> {
    const { layers, heads, headDim } = this.geometry;
    const cache: Record<string, Tensor> = {};
    for (let layer = 0; layer < layers; layer++)
      for (const part of PARTS)
        for (const kind of KINDS)
          cache[`past_key_values.${layer}.${part}.${kind}`] = f32(new Float32Array(0), [1, heads, 0, headDim]);
    return cache;
  }

  /** Frees every decoder session. */
  async release(): Promise<void> {
    if (this.sessions.kind === "merged") await this.sessions.merged.release();
    else await Promise.all([this.sessions.first.release(), this.sessions.withPast.release()]);
  }
}
