/**
 * The SSML subset Sawt speaks, recognised when the input starts with `<speak` (D22):
 * `<speak>`, `<p>`, `<s>`, `<break time|strength>`, `<prosody rate>`, `<say-as interpret-as>`,
 * `<sub alias>`, `<phoneme alphabet="ipa" ph>`, `<lang xml:lang>`, `<mark name>`. Anything else is refused with
 * 400 naming the problem, so a prompt author learns of a typo before the prompt goes live.
 *
 * Parser: saxes, a strict, non-validating streaming XML parser in plain JavaScript (no native
 * code; jsdom's parser, kept up to date). It never reads a DTD and so never expands a declared
 * entity or fetches an external one; Sawt refuses any DOCTYPE outright on top of that, which
 * stops billion-laughs and external-entity documents at their first line. Size is bounded before
 * parsing by the input length limit (tts.max_input_chars).
 */
import { SaxesParser } from "saxes";
import { IPA_TEXT, phonemeSpan, stripSpanMarkers } from "../frontend/phoneme-span.ts";
import type { SpeechPart } from "./parts.ts";
import { SAY_AS, sayAs, SayAsError, type SayAs } from "./say-as.ts";

/** Malformed or unsupported SSML; `message` is the 400 detail. */
export class SsmlError extends Error {}

/**
 * True when `input` is SSML: it starts with `<speak` (leading whitespace aside), or with an XML
 * declaration or DOCTYPE, so such a document is parsed and refused with a reason that names the
 * problem instead of passing as plain text with markup in it.
 */
export function isSsml(input: string): boolean {
  return /^\s*(?:<speak(?=[\s>/])|<\?xml[\s?]|<!DOCTYPE[\s>])/u.test(input);
}

const ELEMENTS = new Set(["speak", "p", "s", "break", "prosody", "say-as", "sub", "phoneme", "lang", "mark"]);
/** Empty elements: a position in the prompt, never text. */
const EMPTY = new Set(["break", "mark"]);
/** What a mark's name may hold: printable, no line breaks (MRCP's Speech-Marker header carries it). */
const MARK_NAME = /^[^\p{C}\s;][^\p{C};]{0,127}$/u;
/** Elements whose content is read as a whole (no elements inside). */
const CAPTURING = new Set(["say-as", "sub", "phoneme"]);
const BREAK_STRENGTH: Readonly<Record<string, number>> = {
  none: 0,
  "x-weak": 0.1,
  weak: 0.25,
  medium: 0.5,
  strong: 0.75,
  "x-strong": 1.25,
};
const RATE_WORDS: Readonly<Record<string, number>> = {
  "x-slow": 0.5,
  slow: 0.75,
  medium: 1,
  default: 1,
  fast: 1.25,
  "x-fast": 1.5,
};
/** Longest single break (a longer one is almost certainly a unit mistake). */
const MAX_BREAK_SECONDS = 10;

interface Frame {
  readonly name: string;
  readonly language: "ar" | "en" | undefined;
  readonly rate: number;
  readonly attributes: Readonly<Record<string, string>>;
  /** Text inside a capturing element. */
  captured: string;
}

const fail = (detail: string): never => {
  throw new SsmlError(`Invalid SSML: ${detail}`);
};

function breakSeconds(attributes: Readonly<Record<string, string>>): number {
  const time = attributes.time?.trim();
  if (time !== undefined) {
    const match = /^(\d+(?:\.\d+)?)(ms|s)$/u.exec(time);
    if (!match) fail(`<break time="${time}"> must be a duration such as 500ms or 1.5s`);
    const seconds = Number(match![1]) / (match![2] === "ms" ? 1000 : 1);
    if (seconds > MAX_BREAK_SECONDS) fail(`<break time="${time}"> is longer than ${MAX_BREAK_SECONDS}s`);
    return seconds;
  }
  const strength = attributes.strength ?? "medium";
  const seconds = BREAK_STRENGTH[strength];
  return seconds ?? fail(`<break strength="${strength}"> must be one of ${Object.keys(BREAK_STRENGTH).join(", ")}`);
}

function rateOf(value: string | undefined): number {
  if (value === undefined) return 1;
  const v = value.trim();
  if (v in RATE_WORDS) return RATE_WORDS[v]!;
  const percent = /^([+-]?\d+(?:\.\d+)?)%$/u.exec(v);
  if (percent) return v.startsWith("+") || v.startsWith("-") ? 1 + Number(percent[1]) / 100 : Number(percent[1]) / 100;
  if (/^\d+(?:\.\d+)?$/u.test(v)) return Number(v);
  return fail(`<prosody rate="${value}"> must be x-slow … x-fast, a percentage or a number`);
}

function languageOf(value: string | undefined): "ar" | "en" {
  const lang = value?.trim().toLowerCase() ?? "";
  if (/^en(-|$)/u.test(lang)) return "en";
  if (/^ar(-|$)/u.test(lang)) return "ar";
  return fail(`<lang xml:lang="${value ?? ""}"> must be an Arabic (ar-…) or English (en-…) language tag`);
}

