import { expect, test } from "bun:test";
import * as v from "valibot";
import { toOpenApiSchema } from "./openapi.ts";

test("does write OpenAPI 3.0's required list, example and nullable from a valibot schema", () => {
  const schema = v.object({
    input: v.nullish(v.pipe(v.string(), v.examples(["مرحبا"]), v.metadata({ required: true }))),
    rate: v.optional(v.pipe(v.number(), v.integer(), v.minValue(8000), v.maxValue(48000))),
    format: v.nullish(v.pipe(v.string(), v.metadata({ enum: ["mp3", "wav"] }))),
    name: v.string(),
  });
  expect(toOpenApiSchema(schema)).toEqual({
    type: "object",
    properties: {
      input: { type: "string", nullable: true, example: "مرحبا" },
      rate: { type: "integer", minimum: 8000, maximum: 48000 },
      format: { type: "string", enum: ["mp3", "wav"], nullable: true },
      name: { type: "string" },
    },
    required: ["name", "input"],
  });
});

test("does leave out what JSON Schema cannot say instead of failing", () => {
  const schema = v.object({
    text: v.pipe(
      v.string(),
      v.trim(),
      v.check((s) => s.length > 0),
    ),
  });
  expect(toOpenApiSchema(schema)).toEqual({
    type: "object",
    properties: { text: { type: "string" } },
    required: ["text"],
  });
});
