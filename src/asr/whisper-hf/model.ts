/**
 * A Hugging Face layout Whisper pack's sessions as a {@link WhisperBackend}: the encoder takes
 * `input_features` [1, n_mels, 3000] and returns `last_hidden_state`; the decoder sessions run by
 * the shared seq2seq cache protocol (../seq2seq/kv-decoder.ts). Decoding itself is the Whisper
 * family's (../whisper/pipeline.ts).
 */
import { f32, openSessions, packLabel } from "../../onnx/runner.ts";
import { Seq2SeqDecoder, type Seq2SeqDecoderSessions } from "../seq2seq/kv-decoder.ts";
import type { WhisperBackend } from "../whisper/pipeline.ts";
import type { HfWhisperConfig } from "./config.ts";

/** Opens the pack's sessions as a Whisper backend. */
export async function loadHfWhisper(config: HfWhisperConfig, pack: string, parallel = 1): Promise<WhisperBackend> {
  const { sessions, provider } = await openSessions([config.encoderPath, ...config.decoderPaths], (path) => ({
    label: packLabel(pack, path),
    parallel,
    // Each member holds the weights: lanes only while requests overlap (src/onnx sessions.ts).
    lanesOnDemand: true,
    // A decode's working memory (attention maps, a quantised output projection) goes back once idle.
    shrinkWorkingMemory: true,
  }));
  const [encoder, first, withPast] = sessions;
  const decoderSessions: Seq2SeqDecoderSessions =
    config.decoder.kind === "merged"
      ? { kind: "merged", merged: first!, inputs: config.decoderInputs[0]! }
      : {
          kind: "split",
          first: first!,
          withPast: withPast!,
          firstInputs: config.decoderInputs[0]!,
          withPastInputs: config.decoderInputs[1]!,
        };
  const decoder = new Seq2SeqDecoder(decoderSessions, config.geometry);
  return {
    decoding: config,
    provider,
    async encode(mel, frames) {
      const out = await encoder!.run({ input_features: f32(mel, [1, config.meta.nMels, frames]) });
      const hidden = out.last_hidden_state;
      if (hidden === undefined) throw new Error("encoder returned no last_hidden_state");
      // One decode per window, restarted for each attempt: the encoding stays in the decoder's worker.
      const run = decoder.start(hidden);
      const windows = () => {
        run.restart();
        return run;
      };
      return Object.assign(windows, { release: () => run.release() });
    },
    release: async () => {
      await Promise.all([encoder!.release(), decoder.release()]);
    },
  };
}
