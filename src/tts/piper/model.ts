/**
 * Owns a Piper/VITS ONNX session. The graph is checked before any session exists (from the file
 * header, cheaply) and again on the session: inputs `input` int64 [1,N], `input_lengths` int64
 * [1], `scales` float32 [3], `sid` int64 [1] when the voice has several speakers; the audio is
 * the first output (`output` when so named) with time as its last dim.
 */
import { PackError } from "../../models/errors.ts";
import { readModelHeader, type OnnxModelInfo } from "../../models/header.ts";
import { f32, floatData, i64, openSession, packLabel, type Session, type Tensors } from "../../onnx/runner.ts";
import type { VoiceConfig } from "./config.ts";

/** Inputs a Piper graph must take. */
const REQUIRED_INPUTS = { input: "int64", input_lengths: "int64", scales: "float32" } as const;
/**
 * Optional input of voices that accept a speaker embedding (cloned voices, D17): float32 [1, D]
 * with D fixed. Built-in voices feed zeros, the embedding of "no particular speaker".
 */
export const EMBEDDING_INPUT = "speaker_embedding";

/** Per-inference knobs. */
export interface InferOptions {
  /** Already divided by speed. */
  readonly lengthScale: number;
  readonly sid: number;
  /** A cloned voice's speaker embedding (length {@link VoiceModel.embeddingDim}). */
  readonly embedding?: Float32Array;
}

/**
 * Checks a model's declared inputs/outputs against the Piper contract. Returns the audio output's
 * name and whether the graph takes `sid`; throws {@link PackError}.
 */
export function checkVoiceGraph(
  info: Pick<OnnxModelInfo, "inputs" | "outputs">,
  numSpeakers: number,
): { output: string; hasSid: boolean; embeddingDim: number | undefined; durations: string | undefined } {
  const inputs = new Map(info.inputs.map((i) => [i.name, i.elemType]));
  for (const [name, type] of Object.entries(REQUIRED_INPUTS)) {
    if (!inputs.has(name))
      throw new PackError(`model has no input "${name}" (inputs: ${[...inputs.keys()].join(", ") || "none"})`);
    const actual = inputs.get(name);
    if (actual !== null && actual !== type) throw new PackError(`model input "${name}" is ${actual}, expected ${type}`);
  }
  const hasSid = inputs.has("sid");
  const embedding = info.inputs.find((i) => i.name === EMBEDDING_INPUT);
  const dim = embedding?.dims?.[embedding.dims.length - 1];
  if (embedding && embedding.dims !== null && (typeof dim !== "number" || dim <= 0))
    throw new PackError(`model input "${EMBEDDING_INPUT}" needs a fixed last dim (the embedding size)`);
  const extra = [...inputs.keys()].filter(
    (name) => !(name in REQUIRED_INPUTS) && name !== "sid" && name !== EMBEDDING_INPUT,
  );
  if (extra.length > 0) throw new PackError(`model needs inputs Sawt does not feed: ${extra.join(", ")}`);
  if (numSpeakers > 1 && !hasSid)
    throw new PackError(`config has ${numSpeakers} speakers but the model takes no "sid"`);
  const output = info.outputs.find((o) => o.name === "output") ?? info.outputs[0];
  if (!output) throw new PackError("model has no output");
  if (output.elemType !== null && output.elemType !== "float32")
    throw new PackError(`model output "${output.name}" is ${output.elemType}, expected float32 audio`);
  // Piper's alignment patch (patch_voice_with_alignment) marks its w_ceil tensor as a second output:
  // how many frames each phoneme id lasts. Any one extra output is read that way, and used only when
  // it has one value per id (../stream/timings.ts then times words from it).
  const others = info.outputs.filter((o) => o.name !== output.name);
  const durations = others.length === 1 ? others[0]!.name : undefined;
  return { output: output.name, hasSid, embeddingDim: typeof dim === "number" ? dim : undefined, durations };
}

