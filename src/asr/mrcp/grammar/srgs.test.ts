import { describe, expect, test } from "bun:test";
import { compileGrammar } from "./compile.ts";
import { GrammarError } from "./errors.ts";
import type { Expansion, SrgsGrammar } from "./types.ts";

const SRGS = "application/srgs+xml";

/** A grammar document around `rules`, with `attributes` on <grammar>. */
function srgsDocument(rules: string, attributes = 'root="main"'): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<grammar xmlns="http://www.w3.org/2001/06/grammar" version="1.0" xml:lang="ar-SA" ${attributes}>${rules}</grammar>`;
}

const compile = (rules: string, attributes?: string): SrgsGrammar =>
  compileGrammar(SRGS, srgsDocument(rules, attributes)) as SrgsGrammar;

const failure = (run: () => unknown): GrammarError => {
  try {
    run();
  } catch (error) {
    if (error instanceof GrammarError) return error;
    throw error;
  }
  throw new Error("expected a GrammarError");
};

describe("SRGS XML parsing", () => {
  test("does read the grammar header: root, mode, xml:lang, tag-format", () => {
    const grammar = compile(
      '<rule id="a">x</rule><rule id="main" scope="public">y</rule>',
      'root="main" tag-format="semantics/1.0"',
    );
    expect(grammar.kind).toBe("srgs");
    expect(grammar.root).toBe("main");
    expect(grammar.mode).toBe("voice");
    expect(grammar.language).toBe("ar-SA");
    expect(grammar.tagFormat).toBe("semantics/1.0");
    expect([...grammar.rules.keys()]).toEqual(["a", "main"]);
  });

  test("does take the first rule as root when the grammar names none", () => {
    expect(compile('<rule id="first">x</rule><rule id="second">y</rule>', "").root).toBe("first");
  });

  test("does compile words to normalised tokens that keep the grammar's spelling", () => {
    const grammar = compile('<rule id="main">الرَّصِيد  "كشف حساب"</rule>');
    expect(grammar.rules.get("main")).toEqual({
      type: "sequence",
      items: [
        { type: "token", word: "الرصيد", text: "الرَّصِيد" },
        { type: "token", word: "كشف", text: "كشف" },
        { type: "token", word: "حساب", text: "حساب" },
      ],
    });
  });

  test("does compile nested one-of with weights, repeat ranges, rulerefs, specials and tags", () => {
    const grammar = compile(`
      <rule id="main">
        <ruleref special="GARBAGE"/>
        <one-of>
          <item weight="2">نعم<tag>out="yes"</tag></item>
          <item><one-of><item>لا</item><item>كلا</item></one-of></item>
        </one-of>
        <item repeat="0-1">شكرا</item>
        <item repeat="2-">جدا</item>
        <item repeat="3"><ruleref uri="#d"/></item>
        <ruleref special="NULL"/>
      </rule>
      <rule id="d"><token>واحد</token></rule>`);
    const main = grammar.rules.get("main") as Extract<Expansion, { type: "sequence" }>;
    expect(main.items.map((item) => item.type)).toEqual([
      "special",
      "alternatives",
      "repeat",
      "repeat",
      "repeat",
      "special",
    ]);
    const alternatives = main.items[1] as Extract<Expansion, { type: "alternatives" }>;
    expect(alternatives.choices.map((choice) => choice.weight)).toEqual([2, 1]);
    expect(alternatives.choices[1]!.expansion.type).toBe("alternatives");
    expect(main.items.slice(2, 5)).toMatchObject([
      { min: 0, max: 1 },
      { min: 2, max: Number.POSITIVE_INFINITY },
      { min: 3, max: 3, body: { type: "ruleref", rule: "d" } },
    ]);
    const tagged = alternatives.choices[0]!.expansion as Extract<Expansion, { type: "sequence" }>;
    expect(tagged.items[1]).toEqual({
      type: "tag",
      text: 'out="yes"',
      statements: [{ path: [], value: { kind: "literal", value: "yes" } }],
    });
  });

  test("does parse the tag forms IVRs use", () => {
    const grammar = compile(`<rule id="main">
      <tag>out.action = 'transfer'; out.dept="billing";</tag>
      <tag>$ = rules.latest();</tag><tag>out.code=rules.d.code</tag><tag>balance</tag><tag>"quoted"</tag>
    </rule><rule id="d">x</rule>`);
    const tags = (grammar.rules.get("main") as Extract<Expansion, { type: "sequence" }>).items;
    expect(tags.map((tag) => (tag.type === "tag" ? tag.statements : []))).toEqual([
      [
        { path: ["action"], value: { kind: "literal", value: "transfer" } },
        { path: ["dept"], value: { kind: "literal", value: "billing" } },
      ],
      [{ path: [], value: { kind: "rule", rule: "latest", path: [] } }],
      [{ path: ["code"], value: { kind: "rule", rule: "d", path: ["code"] } }],
      [{ path: [], value: { kind: "literal", value: "balance" } }],
      [{ path: [], value: { kind: "literal", value: "quoted" } }],
    ]);
  });

  test("does read every tag as a literal under semantics/1.0-literals", () => {
    const grammar = compile(
      '<rule id="main">x<tag>out = a + b</tag></rule>',
      'root="main" tag-format="semantics/1.0-literals"',
    );
    const tag = (grammar.rules.get("main") as Extract<Expansion, { type: "sequence" }>).items[1];
    expect(tag).toMatchObject({ statements: [{ path: [], value: { kind: "literal", value: "out = a + b" } }] });
  });

  test("does read a mode=dtmf grammar's tokens as keys", () => {
    const grammar = compile(
      '<rule id="main"><one-of><item>1</item><item>* 9</item><item>#</item><item>12</item></one-of></rule>',
      'root="main" mode="dtmf"',
    );
    expect(grammar.mode).toBe("dtmf");
    const choices = (grammar.rules.get("main") as Extract<Expansion, { type: "alternatives" }>).choices;
    expect(choices.map((choice) => choice.expansion)).toEqual([
      { type: "token", word: "1", text: "1" },
      {
        type: "sequence",
        items: [
          { type: "token", word: "*", text: "*" },
          { type: "token", word: "9", text: "9" },
        ],
      },
      { type: "token", word: "#", text: "#" },
      {
        type: "sequence",
        items: [
          { type: "token", word: "1", text: "1" },
          { type: "token", word: "2", text: "2" },
        ],
      },
    ]);
  });

  test("does ignore meta, metadata, lexicon, example and header tags", () => {
    const grammar = compile(
      '<meta name="a" content="b"/><metadata><x/></metadata><lexicon uri="http://x/l.pls"/><tag>var x;</tag><rule id="main">y<example>y</example></rule>',
    );
    expect(grammar.rules.get("main")).toEqual({ type: "token", word: "y", text: "y" });
  });

  const compilationFailures: [string, string, RegExp][] = [
    ["malformed XML", srgsDocument('<rule id="main">x</rul>'), /invalid SRGS grammar/u],
    ["a root other than <grammar>", "<speak>x</speak>", /root element must be <grammar>/u],
    ["an unknown element", srgsDocument('<rule id="main"><foo/></rule>'), /<foo> is not allowed/u],
    ["text inside one-of", srgsDocument('<rule id="main"><one-of>x<item>y</item></one-of></rule>'), /<item>s only/u],
    ["an empty one-of", srgsDocument('<rule id="main"><one-of/></rule>'), /without an <item>/u],
    ["a rule without id", srgsDocument("<rule>x</rule>", ""), /needs a valid id/u],
    ["a rule named like a special rule", srgsDocument('<rule id="GARBAGE">x</rule>', ""), /needs a valid id/u],
    ["two rules of one name", srgsDocument('<rule id="main">x</rule><rule id="main">y</rule>'), /two rules/u],
    ["a bad scope", srgsDocument('<rule id="main" scope="global">x</rule>'), /scope/u],
    ["an undefined ruleref", srgsDocument('<rule id="main"><ruleref uri="#nope"/></rule>'), /not defined/u],
    ["an undefined root", srgsDocument('<rule id="a">x</rule>', 'root="main"'), /root="main" names a rule/u],
    ["a bad special", srgsDocument('<rule id="main"><ruleref special="ANY"/></rule>'), /NULL, VOID or GARBAGE/u],
    [
      "a ruleref with both uri and special",
      srgsDocument('<rule id="main"><ruleref uri="#main" special="NULL"/></rule>'),
      /exactly one/u,
    ],
    ["a bad repeat", srgsDocument('<rule id="main"><item repeat="many">x</item></rule>'), /repeat="many"/u],
    ["a reversed repeat", srgsDocument('<rule id="main"><item repeat="3-1">x</item></rule>'), /below its minimum/u],
    ["a bad weight", srgsDocument('<rule id="main"><one-of><item weight="-1">x</item></one-of></rule>'), /weight/u],
    ["a bad mode", srgsDocument('<rule id="main">x</rule>', 'root="main" mode="touch"'), /mode="touch"/u],
    [
      "a non-key token in a dtmf grammar",
      srgsDocument('<rule id="main">1 x</rule>', 'root="main" mode="dtmf"'),
      /DTMF key/u,
    ],
    [
      "a tag with arithmetic",
      srgsDocument('<rule id="main">x<tag>out = rules.a + 1;</tag></rule>'),
      /<tag> "out = rules.a \+ 1;"/u,
    ],
    [
      "a tag assigning a variable",
      srgsDocument('<rule id="main">x<tag>var y = "a";</tag></rule>'),
      /must assign to out/u,
    ],
    ["an element inside a tag", srgsDocument('<rule id="main"><tag><b/></tag></rule>'), /text only/u],
    ["a grammar without rules", srgsDocument("", ""), /no <rule>/u],
  ];
  for (const [name, body, reason] of compilationFailures)
    test(`does refuse ${name} as a compilation failure (005)`, () => {
      const error = failure(() => compileGrammar(SRGS, body));
      expect(error.failure).toBe("compilation");
      expect(error.completionCause).toBe("005 grammar-compilation-failure");
      expect(error.message).toMatch(reason);
    });

  test("does refuse an external ruleref as a load failure (004): Sawt fetches nothing", () => {
    const error = failure(() => compile('<rule id="main"><ruleref uri="http://example.com/g.grxml#r"/></rule>'));
    expect(error.failure).toBe("load");
    expect(error.completionCode).toBe(4);
    expect(error.message).toContain("does not fetch");
  });
});
