/**
 * The built-in recogniser's files: Moonshine tiny English, int8, as `@moonshine-ai/moonshine-js`
 * publishes it on the npm registry (MIT; its LICENSE travels beside the weights), by pinned
 * version and SHA-256, and its tokenizer.json rebuilt from `llama-tokenizer-js` (the package ships
 * none: ./../moonshine/tokenizer-build.ts). The build fetches them (installer/builtin-asr.ts) and
 * embeds them; the tests use the same pins (test/support/fixtures/models.ts). Nothing at run time
 * downloads anything.
 */

/** One file of one pinned npm package version. */
export interface PinnedNpmFile {
  readonly package: string;
  readonly version: string;
  /** Path inside the package (without the tarball's leading `package/`). */
  readonly file: string;
  readonly sha256: string;
}

const moonshine = (file: string, sha256: string): PinnedNpmFile => ({
  package: "@moonshine-ai/moonshine-js",
  version: "0.1.29",
  file,
  sha256,
});

/** Moonshine tiny English's files by their name in a pack (tokenizer.json is built, not fetched). */
export const MOONSHINE_TINY_EN: Readonly<Record<string, PinnedNpmFile>> = {
  "encoder_model.onnx": moonshine(
    "dist/model/tiny/quantized/encoder_model.onnx",
    "c6fc4b7bc5af75c0591fd157a1f3829b533d18e9769a888fd95a62e470dd4f4a",
  ),
  "decoder_model_merged.onnx": moonshine(
    "dist/model/tiny/quantized/decoder_model_merged.onnx",
    "eed87831c3a6103534aae7d47a5d485025c659a1323901513961c39fe8a1a367",
  ),
  LICENSE: moonshine("LICENSE", "37fc5d9a86547a0dd64a07cff439ba2a6b79cc8f6555a05121fed32866591159"),
};

/** The built-in pack's folder name (under the build-time folder, and in the binary). */
export const BUILTIN_ASR_PACK = "moonshine-tiny-en";

/** The language the built-in recogniser transcribes. */
export const BUILTIN_ASR_LANGUAGE = "en";

/** The build-time folder (relative to the checkout, ignored by git) the build fetches the files into. */
export const BUILTIN_ASR_FOLDER = ".cache/builtin-asr";
