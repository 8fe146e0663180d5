import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { npmFile } from "../../../test/support/fixtures/cache.ts";
import { decodeMoonshineTokens, parseMoonshineTokenizer } from "./tokenizer.ts";
import {
  buildMoonshineTokenizer,
  LLAMA_TOKENIZER_JS,
  MOONSHINE_TOKENIZER_SHA256,
  TokenizerSourceError,
} from "./tokenizer-build.ts";

const source = () => readFileSync(npmFile(LLAMA_TOKENIZER_JS), "utf8");

describe("Moonshine tokenizer.json rebuilt from llama-tokenizer-js", () => {
  test("does build the pinned file byte for byte from the pinned package", () => {
    const built = buildMoonshineTokenizer(source());
    expect(createHash("sha256").update(built).digest("hex")).toBe(MOONSHINE_TOKENIZER_SHA256);
  }, 120_000);

  test("does decode the ids of a known sentence through the parser the recogniser uses", () => {
    const vocabulary = parseMoonshineTokenizer(buildMoonshineTokenizer(source()));
    expect(vocabulary.bos).toBe(1);
    expect(vocabulary.eos).toBe(2);
    // Ids from the Moonshine reference decoding: "And says, how do I get to Dublin?"
    expect(decodeMoonshineTokens([1, 1126, 4083, 29892, 920, 437, 306, 679, 304, 24533, 29973, 2], vocabulary)).toBe(
      "And says, how do I get to Dublin?",
    );
  }, 120_000);

  test("does refuse a source without the Llama vocabulary", () => {
    expect(() => buildMoonshineTokenizer("export default {}")).toThrow(TokenizerSourceError);
    const short = `const llama_vocab_base64 = "${Buffer.from("<unk>\n<s>\n</s>").toString("base64")}"`;
    expect(() => buildMoonshineTokenizer(short)).toThrow(/lists 3 pieces/);
  });
});
