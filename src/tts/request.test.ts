import { describe, expect, test } from "bun:test";
import { AppError } from "../errors/taxonomy.ts";
import { createRequestParser } from "./request.ts";

const parse = createRequestParser({ max_input_chars: 51200, blocked_patterns: ["forbidden\\s+word"] });

function failure(body: unknown, header?: string): AppError {
  try {
    parse(body, header);
  } catch (error) {
    return error as AppError;
  }
  throw new Error("expected a failure");
}

describe("speech request parsing", () => {
  test("does fill the defaults when only input is sent", () => {
    expect(parse({ input: "مرحبا" })).toEqual({ input: "مرحبا", voice: "Yara", responseFormat: "mp3", speed: 1, dialect: undefined, sampleRate: undefined });
  });

  test("does answer 422 naming each field when JSON types are wrong", () => {
    const error = failure({ input: 5, speed: "fast", sample_rate: 7000, voice: [] });
    expect(error.status).toBe(422);
    expect(error.fields.map((f) => f.field).sort()).toEqual(["body.input", "body.sample_rate", "body.speed", "body.voice"]);
    expect(failure("text").status).toBe(422);
  });

  test("does answer the spec's 400 texts for empty, too long, bad format and blocked input", () => {
    expect(failure({}).detail).toBe("Text cannot be empty");
    expect(failure({ input: "  \n" }).detail).toBe("Text cannot be empty");
    expect(failure({ input: "a".repeat(51201) }).detail).toBe("Text exceeds maximum length of 51,200 characters");
    expect(failure({ input: "x", response_format: "ogg" }).detail).toBe("Invalid format. Allowed: aac, flac, mp3, opus, pcm, wav");
    expect(failure({ input: "<script>alert(1)</script>" }).detail).toBe("Text contains invalid content");
    expect(failure({ input: "a FORBIDDEN  word" }).detail).toBe("Text contains invalid content");
  });

  test("does count code points, so 51,200 emoji are not too long", () => {
    expect(parse({ input: "😀".repeat(51200) }).input.length).toBe(102400);
  });

  test("does clamp speed silently when it is out of range", () => {
    expect(parse({ input: "x", speed: 9 }).speed).toBe(2);
    expect(parse({ input: "x", speed: 0.1 }).speed).toBe(0.5);
    expect(parse({ input: "x", speed: 1.3 }).speed).toBe(1.3);
  });

  test("does prefer the body dialect and treat unknown values as omitted", () => {
    expect(parse({ input: "x", dialect: "ar-egyptian" }, "ar-levantine").dialect).toBe("ar-egyptian");
    expect(parse({ input: "x" }, "ar-levantine").dialect).toBe("ar-levantine");
    expect(parse({ input: "x", dialect: "ar-moroccan" }, "ar-hijazi").dialect).toBe("ar-hijazi");
    expect(parse({ input: "x", dialect: "ar-moroccan" }).dialect).toBeUndefined();
  });

  test("does accept sample_rate within 8000-48000", () => {
    expect(parse({ input: "x", sample_rate: 8000 }).sampleRate).toBe(8000);
    expect(failure({ input: "x", sample_rate: 48001 }).status).toBe(422);
  });
});
