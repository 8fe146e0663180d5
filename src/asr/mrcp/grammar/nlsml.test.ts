import { describe, expect, test } from "bun:test";
import { SaxesParser } from "saxes";
import { compileGrammar } from "./compile.ts";
import { matchTranscript } from "./match.ts";
import { escapeXml, nlsmlFromMatches, nlsmlNoInput, nlsmlNoMatch, nlsmlResult } from "./nlsml.ts";

interface Node {
  name: string;
  attributes: Record<string, string>;
  children: (Node | string)[];
}

/** Parses NLSML back with a strict XML parser; throws when it is not well-formed. */
function parse(xml: string): Node {
  const parser = new SaxesParser({ xmlns: false });
  const stack: Node[] = [];
  let root: Node | undefined;
  parser.on("error", (error) => {
    throw error;
  });
  parser.on("opentag", (tag) => {
    const node: Node = { name: tag.name, attributes: { ...(tag.attributes as Record<string, string>) }, children: [] };
    if (stack.length > 0) stack[stack.length - 1]!.children.push(node);
    else root = node;
    stack.push(node);
  });
  parser.on("text", (text) => {
    if (stack.length > 0) stack[stack.length - 1]!.children.push(text);
  });
  parser.on("closetag", () => void stack.pop());
  parser.write(xml).close();
  return root!;
}

const text = (node: Node): string =>
  node.children.map((child) => (typeof child === "string" ? child : text(child))).join("");
const child = (node: Node, name: string): Node =>
  node.children.find((c): c is Node => typeof c !== "string" && c.name === name)!;

describe("NLSML results", () => {
  test("does write the RFC 6787 shape: result, interpretation, instance, input", () => {
    const xml = nlsmlResult([
      {
        grammarUri: "session:request1@form-level.store",
        instance: "الرصيد",
        input: "اريد الرصيد",
        mode: "speech",
        confidence: 0.874,
      },
    ]);
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>')).toBe(true);
    const root = parse(xml);
    expect(root.name).toBe("result");
    expect(root.attributes.xmlns).toBe("urn:ietf:params:xml:ns:mrcpv2");
    const interpretation = child(root, "interpretation");
    expect(interpretation.attributes).toEqual({ grammar: "session:request1@form-level.store", confidence: "0.87" });
    expect(text(child(interpretation, "instance"))).toBe("الرصيد");
    expect(child(interpretation, "input").attributes).toEqual({ mode: "speech", confidence: "0.87" });
    expect(text(child(interpretation, "input"))).toBe("اريد الرصيد");
  });

  test("does escape markup, quotes and ampersands and drop characters XML cannot hold", () => {
    const nasty = `</instance><x a="1">&amp; 'q' "dq" & <![CDATA[y]]>\u0001\uD800`;
    const xml = nlsmlResult([
      { grammarUri: 'session:a"b<c>&d', instance: nasty, input: nasty, mode: "speech", confidence: 1 },
    ]);
    const interpretation = child(parse(xml), "interpretation");
    expect(interpretation.attributes.grammar).toBe('session:a"b<c>&d');
    const expected = `</instance><x a="1">&amp; 'q' "dq" & <![CDATA[y]]>`;
    expect(text(child(interpretation, "instance"))).toBe(expected);
    expect(text(child(interpretation, "input"))).toBe(expected);
    expect(escapeXml("a<b")).toBe("a&lt;b");
  });

  test("does write one interpretation per N-best entry, in order, with DTMF mode", () => {
    const xml = nlsmlResult([
      { grammarUri: "builtin:dtmf/digits", instance: "1234", input: "1234", mode: "dtmf", confidence: 1 },
      { grammarUri: "session:b", instance: "x", input: "x", mode: "speech", confidence: 0.4 },
    ]);
    const interpretations = parse(xml).children.filter((c): c is Node => typeof c !== "string");
    expect(interpretations.map((i) => [i.attributes.grammar, i.attributes.confidence])).toEqual([
      ["builtin:dtmf/digits", "1.00"],
      ["session:b", "0.40"],
    ]);
    expect(child(interpretations[0]!, "input").attributes.mode).toBe("dtmf");
  });

  test("does clamp confidences to 0.00–1.00", () => {
    const xml = nlsmlResult([{ grammarUri: "g", instance: "", input: "", mode: "speech", confidence: 87 }]);
    expect(child(parse(xml), "interpretation").attributes.confidence).toBe("1.00");
    const nan = nlsmlResult([{ grammarUri: "g", instance: "", input: "", mode: "speech", confidence: Number.NaN }]);
    expect(child(parse(nan), "interpretation").attributes.confidence).toBe("0.00");
  });

  test("does write a structured interpretation as elements", () => {
    const grammar = compileGrammar(
      "application/srgs+xml",
      `<grammar xmlns="http://www.w3.org/2001/06/grammar" root="main"><rule id="main">تحويل<tag>out.action="transfer"; out.dept.name="الفواتير &amp; الدفع";</tag></rule></grammar>`,
      undefined,
      { uri: "session:menu" },
    );
    const match = matchTranscript([grammar], "تحويل")!;
    const instance = child(child(parse(nlsmlFromMatches([match])), "interpretation"), "instance");
    expect(text(child(instance, "action"))).toBe("transfer");
    expect(text(child(child(instance, "dept"), "name"))).toBe("الفواتير & الدفع");
  });

  test("does write no-match and no-input bodies that parse", () => {
    const noMatch = child(child(parse(nlsmlNoMatch()), "interpretation"), "input");
    expect(child(noMatch, "nomatch").name).toBe("nomatch");
    const noInput = child(child(parse(nlsmlNoInput("dtmf")), "interpretation"), "input");
    expect(noInput.attributes.mode).toBe("dtmf");
    expect(child(noInput, "noinput").name).toBe("noinput");
  });
});
