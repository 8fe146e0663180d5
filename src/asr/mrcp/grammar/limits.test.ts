import { describe, expect, test } from "bun:test";
import { compileGrammar } from "./compile.ts";
import { GrammarError } from "./errors.ts";
import { DEFAULT_LIMITS } from "./limits.ts";
import { matchTranscript } from "./match.ts";

const SRGS = "application/srgs+xml";
const HEAD = '<?xml version="1.0"?>';
const grammar = (rules: string): string =>
  `<grammar xmlns="http://www.w3.org/2001/06/grammar" version="1.0" root="main">${rules}</grammar>`;

/** The refusal `body` gets, timed: a refusal must be quick, whatever the document asks for. */
function refusal(body: string, limits?: Parameters<typeof compileGrammar>[2]): GrammarError {
  const started = performance.now();
  try {
    compileGrammar(SRGS, body, limits);
  } catch (error) {
    expect(performance.now() - started).toBeLessThan(2000);
    if (error instanceof GrammarError) return error;
    throw error;
  }
  throw new Error("the grammar was accepted");
}

const BILLION_LAUGHS = `${HEAD}
<!DOCTYPE grammar [
  <!ENTITY lol "lol">
  <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
  <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
  <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
  <!ENTITY lol9 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
]>
${grammar('<rule id="main">&lol9;</rule>')}`;

describe("refusing hostile or oversized grammars (all 005 grammar-compilation-failure)", () => {
  test("does refuse any DOCTYPE", () => {
    const error = refusal(
      `${HEAD}<!DOCTYPE grammar SYSTEM "http://www.w3.org/TR/speech-grammar/grammar.dtd">${grammar('<rule id="main">x</rule>')}`,
    );
    expect(error.failure).toBe("compilation");
    expect(error.message).toContain("DOCTYPE is not allowed");
  });

  test("does refuse entity declarations (an external entity)", () => {
    const error = refusal(
      `${HEAD}<!DOCTYPE g [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>${grammar('<rule id="main">&xxe;</rule>')}`,
    );
    expect(error.message).toContain("entity declarations are not allowed");
  });

  test("does refuse billion laughs without expanding anything", () => {
    const error = refusal(BILLION_LAUGHS);
    expect(error.failure).toBe("compilation");
    expect(error.message).toContain("entity declarations are not allowed");
  });

  test("does refuse a reference to an undeclared entity", () => {
    expect(refusal(grammar('<rule id="main">&lol;</rule>')).message).toMatch(/invalid SRGS grammar/u);
  });

  test("does refuse a body over maxBytes before parsing it", () => {
    const big = grammar(`<rule id="main">${"كلمة ".repeat(60_000)}</rule>`);
    expect(Buffer.byteLength(big)).toBeGreaterThan(DEFAULT_LIMITS.maxBytes);
    expect(refusal(big).message).toMatch(/bytes, more than the 262144 allowed/u);
  });

  test("does refuse nesting deeper than maxDepth", () => {
    const deep = grammar(`<rule id="main">${"<item>".repeat(40)}x${"</item>".repeat(40)}</rule>`);
    expect(refusal(deep).message).toMatch(/nested deeper than 32/u);
    expect(() =>
      compileGrammar(SRGS, grammar(`<rule id="main">${"<item>".repeat(20)}x${"</item>".repeat(20)}</rule>`)),
    ).not.toThrow();
  });

  test("does refuse 10,000 rules", () => {
    let rules = "";
    for (let i = 0; i < 10_000; i++) rules += `<rule id="r${i}">w</rule>`;
    const error = refusal(grammar(`<rule id="main">x</rule>${rules}`), { maxBytes: 1_000_000 });
    expect(error.message).toMatch(/more than 1000 rules/u);
  });

  test("does refuse more elements and words than maxNodes", () => {
    const items = "<item>a b</item>".repeat(20_000);
    expect(
      refusal(grammar(`<rule id="main"><one-of>${items}</one-of></rule>`), { maxBytes: 1_000_000 }).message,
    ).toMatch(/more than 50000 elements/u);
    const words = "a ".repeat(60_000);
    expect(refusal(grammar(`<rule id="main">${words}</rule>`), { maxBytes: 1_000_000 }).message).toMatch(
      /more than 50000 elements and words/u,
    );
  });

  test("does refuse a repeat bound over maxRepeat", () => {
    expect(refusal(grammar('<rule id="main"><item repeat="0-100000">x</item></rule>')).message).toMatch(
      /over the bound of 100/u,
    );
    expect(refusal(grammar('<rule id="main"><item repeat="101">x</item></rule>')).message).toMatch(/over the bound/u);
    expect(() => compileGrammar(SRGS, grammar('<rule id="main"><item repeat="0-">x</item></rule>'))).not.toThrow();
  });

  test("does refuse a tag longer than maxTagChars", () => {
    const tag = `out="${"x".repeat(5000)}"`;
    expect(refusal(grammar(`<rule id="main">x<tag>${tag}</tag></rule>`)).message).toMatch(/longer than 4096/u);
  });

  test("does keep a chain of 1000 rules (the rule bound) matchable without exhausting the stack", () => {
    let rules = "";
    for (let i = 0; i < 998; i++) rules += `<rule id="r${i}"><ruleref uri="#r${i + 1}"/></rule>`;
    const body = grammar(`<rule id="main"><ruleref uri="#r0"/></rule>${rules}<rule id="r998">end</rule>`);
    const compiled = compileGrammar(SRGS, body);
    expect(matchTranscript([compiled], "end")?.instance).toBe("end");
  });

  test("does give up (no match, no stack overflow) on rules nested deeper than maxMatchDepth", () => {
    let rules = "";
    const nest = (inner: string): string => `${"<one-of><item>".repeat(14)}${inner}${"</item></one-of>".repeat(14)}`;
    for (let i = 0; i < 998; i++) rules += `<rule id="r${i}">${nest(`<ruleref uri="#r${i + 1}"/>`)}</rule>`;
    const body = grammar(`<rule id="main"><ruleref uri="#r0"/></rule>${rules}<rule id="r998">end</rule>`);
    const compiled = compileGrammar(SRGS, body, { maxBytes: 2_000_000 });
    expect(matchTranscript([compiled], "end")).toBeNull();
    const shallow = compileGrammar(SRGS, grammar(`<rule id="main">${nest("end")}</rule>`));
    expect(matchTranscript([shallow], "end")?.instance).toBe("end");
  });

  test("does bound a grammar whose alternatives multiply (nested open repeats of GARBAGE) in time", () => {
    const nested = `<item repeat="0-"><one-of><item><ruleref special="GARBAGE"/></item><item>${'<item repeat="0-">'.repeat(10)}a${"</item>".repeat(10)}</item></one-of></item>`;
    const compiled = compileGrammar(SRGS, grammar(`<rule id="main">${nested} b</rule>`));
    const started = performance.now();
    matchTranscript([compiled], `${"a ".repeat(150)}c`);
    expect(performance.now() - started).toBeLessThan(3000);
  });
});
