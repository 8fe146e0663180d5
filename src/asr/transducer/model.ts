/**
 * The transducer sessions, fed by position as sherpa-onnx feeds them. {@link PredictionJoint}
 * (decoder + joiner) is shared with the streaming transducer; {@link TransducerModel} adds the
 * offline encoder.
 */
import {
  f32,
  floatData,
  i32,
  i64,
  intValues,
  openSessions,
  packLabel,
  type Session,
  type Tensor,
} from "../../onnx/runner.ts";

/** The prediction network's output for one token and the states after it. */
export interface PredictorOutput {
  readonly out: Tensor;
  readonly states: readonly Tensor[];
}

/** What greedy search needs from a transducer's decoder and joiner. */
export interface TransducerJoint {
  /** States before any token (zeros [pred_rnn_layers, 1, pred_hidden] each). */
  initialStates(): readonly Tensor[];
  /** Runs the prediction network on `token` from `states`. */
  predict(token: number, states: readonly Tensor[]): Promise<PredictorOutput>;
  /** Joiner logits for one encoder frame (`[dim]`) and a prediction output. */
  join(frame: Float32Array, predicted: Tensor): Promise<Float32Array>;
}

/** Decoder + joiner sessions. */
export class PredictionJoint implements TransducerJoint {
  constructor(
    private readonly decoder: Session,
    private readonly joiner: Session,
    private readonly layers: number,
    private readonly hidden: number,
  ) {}

  initialStates(): readonly Tensor[] {
    const stateCount = this.decoder.inputNames.length - 2;
    const zeros = () => f32(new Float32Array(this.layers * this.hidden), [this.layers, 1, this.hidden]);
    return Array.from({ length: stateCount }, zeros);
  }

  async predict(token: number, states: readonly Tensor[]): Promise<PredictorOutput> {
    const [targets, length, ...stateNames] = this.decoder.inputNames;
    const feeds: Record<string, Tensor> = {
      [targets!]: i32([token], [1, 1]),
      [length!]: i32([1], [1]),
    };
    stateNames.forEach((name, i) => (feeds[name] = states[i]!));
    const out = await this.decoder.run(feeds);
    const names = this.decoder.outputNames;
    const result = out[names[0]!];
    if (result === undefined) throw new Error("decoder returned no output");
    // Output 1 is the output length (discarded, as sherpa-onnx does); 2… are the next states.
    return { out: result, states: names.slice(2).map((name) => out[name]!) };
  }

  async join(frame: Float32Array, predicted: Tensor): Promise<Float32Array> {
    const [encoderName, decoderName] = this.joiner.inputNames;
    const out = await this.joiner.run({ [encoderName!]: f32(frame, [1, frame.length, 1]), [decoderName!]: predicted });
    return floatData(out[this.joiner.outputNames[0]!], "joiner logits");
  }

  release(): Promise<void> {
    return Promise.all([this.decoder.release(), this.joiner.release()]).then(() => undefined);
  }
}

/** Opens a decoder and joiner; releases what opened when one fails. */
export async function openJoint(
  paths: { decoder: string; joiner: string },
  layers: number,
  hidden: number,
  pack: string,
  parallel = 1,
) {
  const { sessions, provider } = await openSessions([paths.decoder, paths.joiner], (path) => ({
    label: packLabel(pack, path),
    parallel,
  }));
  return { joint: new PredictionJoint(sessions[0]!, sessions[1]!, layers, hidden), provider };
}

/** Encoder frames `[T'][dim]` from an encoder output laid out `[1, dim, T']`, first `valid` only. */
export function encoderFrames(data: Float32Array, dim: number, frames: number, valid: number): Float32Array[] {
  const out: Float32Array[] = [];
  for (let t = 0; t < Math.min(valid, frames); t++) {
    const frame = new Float32Array(dim);
    for (let d = 0; d < dim; d++) frame[d] = data[d * frames + t]!;
    out.push(frame);
  }
  return out;
}

/** The offline encoder session. */
export class TransducerEncoder {
  constructor(private readonly session: Session) {}

  /** Runs features `[featDim, frames]` of which `validFrames` carry audio; the valid encoder frames. */
  async run(features: Float32Array, featDim: number, frames: number, validFrames: number): Promise<Float32Array[]> {
    const [featuresName, lengthName] = this.session.inputNames;
    const out = await this.session.run({
      [featuresName!]: f32(features, [1, featDim, frames]),
      [lengthName!]: i64([validFrames], [1]),
    });
    const [outName, lengthOut] = this.session.outputNames;
    const tensor = out[outName!];
    const data = floatData(tensor, "encoder output");
    const [, dim, count] = tensor!.dims as number[];
    const lengths = out[lengthOut!];
    const valid = lengths === undefined ? count! : intValues(lengths, "encoder output length")[0]!;
    return encoderFrames(data, dim!, count!, valid);
  }

  release(): Promise<void> {
    return this.session.release();
  }
}
