/**
 * Issue 37, acceptance 2: Arabic mark sets and letter folding are defined only in src/text/ (the
 * marks table src/text/arabic/marks.ts, the folding src/text/arabic/fold.ts), so no feature
 * grows its own "harakat" with other code points again. Source files of src/ outside src/text/
 * are read (tests are not: they write sample marks as data), and each of these is a definition:
 *
 * - an escape (`\u064E`, `\u{10EFA}`) of an Arabic combining mark, of tatweel, or of a letter the
 *   folding rewrites (أ إ آ ٱ ى ة ؤ ئ ی ک);
 * - a combining mark or one of those letters written on its own between delimiters (`[ًٌ]`,
 *   `"ى": …`, `/[أإآ]/`), not as part of a word («ريالًا», «أحمد» are words, not definitions);
 * - a Unicode mark property (`\p{M}`, `\p{Mn}`, `\p{Mark}`, `\p{gc=Mn}`, …), which is how a
 *   "marks" class is written without code points; src/text exports the classes built from it.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Glob } from "bun";
import { MARK_CLASS, TATWEEL } from "../../src/text/arabic/marks.ts";
import { ROOT } from "../support/sawt.ts";

/** The letters the `match` folding rewrites. */
const FOLDED_LETTERS = "أإآٱىةؤئیک";
const ARABIC_MARK = new RegExp(`^${MARK_CLASS.arabic}$`, "u");
const isDefined = (char: string) => ARABIC_MARK.test(char) || char === TATWEEL || FOLDED_LETTERS.includes(char);

const ESCAPE = /\\u(?:\{([0-9A-Fa-f]{1,6})\}|([0-9A-Fa-f]{4}))/g;
const MARK_PROPERTY =
  /\\[pP]\{(?:M[a-z]?|Mark|Nonspacing_Mark|Spacing_Mark|Enclosing_Mark|Combining_Mark|(?:gc|General_Category)=M\w*)\}/;
/** A delimiter of a class, string or alternation: what stands beside a mark or letter that is defined, not written. */
const DELIMITER = /[[\]/"'`|,\-(){}:\s]/u;

/** The definitions on one line of source (see the file comment), as short descriptions. */
export function definitionsIn(line: string): string[] {
  const found: string[] = [];
  for (const m of line.matchAll(ESCAPE)) {
    const char = String.fromCodePoint(Number.parseInt(m[1] ?? m[2]!, 16));
    if (isDefined(char)) found.push(`escape ${m[0]}`);
  }
  if (MARK_PROPERTY.test(line)) found.push(`mark property ${MARK_PROPERTY.exec(line)![0]}`);
  // Runs of marks and folded letters: inside a word they are text («مئة», «إِنَّ»); a run standing
  // alone between delimiters, or a mark with no letter before it, is a definition.
  const chars = [...line];
  for (let i = 0; i < chars.length; ) {
    if (!isDefined(chars[i]!)) {
      i++;
      continue;
    }
    let end = i;
    while (end < chars.length && isDefined(chars[end]!)) end++;
    const before = chars[i - 1] ?? " ";
    const after = chars[end] ?? " ";
    const alone = DELIMITER.test(before) && DELIMITER.test(after);
    const markOnNothing = ARABIC_MARK.test(chars[i]!) && !/\p{L}/u.test(before);
    if (alone || markOnNothing) found.push(`characters ${chars.slice(i, end).join("")}`);
    i = end;
  }
  return found;
}

/** Every definition in src/ outside src/text, as `path:line: what`. */
function definitionsOutsideText(): string[] {
  const out: string[] = [];
  for (const path of new Glob("src/**/*.{ts,js}").scanSync(ROOT)) {
    if (path.startsWith("src/text/") || /\.test\.[tj]s$/.test(path)) continue;
    readFileSync(join(ROOT, path), "utf8")
      .split("\n")
      .forEach((line, i) => {
        for (const what of definitionsIn(line)) out.push(`${path}:${i + 1}: ${what}`);
      });
  }
  return out.sort();
}

describe("Arabic marks and letter folding", () => {
  test("are defined nowhere in src/ but src/text", () => {
    const found = definitionsOutsideText();
    if (found.length > 0)
      console.error(
        `define Arabic marks and foldings in src/text/arabic (marks.ts, fold.ts):\n  ${found.join("\n  ")}`,
      );
    expect(found).toEqual([]);
  });

  test("does see each kind of definition when a line writes one", () => {
    expect(definitionsIn(String.raw`const HARAKAT = /[\u064B-\u0652\u0670]/g;`)).toHaveLength(3);
    expect(definitionsIn(String.raw`const MARKS = /[\p{M}\u0640]/gu;`)).toEqual([
      String.raw`escape \u0640`,
      String.raw`mark property \p{M}`,
    ]);
    expect(definitionsIn(String.raw`const WORD = /[\p{L}\p{Mn}]+/u;`)).toHaveLength(1);
    expect(definitionsIn(`.replace(/[أإآ]/g, "ا")`)).toEqual(["characters أإآ"]);
    expect(definitionsIn(`const LETTERS = { "ى": "ي", "ة": "ه" };`)).toHaveLength(2);
    expect(definitionsIn(`const TANWIN = "ًٌٍ";`)).toHaveLength(1);
    expect(definitionsIn(`const SUKUN = /ْ/;`)).toHaveLength(1);
    expect(definitionsIn(String.raw`"\u0623": "\u0627", // أ alef with hamza above`)).toHaveLength(2);
  });

  test("does leave words, digits and other scripts alone", () => {
    expect(definitionsIn(`const ALIASES = ["ريالًا", "أحمد", "د.إ", "مئة", "إس", "إِنَّ", "تَتَبَدَّى إِلَّا"];`)).toEqual([]);
    expect(definitionsIn(String.raw`const SPOKEN = /[\p{L}\p{N}]/u; const DIGIT = /^[0-9\u0660-\u0669]$/u;`)).toEqual(
      [],
    );
    expect(definitionsIn(String.raw`new RegExp(String.raw${"`"}^\p{Script=${"$"}{name}}$${"`"}, "u")`)).toEqual([]);
  });

  test("does find the definitions where they belong, in src/text/arabic", () => {
    const marks = readFileSync(join(ROOT, "src/text/arabic/marks.ts"), "utf8").split("\n").flatMap(definitionsIn);
    const fold = readFileSync(join(ROOT, "src/text/arabic/fold.ts"), "utf8").split("\n").flatMap(definitionsIn);
    expect(marks.length).toBeGreaterThan(0);
    expect(fold.length).toBeGreaterThan(0);
  });
});
