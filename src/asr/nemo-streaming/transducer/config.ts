/**
 * Streaming NeMo transducer packs (sherpa-onnx's online NeMo transducer layout): a cache-aware
 * `encoder.onnx` (contract in ../encoder.ts; first output encoder frames [1, dim, T']), the
 * prediction network `decoder.onnx` and `joiner.onnx` exactly as the offline transducer's
 * (src/asr/transducer/), `tokens.txt` with `<blk>` last. The encoder metadata also carries
 * `pred_rnn_layers` and `pred_hidden`. Greedy RNNT only (sherpa-onnx streams no TDT).
 */
import { PackError } from "../../../models/errors.ts";
import { MetadataReader } from "../../../models/header.ts";
import type { PackFiles } from "../../../models/pack.ts";
import { transducerFile, transducerTokens } from "../../transducer/config.ts";
import { isStreamingEncoder, readStreamingMeta, type StreamingMeta } from "../encoder.ts";

/** A validated streaming transducer pack. */
export interface StreamingTransducerConfig {
  readonly encoderPath: string;
  readonly decoderPath: string;
  readonly joinerPath: string;
  readonly tokens: readonly string[];
  readonly blankId: number;
  readonly predRnnLayers: number;
  readonly predHidden: number;
  readonly meta: StreamingMeta;
}

/** Whether the folder is a transducer whose encoder carries NeMo's streaming caches. */
export function claimsStreamingTransducer(pack: PackFiles): boolean {
  const encoder = transducerFile(pack, "encoder");
  const complete =
    encoder !== undefined &&
    transducerFile(pack, "decoder") !== undefined &&
    transducerFile(pack, "joiner") !== undefined;
  return complete && pack.has("tokens.txt") && isStreamingEncoder(pack.tryHeader(encoder));
}

/** Validates a claimed pack; throws {@link PackError} with every reason it is unusable. */
export function configureStreamingTransducer(pack: PackFiles): StreamingTransducerConfig {
  const [encoder, decoder, joiner] = (["encoder", "decoder", "joiner"] as const).map(
    (part) => transducerFile(pack, part)!,
  );
  const problems: string[] = [];
  const info = pack.header(encoder!);
  const meta = readStreamingMeta(info, encoder!, problems);
  const reader = new MetadataReader(info.metadata, encoder!);
  const predRnnLayers = reader.int("pred_rnn_layers");
  const predHidden = reader.int("pred_hidden");
  problems.push(...reader.problems);
  const tokens = transducerTokens(pack, meta.vocabSize, problems);
  if (problems.length > 0) throw new PackError(problems.join("; "));
  return Object.freeze({
    encoderPath: pack.path(encoder!),
    decoderPath: pack.path(decoder!),
    joinerPath: pack.path(joiner!),
    tokens: Object.freeze(tokens),
    blankId: tokens.length - 1,
    predRnnLayers,
    predHidden,
    meta,
  });
}
