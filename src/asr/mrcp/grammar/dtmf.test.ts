import { describe, expect, test } from "bun:test";
import { compileGrammar } from "./compile.ts";
import { digitsProgress, matchDigits } from "./dtmf.ts";

const builtin = (uri: string) => compileGrammar("text/uri-list", uri);
const dtmfSrgs = (rules: string) =>
  compileGrammar(
    "application/srgs+xml",
    `<?xml version="1.0"?><grammar xmlns="http://www.w3.org/2001/06/grammar" version="1.0" mode="dtmf" root="main">${rules}</grammar>`,
    undefined,
    { uri: "session:menu" },
  );

describe("builtin:dtmf/digits", () => {
  test("does take any number of digits without parameters", () => {
    const grammar = builtin("builtin:dtmf/digits");
    expect(matchDigits(grammar, "1234")).toMatchObject({
      instance: "1234",
      interpretation: "1234",
      input: "1234",
      mode: "dtmf",
      confidence: 1,
    });
    expect(matchDigits(grammar, "7")?.instance).toBe("7");
    expect(digitsProgress(grammar, "")).toEqual({ match: null, canExtend: true });
    expect(digitsProgress(grammar, "12").canExtend).toBe(true);
  });

  test("does hold to length=n", () => {
    const grammar = builtin("builtin:dtmf/digits?length=4");
    expect(matchDigits(grammar, "123")).toBeNull();
    expect(digitsProgress(grammar, "123")).toEqual({ match: null, canExtend: true });
    expect(matchDigits(grammar, "1234")?.instance).toBe("1234");
    expect(digitsProgress(grammar, "1234").canExtend).toBe(false);
    expect(matchDigits(grammar, "12345")).toBeNull();
  });

  test("does hold to minlength and maxlength, as UniMRCP clients write them", () => {
    const grammar = builtin("builtin:dtmf/digits?minlength=2;maxlength=4");
    expect(matchDigits(grammar, "1")).toBeNull();
    expect(matchDigits(grammar, "12")?.instance).toBe("12");
    expect(matchDigits(grammar, "1234")?.instance).toBe("1234");
    expect(matchDigits(grammar, "12345")).toBeNull();
    expect(matchDigits(builtin("builtin:dtmf/digits?minlength=3&maxlength=3"), "123")?.instance).toBe("123");
  });

  test("does take a trailing # as the end of input and stop collecting", () => {
    const grammar = builtin("builtin:dtmf/digits?minlength=1;maxlength=10");
    expect(digitsProgress(grammar, "42#")).toMatchObject({ match: { instance: "42", input: "42" }, canExtend: false });
    expect(matchDigits(builtin("builtin:dtmf/digits?length=4"), "12#")).toBeNull();
  });

  test("does not match * or letters, nor keys in the middle of a # sequence", () => {
    const grammar = builtin("builtin:dtmf/digits");
    expect(matchDigits(grammar, "12*")).toBeNull();
    expect(matchDigits(grammar, "1#2")).toBeNull();
    expect(matchDigits(grammar, "12x")).toBeNull();
  });
});

describe("SRGS mode=dtmf", () => {
  const menu = dtmfSrgs(`<rule id="main"><one-of>
    <item>1<tag>out="balance"</tag></item>
    <item>2<tag>out="transfer"</tag></item>
    <item>9 9</item>
    <item>*<tag>out="back"</tag></item>
    <item>#<tag>out="repeat"</tag></item>
  </one-of></rule>`);

  test("does match single keys with their tags", () => {
    expect(matchDigits(menu, "1")).toMatchObject({ instance: "balance", input: "1", mode: "dtmf", confidence: 1 });
    expect(matchDigits(menu, "*")?.instance).toBe("back");
    expect(matchDigits(menu, "99")?.instance).toBe("9 9");
    expect(matchDigits(menu, "3")).toBeNull();
  });

  test("does take # as a key when the grammar has it, else as the end of input", () => {
    expect(matchDigits(menu, "#")?.instance).toBe("repeat");
    expect(digitsProgress(menu, "2#")).toMatchObject({ match: { instance: "transfer", input: "2" }, canExtend: false });
  });

  test("does say when more keys could still match", () => {
    expect(digitsProgress(menu, "9")).toEqual({ match: null, canExtend: true });
    expect(digitsProgress(menu, "1").canExtend).toBe(false);
    const pin = dtmfSrgs(
      '<rule id="main"><item repeat="4-6"><ruleref uri="#d"/></item></rule><rule id="d"><one-of><item>0</item><item>1</item><item>2</item><item>3</item><item>4</item><item>5</item><item>6</item><item>7</item><item>8</item><item>9</item></one-of></rule>',
    );
    expect(digitsProgress(pin, "123").match).toBeNull();
    expect(digitsProgress(pin, "1234")).toMatchObject({ match: { instance: "1 2 3 4" }, canExtend: true });
    expect(digitsProgress(pin, "123456")).toMatchObject({ match: { input: "123456" }, canExtend: false });
  });

  test("does not match keys against a voice grammar, nor speech words against keys", () => {
    const voice = compileGrammar(
      "application/srgs+xml",
      '<grammar xmlns="http://www.w3.org/2001/06/grammar" root="main"><rule id="main">1</rule></grammar>',
    );
    expect(matchDigits(voice, "1")).toBeNull();
    expect(matchDigits(builtin("builtin:speech/transcribe"), "1")).toBeNull();
  });
});
