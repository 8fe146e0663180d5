import { describe, expect, test } from "bun:test";
import { AppError } from "../../errors/taxonomy.ts";
import { DEFAULT_BOOST, mergeHotwords, parseBoost, parseHotwords } from "./hotwords.ts";

/** The field errors `run` throws (empty when it does not throw). */
function problems(run: () => unknown): string[] {
  try {
    run();
    return [];
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    expect(error.status).toBe(422);
    return error.fields.map((f) => `${f.field}: ${f.message}`);
  }
}

describe("hotword entries", () => {
  test("does split on commas, Arabic commas and new lines and read a trailing :boost", () => {
    expect(parseHotwords(["مصرف  الراجحي:3،بطاقة مدى\nSTC Pay : 2.5", "x:y"], "form.hotwords")).toEqual([
      { phrase: "مصرف الراجحي", boost: 3 },
      { phrase: "بطاقة مدى", boost: DEFAULT_BOOST },
      { phrase: "STC Pay", boost: 2.5 },
      { phrase: "x:y", boost: DEFAULT_BOOST },
    ]);
    expect(parseHotwords(["a,,b,"], "f", 4)).toEqual([
      { phrase: "a", boost: 4 },
      { phrase: "b", boost: 4 },
    ]);
  });

  test("does keep a phrase given twice once, with its larger boost", () => {
    expect(parseHotwords(["a:1", "a:3", "a:2"], "f")).toEqual([{ phrase: "a", boost: 3 }]);
  });

  test("does name the field and the entry when an entry is ill-formed", () => {
    expect(problems(() => parseHotwords(["ok,bad:11"], "form.hotwords"))).toEqual([
      'form.hotwords: entry 2 ("bad:11"): boost must be a number from 0 to 10',
    ]);
    expect(problems(() => parseHotwords(["{{x}}"], "config.hotwords"))[0]).toStartWith("config.hotwords: entry 1");
    expect(problems(() => parseHotwords(["..."], "f"))[0]).toContain("no letter or digit");
    expect(problems(() => parseHotwords(["a".repeat(101)], "f"))[0]).toContain("longer than 100");
  });

  test("does refuse more than 1,000 entries, and a request and key list over 1,000 together", () => {
    const many = Array.from({ length: 1001 }, (_, i) => `w${i}`);
    expect(problems(() => parseHotwords([many.join(",")], "form.hotwords"))).toEqual([
      "form.hotwords: At most 1000 hotwords (got 1001)",
    ]);
    const key = many.slice(0, 600).map((phrase) => ({ phrase, boost: 1 }));
    const request = many.slice(500).map((phrase) => ({ phrase, boost: 1 }));
    expect(problems(() => mergeHotwords(request, key, "form.hotwords"))[0]).toContain("with the key's phrase list");
  });

  test("does let the request's boost win over the key's for the same phrase", () => {
    expect(
      mergeHotwords(
        [{ phrase: "a", boost: 0 }],
        [
          { phrase: "a", boost: 5 },
          { phrase: "b", boost: 2 },
        ],
      ),
    ).toEqual([
      { phrase: "a", boost: 0 },
      { phrase: "b", boost: 2 },
    ]);
  });

  test("does read a boost field, and name it when it is not a number in range", () => {
    expect(parseBoost(" 2.5 ", "form.boost")).toBe(2.5);
    expect(parseBoost(undefined, "form.boost")).toBeUndefined();
    expect(problems(() => parseBoost("high", "form.boost"))).toEqual([
      "form.boost: boost must be a number from 0 to 10",
    ]);
    expect(problems(() => parseBoost(-1, "config.boost"))).toHaveLength(1);
  });
});
