import { describe, expect, test } from "bun:test";
import { AppError } from "../../errors/taxonomy.ts";
import { phonemize, terminatorPhoneme } from "./phonemes.ts";

const joined = async (text: string, voice: string): Promise<string[]> =>
  (await phonemize(text, voice)).map((s) => s.join(""));

describe("phonemize", () => {
  test("gives non-empty IPA when the text is Arabic", async () => {
    const [sentence] = await joined("مرحبا بكم", "ar");
    expect(sentence).toBeDefined();
    expect(sentence!.length).toBeGreaterThan(5);
    expect(sentence).toContain(" "); // two words
    expect(sentence).toMatch(/[ˈː]/u); // IPA stress/length marks, not espeak's ASCII names
  });

  test("gives the expected IPA when the text is English", async () => {
    const [sentence] = await joined("hello world", "en-us");
    expect(sentence).toContain("h");
    expect(sentence).toMatch(/[əl]/u);
    expect(sentence).toBe("həlˈoʊ wˈɜːld");
  });

  test("returns one code point per element when shaping for Piper", async () => {
    const [phonemes] = await phonemize("hello world", "en-us");
    for (const p of phonemes!) expect(Array.from(p)).toHaveLength(1);
  });

  test("keeps clause punctuation at clause ends when the text has several clauses", async () => {
    expect(await joined("Hello, world! How are you? Fine: thanks; bye.", "en-us")).toEqual([
      "həlˈoʊ, wˈɜːld!",
      "hˈaʊ ɑːɹ juː?",
      "fˈaɪn: θˈæŋks; bˈaɪ.",
    ]);
    const arabic = await joined("مرحبا، كيف حالك؟ أنا بخير.", "ar");
    expect(arabic).toHaveLength(2);
    expect(arabic[0]).toMatch(/^\S+, .+\?$/u); // Arabic comma and question mark become "," and "?"
    expect(arabic[1]!.endsWith(".")).toBe(true);
  });

  test("drops espeak's language-switch markers when a foreign word appears", async () => {
    const [sentence] = await joined("مرحبا hello بكم", "ar");
    expect(sentence).not.toMatch(/\(|\)/);
    expect(sentence).toContain("h");
  });

  test("gives the same results as serial calls when 20 calls with different voices run in parallel", async () => {
    const jobs = Array.from({ length: 20 }, (_, i) =>
      i % 2 === 0
        ? ([`مرحبا بكم رقم ${i}، كيف حالك؟`, "ar"] as const)
        : ([`hello number ${i}, how are you?`, i % 4 === 1 ? "en-us" : "en"] as const),
    );
    const serial: string[][][] = [];
    for (const [text, voice] of jobs) serial.push(await phonemize(text, voice));
    const parallel = await Promise.all(jobs.map(([text, voice]) => phonemize(text, voice)));
    expect(parallel).toEqual(serial);
    expect(parallel[1]).not.toEqual(parallel[3]); // the voices really differed
  });

  test("returns no sentences when the text is blank", async () => {
    expect(await phonemize("  \n ", "en-us")).toEqual([]);
  });

  test("rejects with an AppError when the voice does not exist", async () => {
    await expect(phonemize("hello", "xx-nope")).rejects.toBeInstanceOf(AppError);
    expect(await joined("hello", "en-us")).toEqual(["həlˈoʊ"]); // state recovered
  });
});

describe("terminatorPhoneme", () => {
  test("maps Arabic and Latin marks to Piper's punctuation phonemes when a clause ends", () => {
    expect(["،", "؛", "؟", "?!", "...", "…", ":", "", "!"].map(terminatorPhoneme)).toEqual([
      ",",
      ";",
      "?",
      "?",
      ".",
      ".",
      ":",
      "",
      "!",
    ]);
  });
});
