import { describe, expect, test } from "bun:test";
import { compileGrammar, compileGrammars, isGrammarMediaType } from "./compile.ts";
import { GrammarError } from "./errors.ts";

const failure = (run: () => unknown): GrammarError => {
  try {
    run();
  } catch (error) {
    if (error instanceof GrammarError) return error;
    throw error;
  }
  throw new Error("expected a GrammarError");
};

/** A service menu as an Arabic IVR defines it: weighted items with semantic tags. */
const MENU_GRAMMAR = `<?xml version="1.0" encoding="UTF-8"?>
<grammar xmlns="http://www.w3.org/2001/06/grammar" xml:lang="ar-SA" version="1.0" mode="voice"
         root="service" tag-format="semantics/1.0">
  <rule id="service" scope="public">
    <one-of>
      <item weight="2">رصيد الحساب<tag>out="balance";</tag></item>
      <item weight="1">تحويل<tag>out="transfer";</tag></item>
      <item weight="0.5">موظف خدمة العملاء<tag>out="agent";</tag></item>
    </one-of>
  </rule>
</grammar>`;

describe("compiling what an IVR sends", () => {
  test("does compile a weighted, tagged menu grammar, with its Content-Type parameters ignored", () => {
    const grammar = compileGrammar("Application/SRGS+XML; charset=UTF-8", MENU_GRAMMAR, undefined, {
      uri: "session:request1@form-level",
    });
    expect(grammar).toMatchObject({
      kind: "srgs",
      mode: "voice",
      root: "service",
      language: "ar-SA",
      uri: "session:request1@form-level",
      weight: 1,
    });
  });

  test("does take application/grammar+xml as the same SRGS XML", () => {
    expect(compileGrammar("application/grammar+xml", MENU_GRAMMAR).kind).toBe("srgs");
  });

  test("does compile the builtin URIs from a text/uri-list body", () => {
    expect(compileGrammar("text/uri-list", "builtin:speech/transcribe\r\n")).toMatchObject({
      kind: "transcribe",
      mode: "voice",
      uri: "builtin:speech/transcribe",
    });
    expect(compileGrammar("text/uri-list", "builtin:dtmf/digits?length=4")).toMatchObject({
      kind: "digits",
      mode: "dtmf",
      uri: "builtin:dtmf/digits?length=4",
      minLength: 4,
      maxLength: 4,
    });
    expect(compileGrammar("text/uri-list", "builtin:dtmf/digits?minlength=2;maxlength=5;entries=x")).toMatchObject({
      minLength: 2,
      maxLength: 5,
    });
  });

  test("does resolve session: URIs through the door and skip comment lines", () => {
    const defined = compileGrammar("application/srgs+xml", MENU_GRAMMAR, undefined, {
      uri: "session:request1@form-level",
    });
    const grammars = compileGrammars(
      "text/uri-list",
      "# the menu\r\nsession:request1@form-level\r\nbuiltin:dtmf/digits\r\n",
      undefined,
      {
        resolve: (uri) => (uri === "session:request1@form-level" ? defined : undefined),
      },
    );
    expect(grammars.map((g) => g.kind)).toEqual(["srgs", "digits"]);
    expect(grammars[0]!.uri).toBe("session:request1@form-level");
  });

  test("does read weights from text/grammar-ref-list as IVR clients write them (quoted, two decimals)", () => {
    const defined = compileGrammar("application/srgs+xml", MENU_GRAMMAR, undefined, {
      uri: "session:demo-grammar-0",
    });
    const grammars = compileGrammars(
      "text/grammar-ref-list",
      '<session:demo-grammar-0>;weight="2.00"\n<builtin:speech/transcribe>;weight="0.75"\n',
      undefined,
      { resolve: () => defined },
    );
    expect(grammars.map((g) => [g.uri, g.weight])).toEqual([
      ["session:demo-grammar-0", 2],
      ["builtin:speech/transcribe", 0.75],
    ]);
    expect(grammars[0]!.kind).toBe("srgs");
  });

  test("does say which Content-Types it takes", () => {
    expect(isGrammarMediaType("application/srgs+xml")).toBe(true);
    expect(isGrammarMediaType("text/uri-list; charset=utf-8")).toBe(true);
    expect(isGrammarMediaType("application/srgs")).toBe(false);
  });
});

