/**
 * Moonshine's two sessions: the encoder, and the merged decoder run by the shared Hugging Face
 * seq2seq cache protocol (../seq2seq/kv-decoder.ts).
 */
import { f32, openSessions, packLabel, type Session, type Tensor } from "../../onnx/runner.ts";
import { Seq2SeqDecoder, type Seq2SeqRun } from "../seq2seq/kv-decoder.ts";
import type { MoonshineConfig } from "./config.ts";

/** Owns a Moonshine pack's encoder and merged-decoder sessions. */
export class MoonshineModel {
  private readonly decoder: Seq2SeqDecoder;

  private constructor(
    readonly config: MoonshineConfig,
    private readonly encoder: Session,
    merged: Session,
    readonly provider: "cpu" | "cuda",
  ) {
    this.decoder = new Seq2SeqDecoder({ kind: "merged", merged, inputs: config.decoderInputs }, config);
  }

  /** Opens both sessions. */
  static async load(config: MoonshineConfig, pack: string, parallel = 1): Promise<MoonshineModel> {
    const { sessions, provider } = await openSessions([config.encoderPath, config.decoderPath], (path) => ({
      label: packLabel(pack, path),
      parallel,
      // Each member holds the weights: lanes only while requests overlap (src/onnx sessions.ts).
      lanesOnDemand: true,
      // A decode's working memory (attention maps, a quantised output projection) goes back once idle.
      shrinkWorkingMemory: true,
      // The merged decoder's tied embedding once, not once as written and once per branch transposed.
      shareTransposedWeights: path === config.decoderPath,
    }));
    return new MoonshineModel(config, sessions[0]!, sessions[1]!, provider);
  }

  /** Runs the encoder on raw 16 kHz audio; the hidden states every decoder step attends to. */
  async encode(samples: Float32Array): Promise<Tensor> {
    const out = await this.encoder.run({ input_values: f32(samples, [1, samples.length]) });
    if (out.last_hidden_state === undefined) throw new Error("encoder returned no last_hidden_state");
    return out.last_hidden_state;
  }

  /** A new decode over the encoder's hidden states (which it takes over); release it when done. */
  startDecoding(hidden: Tensor): Seq2SeqRun {
    return this.decoder.start(hidden);
  }

  async release(): Promise<void> {
    await Promise.all([this.encoder.release(), this.decoder.release()]);
  }
}
