import { expect, test } from "bun:test";
import { SentenceBuffer } from "./sentences.ts";

test("does give whole sentences as their ends arrive, and the rest at flush", () => {
  const buffer = new SentenceBuffer();
  expect(buffer.push("مرحبا بك")).toEqual([]);
  expect(buffer.push(". كيف")).toEqual(["مرحبا بك."]);
  expect(buffer.push(" حالك؟ أنا")).toEqual(["كيف حالك؟"]);
  expect(buffer.push(" هنا\nشكرا")).toEqual(["أنا هنا"]);
  expect(buffer.length).toBe("شكرا".length);
  expect(buffer.flush()).toBe("شكرا");
  expect(buffer.flush()).toBeUndefined();
});

test("does not cut inside a number or before the mark's closing quote", () => {
  const buffer = new SentenceBuffer();
  expect(buffer.push("السعر 3.5 ريال. ")).toEqual(["السعر 3.5 ريال."]);
  expect(buffer.push('قال "نعم." ثم')).toEqual(['قال "نعم."']);
});
