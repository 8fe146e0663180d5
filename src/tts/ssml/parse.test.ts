import { describe, expect, test } from "bun:test";
import { parseSsml, SsmlError } from "./parse.ts";

describe("SSML <mark>", () => {
  test("does put a mark between the parts it separates", () => {
    const parts = parseSsml('<speak><mark name="start"/>One. <mark name="m1"/>Two.</speak>', "en");
    expect(parts).toEqual([
      { kind: "mark", name: "start" },
      { kind: "text", text: "One.", language: undefined, rate: 1 },
      { kind: "mark", name: "m1" },
      { kind: "text", text: "Two.", language: undefined, rate: 1 },
    ]);
  });

  test("does refuse a mark without a name, with content, or a document of marks only", () => {
    expect(() => parseSsml("<speak>a <mark/> b</speak>", "en")).toThrow(SsmlError);
    expect(() => parseSsml('<speak><mark name="a;b"/>x</speak>', "en")).toThrow(SsmlError);
    expect(() => parseSsml('<speak><mark name="m">text</mark></speak>', "en")).toThrow("<mark> takes no content");
    expect(() => parseSsml('<speak><mark name="m"/></speak>', "en")).toThrow("nothing to say");
  });
});
