/**
 * wav2vec2-family CTC packs (wav2vec2, XLS-R, HuBERT, MMS, data2vec-audio) in the Hugging Face
 * layout, as `optimum-cli export onnx --task automatic-speech-recognition` writes them and
 * onnx-community uploads them (../seq2seq/hf-files.ts: `model.onnx`, `onnx/model_quantized.onnx`,
 * …), read as transformers.js reads them (`src/models/wav2vec2/feature_extraction_wav2vec2.js`,
 * `tokenization_wav2vec2.js`):
 * - the model takes raw 16 kHz audio `input_values` float [1, samples] (and `attention_mask`
 *   int64 [1, samples] when it declares one) and returns `logits` [1, frames, vocab]; one frame
 *   per 320 samples (the product of config.json's `conv_stride`);
 * - `vocab.json`: token → id, characters for Arabic fine-tunes, `|` the word delimiter
 *   (tokenizer_config.json `word_delimiter_token`); MMS's multilingual vocab.json is keyed by
 *   language (`ara`, or tokenizer_config.json `target_lang`);
 * - the CTC blank is the pad token (tokenizer_config.json / special_tokens_map.json `pad_token`,
 *   else config.json `pad_token_id`);
 * - `preprocessor_config.json`: `do_normalize` (zero-mean, unit-variance input), `sampling_rate`.
 */
import { PackError } from "../../models/errors.ts";
import { missingIo } from "../../models/header.ts";
import type { PackFiles } from "../../models/pack.ts";
import { hfJson, hfModelFile } from "../seq2seq/hf-files.ts";
import { WORD_MARK } from "../timed-tokens.ts";

/** A validated wav2vec2 CTC pack. */
export interface Wav2Vec2Config {
  readonly modelPath: string;
  readonly modelFile: string;
  /** Piece per id: characters, `▁` for the word delimiter, `<…>` for special tokens. */
  readonly pieces: readonly string[];
  readonly blankId: number;
  readonly normalize: boolean;
  readonly attentionMask: boolean;
  /** Input samples per output frame. */
  readonly frameSamples: number;
  /** The language the vocabulary was taken from (MMS), or null. */
  readonly language: string | null;
}

/** Samples per logits frame of the wav2vec2 feature encoder (strides 5·2·2·2·2·2·2). */
export const WAV2VEC2_FRAME_SAMPLES = 320;

/** Languages taken from an MMS vocabulary, in order, when tokenizer_config.json names none. */
const MMS_ARABIC = ["ara", "arb"] as const;

/** Whether the folder holds a Hugging Face CTC model and its vocab.json. */
export function claimsWav2Vec2(pack: PackFiles): boolean {
  return hfModelFile(pack, "model") !== undefined && pack.has("vocab.json");
}

const tokenText = (value: unknown): string | undefined =>
  typeof value === "string"
    ? value
    : typeof (value as { content?: unknown })?.content === "string"
      ? (value as { content: string }).content
      : undefined;

/** The token → id table, picking the language of an MMS vocabulary. */
function vocabulary(
  vocab: Record<string, unknown>,
  target: string | undefined,
): { table: Record<string, number>; language: string | null } {
  const nested = Object.values(vocab).every((v) => v !== null && typeof v === "object");
  if (!nested) return { table: vocab as Record<string, number>, language: null };
  const language = [target, ...MMS_ARABIC].find((l) => l !== undefined && l in vocab);
  if (language === undefined)
    throw new PackError(
      `vocab.json holds the languages ${Object.keys(vocab).slice(0, 8).join(", ")}… but not Arabic (ara)`,
    );
  return { table: vocab[language] as Record<string, number>, language };
}

/** Validates a claimed pack; throws {@link PackError} with every reason it is unusable. */
export function configureWav2Vec2(pack: PackFiles): Wav2Vec2Config {
  const modelFile = hfModelFile(pack, "model")!;
  const vocabJson = hfJson(pack, "vocab.json");
  if (vocabJson === null) throw new PackError("vocab.json is not a JSON object");
  const tokenizer = hfJson(pack, "tokenizer_config.json") ?? {};
  const specials = hfJson(pack, "special_tokens_map.json") ?? {};
  const config = hfJson(pack, "config.json") ?? {};
  const preprocessor = hfJson(pack, "preprocessor_config.json");
  const problems: string[] = [];
  if (preprocessor === null) problems.push("preprocessor_config.json is missing or not a JSON object");
  else if (preprocessor.sampling_rate !== undefined && preprocessor.sampling_rate !== 16000)
    problems.push(`preprocessor_config.json sampling_rate is ${preprocessor.sampling_rate}, not 16000`);
  const { table, language } = vocabulary(vocabJson, tokenText(tokenizer.target_lang));
  const pieces: string[] = [];
  for (const [token, id] of Object.entries(table)) {
    if (!Number.isInteger(id) || id < 0 || id > 100_000) throw new PackError(`vocab.json gives ${token} a bad id`);
    pieces[id] = token;
  }
  const delimiter = tokenText(tokenizer.word_delimiter_token) ?? "|";
  const padToken = tokenText(tokenizer.pad_token) ?? tokenText(specials.pad_token);
  const padId = padToken !== undefined ? pieces.indexOf(padToken) : ((config.pad_token_id as number | undefined) ?? -1);
  if (!Number.isInteger(padId) || padId < 0 || padId >= pieces.length)
    problems.push(
      `no pad (CTC blank) token: tokenizer_config.json pad_token ${padToken ?? "is missing"} is not in vocab.json`,
    );
  const header = pack.header(modelFile);
  problems.push(...missingIo(header, ["input_values"], ["logits"], modelFile));
  const vocabSize = header.outputs.find((o) => o.name === "logits")?.dims?.[2];
  if (typeof vocabSize === "number" && vocabSize !== pieces.length)
    problems.push(`${modelFile} gives ${vocabSize} logits per frame but vocab.json has ${pieces.length} tokens`);
  if (problems.length > 0) throw new PackError(problems.join("; "));
  const strides = Array.isArray(config.conv_stride) ? (config.conv_stride as number[]) : null;
  const frameSamples = strides?.every(Number.isInteger) ? strides.reduce((a, b) => a * b, 1) : WAV2VEC2_FRAME_SAMPLES;
  return Object.freeze({
    modelPath: pack.path(modelFile),
    modelFile,
    // The delimiter becomes the word mark the shared timed-pieces join splits words at; special
    // tokens already read as control pieces (`<s>`, `<unk>`).
    pieces: Object.freeze(Array.from(pieces, (p) => (p === delimiter ? WORD_MARK : (p ?? "<unused>")))),
    blankId: padId,
    normalize: preprocessor?.do_normalize !== false,
    attentionMask: header.inputs.some((i) => i.name === "attention_mask"),
    frameSamples,
    language,
  });
}
