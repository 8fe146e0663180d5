import { describe, expect, test } from "bun:test";
import { AppError } from "../../errors/taxonomy.ts";
import {
  assertAllowedContent,
  createContentFilter,
  DEFAULT_BLOCKED_PATTERNS,
  InvalidBlockedPatternError,
  isBlockedContent,
} from "./blocked.ts";

const BLOCKED = [
  "<script>alert(1)</script>",
  "hello <SCRIPT src=x",
  "< iframe src='x'>",
  "<b>bold</b>",
  "</div>",
  '<a href="http://x">link</a>',
  "<img src=x onerror=alert(1)>",
  "<!-- comment -->",
  "<?php echo 1; ?>",
  "click javascript:alert(1)",
  "JaVaScRiPt :void(0)",
  "java\tscript:alert(1)",
  "vbscript:msgbox",
  "data:text/html;base64,PHNjcmlwdD4=",
  "DATA:,hello",
  "Hello {{ user.name }}",
  "total ${price * 2}",
  "<% eval %>",
  "{% if x %}",
  "a\u0000b",
  "bell\u0007",
  "esc\u001b[31m",
  "del\u007f",
  "c1\u0085",
  "＜ｓｃｒｉｐｔ＞", // full-width, caught after NFKC
];

const ALLOWED = [
  "2 < 3 and 5 > 4",
  "x<y and y>z",
  "a < b > c",
  "if x<y=3 then y>z",
  "price $5 or ${5",
  "email a@b.com or visit www.example.com",
  "I <3 you :) :-( ;-) <:o)",
  "Customer data: name, phone",
  "مرحبا بكم في خدمة العملاء، كيف يمكنني مساعدتك؟",
  "السعر 150 ريال < 200 ريال",
  "tab\tnewline\ncarriage\r\nreturn",
  "curly {braces} and {single}",
  "50% off — 100% sure",
];

describe("blocked content", () => {
  for (const text of BLOCKED) {
    test(`blocks ${JSON.stringify(text)} when using the default list`, () => {
      expect(isBlockedContent(text)).toBe(true);
    });
  }
  for (const text of ALLOWED) {
    test(`allows ${JSON.stringify(text)} when using the default list`, () => {
      expect(isBlockedContent(text)).toBe(false);
    });
  }

  test("uses only the configured patterns when a list is given", () => {
    const filter = createContentFilter(["forbidden"]);
    expect(filter("this is FORBIDDEN")).toBe(true);
    expect(filter("<script>")).toBe(false);
  });

  test("blocks nothing when the configured list is empty", () => {
    expect(createContentFilter([])("<script>")).toBe(false);
  });

  test("uses the default list when the configuration is undefined", () => {
    expect(createContentFilter(undefined)("<script>")).toBe(true);
    expect(DEFAULT_BLOCKED_PATTERNS.length).toBeGreaterThan(5);
  });

  test("throws a config error naming the index when a pattern is invalid", () => {
    expect(() => createContentFilter(["ok", "(unclosed"])).toThrow(InvalidBlockedPatternError);
    expect(() => createContentFilter(["ok", "(unclosed"])).toThrow(/\[1\]/);
  });

  test("throws the D7 400 error when asserting blocked text", () => {
    let caught: unknown;
    try {
      assertAllowedContent("<script>");
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(AppError);
    expect((caught as AppError).status).toBe(400);
    expect((caught as AppError).detail).toBe("Text contains invalid content");
    expect(() => assertAllowedContent("مرحبا")).not.toThrow();
  });
});
