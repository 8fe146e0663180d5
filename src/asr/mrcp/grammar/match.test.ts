import { describe, expect, test } from "bun:test";
import { compileGrammar, compileGrammars } from "./compile.ts";
import { matchTranscript, matchTranscriptNBest, speechProgress } from "./match.ts";
import type { CompiledGrammar, SrgsGrammar } from "./types.ts";

const srgs = (rules: string, uri = "session:menu@sawt", attributes = 'root="main"'): CompiledGrammar =>
  compileGrammar(
    "application/srgs+xml",
    `<?xml version="1.0"?><grammar xmlns="http://www.w3.org/2001/06/grammar" version="1.0" xml:lang="ar-SA" ${attributes}>${rules}</grammar>`,
    undefined,
    { uri },
  );

const MENU = srgs(`<rule id="main" scope="public"><one-of>
  <item>الرَّصِيد<tag>out="balance"</tag></item>
  <item>تحويل <item repeat="0-1">مكالمة</item><tag>out="transfer"</tag></item>
  <item>خدمة العملاء</item>
  <item>الخيار ٣<tag>out="option3"</tag></item>
</one-of></rule>`);

const SPOTTING =
  srgs(`<rule id="main"><ruleref special="GARBAGE"/><ruleref uri="#menu"/><ruleref special="GARBAGE"/></rule>
<rule id="menu"><one-of><item>الرصيد<tag>out="balance"</tag></item><item>فاتورة</item></one-of></rule>`);

describe("matching a transcript against SRGS grammars", () => {
  test("does match an item said alone, with the tag's value and full confidence", () => {
    expect(matchTranscript([MENU], "الرصيد")).toMatchObject({
      grammar: MENU,
      instance: "balance",
      interpretation: "balance",
      input: "الرصيد",
      mode: "speech",
      confidence: 1,
    });
  });

  test("does match whatever diacritics, hamza and ta marbuta forms the recogniser wrote", () => {
    expect(matchTranscript([MENU], "الرَّصيدُ.")?.instance).toBe("balance");
    expect(matchTranscript([MENU], "تحويل مكالمه")?.instance).toBe("transfer");
    expect(matchTranscript([MENU], "تحويل")?.instance).toBe("transfer");
  });

  test("does match Arabic-Indic digits against a Western digit and back", () => {
    expect(matchTranscript([MENU], "الخيار 3")?.instance).toBe("option3");
    expect(matchTranscript([MENU], "الخيار ۳")?.instance).toBe("option3");
  });

  test("does return the grammar's own words for an untagged item", () => {
    expect(matchTranscript([MENU], "خدمه العملاء")).toMatchObject({ instance: "خدمة العملاء", input: "خدمه العملاء" });
  });

  test("does not match an item among fillers when the grammar has no GARBAGE", () => {
    expect(matchTranscript([MENU], "اريد الرصيد من فضلك")).toBeNull();
    expect(matchTranscript([MENU], "مرحبا")).toBeNull();
    expect(matchTranscript([MENU], "")).toBeNull();
    expect(matchTranscript([MENU], " ،؟ ")).toBeNull();
  });

  test("does match an item among fillers where the grammar allows GARBAGE, with lower confidence", () => {
    const match = matchTranscript([SPOTTING], "أريد الرصيد من فضلك");
    expect(match).toMatchObject({ instance: "balance", input: "اريد الرصيد من فضلك" });
    expect(match!.confidence).toBeCloseTo(0.6 + 0.4 / 4, 3);
    expect(matchTranscript([SPOTTING], "الرصيد")!.confidence).toBe(1);
    expect(matchTranscript([SPOTTING], "فاتوره لو سمحت")?.instance).toBe("فاتورة");
  });

  test("does scale confidence by the recogniser's", () => {
    expect(matchTranscript([MENU], "الرصيد", { asrConfidence: 0.8 })!.confidence).toBe(0.8);
  });

  test("does honour repeat bounds", () => {
    const grammar = srgs(
      '<rule id="main">رقم <item repeat="2-3"><one-of><item>واحد</item><item>اثنين</item></one-of></item></rule>',
    );
    expect(matchTranscript([grammar], "رقم واحد")).toBeNull();
    expect(matchTranscript([grammar], "رقم واحد اثنين")?.instance).toBe("رقم واحد اثنين");
    expect(matchTranscript([grammar], "رقم واحد اثنين واحد")).not.toBeNull();
    expect(matchTranscript([grammar], "رقم واحد اثنين واحد اثنين")).toBeNull();
  });

  test("does honour NULL and VOID", () => {
    const grammar = srgs(
      '<rule id="main"><one-of><item>a<ruleref special="VOID"/></item><item>b<ruleref special="NULL"/></item></one-of></rule>',
    );
    expect(matchTranscript([grammar], "a")).toBeNull();
    expect(matchTranscript([grammar], "b")).not.toBeNull();
  });

  test("does build structured values from out.x and rules.x, and default to the one referenced rule", () => {
    const grammar = srgs(`<rule id="main"><ruleref special="GARBAGE"/><ruleref uri="#order"/></rule>
      <rule id="order"><ruleref uri="#drink"/> <ruleref uri="#size"/><tag>out.drink = rules.drink; out.size = rules.size.code;</tag></rule>
      <rule id="drink"><one-of><item>قهوة</item><item>شاي</item></one-of></rule>
      <rule id="size"><one-of><item>كبير<tag>out.code="L"</tag></item><item>صغير<tag>out.code="S"</tag></item></one-of></rule>`);
    const match = matchTranscript([grammar], "اريد قهوه كبير");
    expect(match?.interpretation).toEqual({ drink: "قهوة", size: "L" });
    expect(match?.instance).toBe('{"drink":"قهوة","size":"L"}');
  });

  test("does prefer the heavier one-of item when two parse the same words", () => {
    const grammar = srgs(
      '<rule id="main"><one-of><item weight="0.5">نعم<tag>out="light"</tag></item><item weight="3">نعم<tag>out="heavy"</tag></item></one-of></rule>',
    );
    expect(matchTranscript([grammar], "نعم")?.instance).toBe("heavy");
  });

  test("does follow right recursion and cut left recursion without hanging", () => {
    const right = srgs('<rule id="main">x <item repeat="0-1"><ruleref uri="#main"/></item></rule>');
    expect(matchTranscript([right], "x x x x")).not.toBeNull();
    const left = srgs('<rule id="main"><one-of><item><ruleref uri="#main"/> x</item><item>x</item></one-of></rule>');
    expect(matchTranscript([left], "x")).not.toBeNull();
  });

  test("does find a name in a 5,000-item directory among 30 words of fillers, within the step bound", () => {
    let items = "";
    for (let i = 0; i < 5000; i++) items += `<item>name${i} family${i % 97}<tag>out="${i}"</tag></item>`;
    const directory = srgs(
      `<rule id="main"><ruleref special="GARBAGE"/><ruleref uri="#names"/><ruleref special="GARBAGE"/></rule><rule id="names"><one-of>${items}</one-of></rule>`,
    );
    const fillers = "please ".repeat(14);
    const started = performance.now();
    expect(matchTranscript([directory], `${fillers}name4321 family53 ${fillers}`)?.instance).toBe("4321");
    expect(performance.now() - started).toBeLessThan(1500);
  });

  test("does give up, without a match, on a grammar that needs more steps than its bound", () => {
    const rules = `<rule id="main"><item repeat="0-"><one-of><item><ruleref special="GARBAGE"/></item><item>a</item></one-of></item></rule>`;
    const grammar = compileGrammar(
      "application/srgs+xml",
      `<grammar xmlns="http://www.w3.org/2001/06/grammar" root="main">${rules}</grammar>`,
      { maxMatchSteps: 50 },
    ) as SrgsGrammar;
    expect(matchTranscript([grammar], "a a a a a a a a a a")).toBeNull();
    expect(
      matchTranscript([{ ...grammar, limits: { ...grammar.limits, maxMatchSteps: 1_000_000 } }], "a a a"),
    ).not.toBeNull();
  });

  test("does not match a transcript longer than maxInputTokens", () => {
    const grammar = compileGrammar(
      "application/srgs+xml",
      '<grammar xmlns="http://www.w3.org/2001/06/grammar" root="main"><rule id="main"><ruleref special="GARBAGE"/></rule></grammar>',
      { maxInputTokens: 3 },
    );
    expect(matchTranscript([grammar], "a b c")).not.toBeNull();
    expect(matchTranscript([grammar], "a b c d")).toBeNull();
  });
});

