/**
 * Grammar XML into a small element tree, safely. Parser: saxes (a strict, non-validating
 * streaming parser already used for SSML). It never reads a DTD, so it never expands a declared
 * entity nor fetches an external one, and an undeclared entity reference is an error; on top of
 * that any DOCTYPE is refused outright, which stops billion-laughs and external-entity documents
 * at their first line. Size, nesting depth and element count are bounded while parsing.
 */
import { SaxesParser } from "saxes";
import { compilationFailure } from "./errors.ts";
import type { GrammarLimits } from "./limits.ts";

/** One element: its name as written, its attributes, and its children in order. */
export interface XmlElement {
  readonly name: string;
  readonly attributes: Readonly<Record<string, string>>;
  readonly children: (XmlElement | string)[];
}

/** The tree and how many elements it holds (the grammar's node budget starts from it). */
export interface XmlTree {
  readonly root: XmlElement;
  readonly elements: number;
}

const fail = (detail: string): never => compilationFailure(`invalid SRGS grammar: ${detail}`);

/** Parses `body` under `limits` (maxBytes, maxDepth, maxNodes); throws a compilation failure. */
export function parseXml(body: string, limits: GrammarLimits): XmlTree {
  const bytes = Buffer.byteLength(body, "utf8");
  if (bytes > limits.maxBytes) fail(`the grammar is ${bytes} bytes, more than the ${limits.maxBytes} allowed`);
  if (/<!ENTITY/u.test(body)) fail("entity declarations are not allowed");
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  let elements = 0;
  const parser = new SaxesParser({ position: true });
  parser.on("error", (error) => fail(error.message));
  parser.on("doctype", () => fail("a DOCTYPE is not allowed (no DTDs, no entity declarations)"));
  const addText = (text: string): void => {
    const parent = stack[stack.length - 1];
    if (parent === undefined) return;
    const last = parent.children[parent.children.length - 1];
    if (typeof last === "string") parent.children[parent.children.length - 1] = last + text;
    else parent.children.push(text);
  };
  parser.on("text", addText);
  parser.on("cdata", addText);
  parser.on("opentag", (tag) => {
    elements++;
    if (elements > limits.maxNodes) fail(`more than ${limits.maxNodes} elements`);
    if (stack.length >= limits.maxDepth) fail(`elements nested deeper than ${limits.maxDepth}`);
    const element: XmlElement = {
      name: tag.name,
      attributes: { ...(tag.attributes as Record<string, string>) },
      children: [],
    };
    const parent = stack[stack.length - 1];
    if (parent) parent.children.push(element);
    else root = element;
    stack.push(element);
  });
  parser.on("closetag", () => {
    stack.pop();
  });
  parser.write(body).close();
  return root ? { root, elements } : fail("the document has no root element");
}
