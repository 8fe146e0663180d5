import { describe, expect, test } from "bun:test";
import type { OnnxValueInfo } from "../../onnx/metadata.ts";
import { checkVoiceGraph } from "./model.ts";

const value = (
  name: string,
  elemType: OnnxValueInfo["elemType"],
  dims: OnnxValueInfo["dims"] = null,
): OnnxValueInfo => ({ name, elemType, dims });
const piperInputs = [
  value("input", "int64", [1, "n"]),
  value("input_lengths", "int64", [1]),
  value("scales", "float32", [3]),
];
const audio = [value("output", "float32", [1, 1, "t"])];

describe("checkVoiceGraph", () => {
  test("does accept Piper's graph and find the audio output when sid is optional", () => {
    expect(checkVoiceGraph({ inputs: piperInputs, outputs: audio }, 1)).toEqual({
      output: "output",
      hasSid: false,
      embeddingDim: undefined,
      durations: undefined,
    });
    expect(
      checkVoiceGraph({ inputs: [...piperInputs, value("sid", "int64", [1])], outputs: [value("wav", "float32")] }, 4),
    ).toEqual({ output: "wav", hasSid: true, embeddingDim: undefined, durations: undefined });
  });

  test("does read a second output as the phoneme durations Piper's alignment patch exposes", () => {
    const patched = [...audio, value("/dp/Ceil_output_0", "float32", [1, 1, "n"])];
    expect(checkVoiceGraph({ inputs: piperInputs, outputs: patched }, 1).durations).toBe("/dp/Ceil_output_0");
  });

  test("does report the embedding size when the graph takes a speaker embedding", () => {
    expect(
      checkVoiceGraph({ inputs: [...piperInputs, value("speaker_embedding", "float32", [1, 192])], outputs: audio }, 1)
        .embeddingDim,
    ).toBe(192);
    expect(() =>
      checkVoiceGraph({ inputs: [...piperInputs, value("speaker_embedding", "float32", [1, "d"])], outputs: audio }, 1),
    ).toThrow("fixed last dim");
  });

  test("does refuse graphs that break the contract, saying how", () => {
    expect(() => checkVoiceGraph({ inputs: piperInputs.slice(0, 2), outputs: audio }, 1)).toThrow('no input "scales"');
    expect(() =>
      checkVoiceGraph({ inputs: [value("input", "int32"), ...piperInputs.slice(1)], outputs: audio }, 1),
    ).toThrow('"input" is int32, expected int64');
    expect(() => checkVoiceGraph({ inputs: [...piperInputs, value("style", "float32")], outputs: audio }, 1)).toThrow(
      "inputs Sawt does not feed: style",
    );
    expect(() => checkVoiceGraph({ inputs: piperInputs, outputs: audio }, 3)).toThrow('takes no "sid"');
    expect(() => checkVoiceGraph({ inputs: piperInputs, outputs: [] }, 1)).toThrow("no output");
    expect(() => checkVoiceGraph({ inputs: piperInputs, outputs: [value("output", "int64")] }, 1)).toThrow(
      "expected float32",
    );
  });
});