describe("load (004) and compilation (005) failures", () => {
  const loads: [string, () => unknown, RegExp][] = [
    ["an unsupported media type (ABNF)", () => compileGrammar("application/srgs", "#ABNF 1.0;"), /Content-Type/u],
    ["JSGF", () => compileGrammar("application/x-jsgf", "#JSGF V1.0;"), /Content-Type/u],
    ["an unknown builtin", () => compileGrammar("text/uri-list", "builtin:grammar/boolean"), /no such builtin/u],
    ["an http grammar", () => compileGrammar("text/uri-list", "http://example.com/menu.grxml"), /does not fetch/u],
    [
      "a session grammar never defined",
      () => compileGrammar("text/uri-list", "session:nope"),
      /no grammar of that name/u,
    ],
  ];
  for (const [name, run, reason] of loads)
    test(`does report ${name} as grammar-load-failure`, () => {
      const error = failure(run);
      expect(error.failure).toBe("load");
      expect(error.completionCause).toBe("004 grammar-load-failure");
      expect(error.message).toMatch(reason);
    });

  const compilations: [string, () => unknown, RegExp][] = [
    ["an empty list", () => compileGrammar("text/uri-list", "# nothing\n"), /names no grammar/u],
    [
      "a bad weight",
      () => compileGrammars("text/grammar-ref-list", '<builtin:speech/transcribe>;weight="x"'),
      /weight/u,
    ],
    [
      "length with minlength",
      () => compileGrammar("text/uri-list", "builtin:dtmf/digits?length=4;minlength=2"),
      /cannot be combined/u,
    ],
    ["a non-numeric length", () => compileGrammar("text/uri-list", "builtin:dtmf/digits?length=four"), /whole number/u],
    [
      "maxlength below minlength",
      () => compileGrammar("text/uri-list", "builtin:dtmf/digits?minlength=5;maxlength=2"),
      /below minlength/u,
    ],
    [
      "a length over the bound",
      () => compileGrammar("text/uri-list", "builtin:dtmf/digits?length=1000"),
      /over the bound/u,
    ],
    [
      "two grammars where one is expected",
      () => compileGrammar("text/uri-list", "builtin:speech/transcribe\nbuiltin:dtmf/digits"),
      /2 grammars/u,
    ],
    [
      "a list of 33 grammars",
      () => compileGrammars("text/uri-list", "builtin:speech/transcribe\n".repeat(33)),
      /more than 32/u,
    ],
  ];
  for (const [name, run, reason] of compilations)
    test(`does report ${name} as grammar-compilation-failure`, () => {
      const error = failure(run);
      expect(error.failure).toBe("compilation");
      expect(error.completionCode).toBe(5);
      expect(error.message).toMatch(reason);
    });
});

describe("failure reasons", () => {
  test("does keep a reason on one short line whatever the grammar holds (it may go into a header)", () => {
    const injected = "x\r\nCompletion-Cause: 000 success\r\n" + "y".repeat(500);
    const reasons = [
      failure(() => compileGrammar("application/x\r\nEvil: 1", "")).message,
      failure(() =>
        compileGrammar(
          "application/srgs+xml",
          `<grammar xmlns="http://www.w3.org/2001/06/grammar" root="main"><rule id="main">a<tag>out = ${injected}</tag></rule></grammar>`,
        ),
      ).message,
      failure(() => compileGrammar("text/uri-list", `builtin:${injected}`)).message,
    ];
    for (const reason of reasons) {
      expect(reason).not.toMatch(/[\r\n]/u);
      expect(reason.length).toBeLessThan(300);
    }
  });
});