/** A loaded voice model. */
export class VoiceModel {
  private constructor(
    private readonly session: Session,
    readonly provider: "cpu" | "cuda",
    private readonly output: string,
    private readonly durationsOutput: string | undefined,
    private readonly hasSid: boolean,
    private readonly config: VoiceConfig,
    /** Size of the speaker embedding the graph takes; undefined when it takes none. */
    readonly embeddingDim: number | undefined,
  ) {}

  /**
   * Validates the graph from the file header, then opens the session (a pool `parallel` runs wide)
   * and checks it again.
   */
  static async load(config: VoiceConfig, parallel = 1, pack?: string): Promise<VoiceModel> {
    const info = readModelHeader(config.modelPath);
    const { output, hasSid, embeddingDim, durations } = checkVoiceGraph(info, config.numSpeakers);
    // VITS is a chain of 1-D convolutions (flow and HiFi-GAN decoder): lifted, a pool's one-thread
    // lanes run a sentence 13–17 % faster (onnx/conv-lift.ts).
    const created = await openSession(config.modelPath, {
      parallel,
      liftConv1d: true,
      label: packLabel(pack, config.modelPath),
    });
    const session = created.session;
    const declared = {
      inputs: session.inputNames.map((name) => ({ name, elemType: null, dims: null })),
      outputs: session.outputNames.map((name) => ({ name, elemType: null, dims: null })),
    };
    try {
      checkVoiceGraph(declared, config.numSpeakers);
    } catch (error) {
      await session.release();
      throw error;
    }
    return new VoiceModel(session, created.provider, output, durations, hasSid, config, embeddingDim);
  }

  /** Runs one utterance of ids; returns its audio (model level, not normalised). */
  async infer(ids: readonly number[], options: InferOptions): Promise<Float32Array> {
    return (await this.inferAligned(ids, options)).audio;
  }

  /**
   * Runs one utterance of ids; returns its audio and, when the graph reports durations, how many
   * samples of it each id lasts (the model's frame counts scaled to the audio's length).
   */
  async inferAligned(
    ids: readonly number[],
    options: InferOptions,
  ): Promise<{ audio: Float32Array; durations?: number[] }> {
    const { noiseScale, noiseW } = this.config.inference;
    const feeds: Tensors = {
      input: i64(ids, [1, ids.length]),
      input_lengths: i64([ids.length], [1]),
      scales: f32([noiseScale, options.lengthScale, noiseW], [3]),
    };
    if (this.hasSid) feeds.sid = i64([options.sid], [1]);
    if (this.embeddingDim !== undefined) {
      const embedding = options.embedding ?? new Float32Array(this.embeddingDim);
      if (embedding.length !== this.embeddingDim)
        throw new Error(`speaker embedding has ${embedding.length} values, the voice takes ${this.embeddingDim}`);
      feeds[EMBEDDING_INPUT] = f32(embedding, [1, this.embeddingDim]);
    }
    const outputs = await this.session.run(feeds);
    const audio = outputs[this.output];
    const data = floatData(audio, `voice audio "${this.output}"`);
    // Time is the last dim; with batch 1 every leading dim is 1, so the first T values are the audio.
    const samples = audio!.dims.length > 0 ? Number(audio!.dims[audio!.dims.length - 1]) : data.length;
    const pcm = samples === data.length ? data : data.subarray(0, samples);
    return { audio: pcm, durations: this.durationsOf(outputs[this.durationsOutput ?? ""], ids.length, pcm.length) };
  }

  /** Per-id durations in samples from the durations output, when it has one value per id. */
  private durationsOf(tensor: Tensors[string] | undefined, count: number, samples: number): number[] | undefined {
    if (tensor === undefined || Number(tensor.size) !== count) return undefined;
    const frames = Array.from(tensor.data as ArrayLike<number | bigint>, Number);
    const total = frames.reduce((a, b) => a + b, 0);
    if (!(total > 0)) return undefined;
    return frames.map((n) => (n / total) * samples);
  }

  /** Frees the session. */
  release(): Promise<void> {
    return this.session.release();
  }
}
