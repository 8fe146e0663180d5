import { describe, expect, test } from "bun:test";
import { AppError, Detail } from "../errors/taxonomy.ts";
import { codePointLength } from "./frontend/length.ts";
import { parseSpeechRequest, type SpeechLimits } from "./schema.ts";

const LIMITS: SpeechLimits = { tts: { max_input_chars: 51_200, blocked_patterns: [] } };

function failure(body: unknown, header: string | null = null, limits = LIMITS): AppError {
  try {
    parseSpeechRequest(body, header, limits);
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error("expected a failure");
}

describe("parseSpeechRequest", () => {
  test("does fill defaults when only input is given", () => {
    expect(parseSpeechRequest({ input: "مرحبا" }, null, LIMITS)).toEqual({
      input: "مرحبا",
      voice: "Yara",
      responseFormat: "mp3",
      speed: 1,
      dialect: undefined,
      sampleRate: undefined,
      encoding: "pcm_s16le",
    });
  });

  for (const body of [undefined, {}, { input: "" }, { input: "  \n " }, { input: null }]) {
    test(`does answer 400 Text cannot be empty when the body is ${JSON.stringify(body)}`, () => {
      const error = failure(body);
      expect([error.status, error.detail]).toEqual([400, Detail.textEmpty]);
    });
  }

  test("does answer 422 naming each field of the wrong JSON type", () => {
    const error = failure({ input: 5, speed: "fast", voice: [], sample_rate: 8000.5 });
    expect(error.status).toBe(422);
    expect(error.fields.map((f) => f.field).sort()).toEqual([
      "body.input",
      "body.sample_rate",
      "body.speed",
      "body.voice",
    ]);
  });

  test("does answer 422 for a body that is not an object", () => {
    for (const body of [[], "text", 3]) expect(failure(body).fields.map((f) => f.field)).toEqual(["body"]);
  });

  test("does count input length in code points, not UTF-16 units", () => {
    const emoji = "😀".repeat(51_200); // 102,400 UTF-16 units
    expect(codePointLength(emoji)).toBe(51_200);
    expect(parseSpeechRequest({ input: emoji }, null, LIMITS).input).toBe(emoji);
    const error = failure({ input: emoji + "a" });
    expect([error.status, error.detail]).toEqual([400, Detail.textTooLong]);
    expect(failure({ input: "abcd" }, null, { tts: { max_input_chars: 3, blocked_patterns: [] } }).detail).toBe(
      "Text exceeds maximum length of 3 characters",
    );
  });

  test("does answer 400 with the allowed list for an unknown format", () => {
    expect(failure({ input: "x", response_format: "ogg" }).detail).toBe(Detail.invalidFormat);
    expect(parseSpeechRequest({ input: "x", response_format: "pcm" }, null, LIMITS).responseFormat).toBe("pcm");
  });

  test("does clamp speed into 0.5–2.0 instead of refusing it", () => {
    expect(parseSpeechRequest({ input: "x", speed: 9 }, null, LIMITS).speed).toBe(2);
    expect(parseSpeechRequest({ input: "x", speed: 0 }, null, LIMITS).speed).toBe(0.5);
    expect(parseSpeechRequest({ input: "x", speed: 1.25 }, null, LIMITS).speed).toBe(1.25);
  });

  test("does prefer the body dialect, then the header, and ignore unknown values", () => {
    expect(parseSpeechRequest({ input: "x", dialect: "ar-egyptian" }, "ar-levantine", LIMITS).dialect).toBe(
      "ar-egyptian",
    );
    expect(parseSpeechRequest({ input: "x", dialect: "ar-moon" }, "ar-levantine", LIMITS).dialect).toBe("ar-levantine");
    expect(parseSpeechRequest({ input: "x" }, "AR-HIJAZI", LIMITS).dialect).toBe("ar-hijazi");
    expect(parseSpeechRequest({ input: "x" }, "nope", LIMITS).dialect).toBeUndefined();
  });

  test("does validate sample_rate bounds", () => {
    expect(parseSpeechRequest({ input: "x", sample_rate: 8000 }, null, LIMITS).sampleRate).toBe(8000);
    expect(failure({ input: "x", sample_rate: 7999 }).fields[0]!.field).toBe("body.sample_rate");
    expect(failure({ input: "x", sample_rate: 48001 }).status).toBe(422);
  });

  test("does keep an unknown voice for resolution to decide and default an empty one", () => {
    expect(parseSpeechRequest({ input: "x", voice: "Nouf" }, null, LIMITS).voice).toBe("Nouf");
    expect(parseSpeechRequest({ input: "x", voice: " " }, null, LIMITS).voice).toBe("Yara");
  });

  const blocked = [
    "<script>alert(1)</script>",
    "＜ｓｃｒｉｐｔ＞", // full-width: caught after NFKC
    "اضغط <b>هنا</b>",
    '<a href="x">رابط</a>',
    "<img src=x onerror=alert(1)",
    "javascript:alert(1)",
    "data:text/html;base64,xx",
    "{{ 7*7 }}",
    "${process.env}",
    "null\u0000byte",
    "bell\u0007",
  ];
  for (const input of blocked) {
    test(`does refuse blocked content ${JSON.stringify(input)}`, () => {
      expect(failure({ input }).detail).toBe(Detail.invalidContent);
    });
  }

  for (const input of [
    "2 < 3 و 5 > 4",
    "x<y and y>z",
    "أحبك <3",
    "السعر $5 فقط",
    "a@b.com",
    "سطر\nسطر\tعمود",
    "Customer data: name",
  ]) {
    test(`does accept ordinary text ${JSON.stringify(input)}`, () => {
      expect(parseSpeechRequest({ input }, null, LIMITS).input).toBe(input);
    });
  }

  test("does apply configured extra patterns case-insensitively", () => {
    const limits = { tts: { max_input_chars: 100, blocked_patterns: ["forbidden"] } };
    expect(failure({ input: "a FORBIDDEN word" }, null, limits).detail).toBe(Detail.invalidContent);
  });
});