describe("several grammars and free-form", () => {
  const [transcribe] = compileGrammars("text/uri-list", "builtin:speech/transcribe");

  test("does return the transcript itself for builtin:speech/transcribe", () => {
    expect(matchTranscript([transcribe!], "  السلام   عليكم، كيف الحال؟ ", { asrConfidence: 0.9 })).toMatchObject({
      instance: "السلام عليكم، كيف الحال؟",
      input: "السلام عليكم، كيف الحال؟",
      confidence: 0.9,
    });
  });

  test("does rank a grammar match before free-form and return every match for N-best", () => {
    const nBest = matchTranscriptNBest([transcribe!, SPOTTING, MENU], "الرصيد");
    expect(nBest.map((match) => match.grammar)).toEqual([SPOTTING, MENU, transcribe!]);
    expect(matchTranscript([transcribe!, MENU], "الرصيد")?.grammar).toBe(MENU);
  });

  test("does rank by confidence, then grammar weight, then order", () => {
    const light = { ...MENU, weight: 0.5 };
    const heavy = { ...MENU, weight: 2 };
    expect(matchTranscriptNBest([light, heavy], "الرصيد").map((m) => m.grammar)).toEqual([heavy, light]);
    expect(matchTranscriptNBest([SPOTTING, MENU], "اريد الرصيد")[0]?.grammar).toBe(SPOTTING);
  });

  test("does not match a DTMF grammar against speech", () => {
    const [digits] = compileGrammars("text/uri-list", "builtin:dtmf/digits");
    expect(matchTranscript([digits!], "1234")).toBeNull();
  });
});

describe("how far speech got through the grammars (which timer ends it)", () => {
  const ACCOUNT = srgs(`<rule id="main" scope="public"><one-of>
    <item>رصيد الحساب الجاري</item><item>تحويل</item></one-of></rule>`);

  test("does call a whole menu item complete", () => {
    expect(speechProgress([ACCOUNT], "تحويل")).toBe("complete");
    expect(speechProgress([ACCOUNT], "رصيد الحساب الجاري")).toBe("complete");
  });

  test("does call the start of a longer item incomplete", () => {
    expect(speechProgress([ACCOUNT], "رصيد الحساب")).toBe("incomplete");
  });

  test("does call words no item starts with none, and free-form speech complete", () => {
    expect(speechProgress([ACCOUNT], "مرحبا")).toBe("none");
    const transcribe = compileGrammar("text/uri-list", "builtin:speech/transcribe");
    expect(speechProgress([ACCOUNT, transcribe], "مرحبا")).toBe("complete");
    expect(speechProgress([transcribe], "")).toBe("none");
  });
});