/** The text a capturing element stands for. */
function captureText(frame: Frame, base: "ar" | "en"): string {
  const content = stripSpanMarkers(frame.captured);
  const { attributes } = frame;
  if (frame.name === "sub") return attributes.alias ?? fail("<sub> needs an alias attribute");
  if (frame.name === "phoneme") {
    const alphabet = attributes.alphabet ?? "ipa";
    if (alphabet !== "ipa") fail(`<phoneme alphabet="${alphabet}"> is not supported (ipa only)`);
    const ph = attributes.ph?.trim() ?? fail("<phoneme> needs a ph attribute");
    if (!IPA_TEXT.test(ph)) fail(`<phoneme ph="${ph}"> holds characters IPA transcriptions do not use`);
    return phonemeSpan(ph, content);
  }
  const interpretAs = attributes["interpret-as"] ?? fail("<say-as> needs an interpret-as attribute");
  if (!(SAY_AS as readonly string[]).includes(interpretAs))
    fail(`<say-as interpret-as="${interpretAs}"> must be one of ${SAY_AS.join(", ")}`);
  try {
    return sayAs(interpretAs as SayAs, content, frame.language ?? base, attributes.format);
  } catch (error) {
    if (error instanceof SayAsError) return fail(error.message);
    throw error;
  }
}

/**
 * Parses an SSML document into parts. `base` is the request voice's language (what `<say-as>`
 * reads in outside `<lang>`). Throws {@link SsmlError} with the 400 detail.
 */
export function parseSsml(input: string, base: "ar" | "en"): SpeechPart[] {
  const parts: SpeechPart[] = [];
  const stack: Frame[] = [];
  let buffer = "";
  let bufferFrame: Pick<Frame, "language" | "rate"> = { language: undefined, rate: 1 };
  const top = (): Frame | undefined => stack[stack.length - 1];
  const flush = (): void => {
    if (buffer.trim() !== "")
      parts.push({ kind: "text", text: buffer.trim(), language: bufferFrame.language, rate: bufferFrame.rate });
    buffer = "";
    const frame = top();
    bufferFrame = frame ? { language: frame.language, rate: frame.rate } : { language: undefined, rate: 1 };
  };
  const addText = (text: string): void => {
    const frame = top();
    if (frame === undefined) {
      if (text.trim() !== "") fail("text outside <speak>");
      return;
    }
    if (EMPTY.has(frame.name)) {
      if (text.trim() !== "") fail(`<${frame.name}> takes no content`);
      return;
    }
    if (CAPTURING.has(frame.name)) frame.captured += text;
    else buffer += stripSpanMarkers(text);
  };

  const parser = new SaxesParser({ position: true });
  parser.on("error", (error) => fail(error.message));
  parser.on("doctype", () => fail("a DOCTYPE is not allowed (no entity declarations)"));
  parser.on("text", addText);
  parser.on("cdata", addText);
  parser.on("opentag", (tag) => {
    const name = tag.name;
    const parent = top();
    if (!ELEMENTS.has(name)) fail(`unsupported element <${name}>`);
    if (parent === undefined && name !== "speak") fail(`the root element must be <speak>, not <${name}>`);
    if (parent !== undefined && name === "speak") fail("<speak> inside <speak>");
    if (parent && CAPTURING.has(parent.name)) fail(`<${name}> inside <${parent.name}> (it takes text only)`);
    const attributes = tag.attributes as Record<string, string>;
    const language = name === "lang" ? languageOf(attributes["xml:lang"]) : (parent?.language ?? undefined);
    const rate = (parent?.rate ?? 1) * (name === "prosody" ? rateOf(attributes.rate) : 1);
    if (name === "break") {
      flush();
      parts.push({ kind: "break", seconds: breakSeconds(attributes) });
    }
    if (name === "mark") {
      // A mark is a point between what precedes and what follows it: the text before it ends there.
      flush();
      const markName = attributes.name?.trim() ?? "";
      if (!MARK_NAME.test(markName))
        fail(`<mark name="${markName}"> needs a name of 1 to 128 printable characters, no ';'`);
      parts.push({ kind: "mark", name: markName });
    }
    stack.push({ name, language, rate, attributes, captured: "" });
    if (!CAPTURING.has(name) && !EMPTY.has(name)) flush();
  });
  parser.on("closetag", (tag) => {
    const frame = stack.pop();
    if (!frame) return;
    if (CAPTURING.has(frame.name)) buffer += captureText(frame, base);
    else if (!EMPTY.has(frame.name)) flush();
    if (tag.name === "speak") flush();
  });
  parser.write(input).close();
  if (!parts.some((part) => part.kind !== "mark")) fail("the document has nothing to say");
  return parts;
}
