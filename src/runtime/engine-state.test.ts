import { describe, expect, test } from "bun:test";
import { AppError } from "../errors/taxonomy.ts";
import { EngineState, requireReady } from "./engine-state.ts";

const errorOf = (fn: () => unknown): AppError => {
  try {
    fn();
  } catch (error) {
    return error as AppError;
  }
  throw new Error("did not throw");
};

describe("EngineState", () => {
  test("does answer 503 with the spec's detail while initializing", () => {
    expect(errorOf(() => new EngineState("tts").assertReady())).toMatchObject({ status: 503, detail: "TTS engine not initialized" });
    expect(errorOf(() => requireReady(new EngineState("asr")))).toMatchObject({ status: 503, detail: "ASR engine not initialized" });
  });

  test("does let work through once ready, with its details", () => {
    const tts = new EngineState("tts");
    tts.ready({ packs: ["yara"] });
    expect(() => tts.assertReady()).not.toThrow();
    expect(tts.snapshot()).toMatchObject({ status: "ready", details: { packs: ["yara"] } });
  });

  test("does keep the failure reason out of the client's error but in the snapshot", () => {
    const asr = new EngineState("asr");
    asr.fail("no ASR pack installed", { broken_packs: [{ pack: "whisper", reason: "bad" }] });
    expect(errorOf(() => asr.assertReady())).toMatchObject({ status: 503, detail: "ASR engine not initialized" });
    expect(asr.snapshot()).toMatchObject({ status: "failed", reason: "no ASR pack installed", details: { broken_packs: [{ pack: "whisper" }] } });
  });

  test("does refuse work with Retry-After once draining, and stay draining", () => {
    const tts = new EngineState("tts");
    tts.ready();
    tts.drain();
    expect(errorOf(() => tts.assertReady())).toMatchObject({ status: 503, detail: "TTS engine is shutting down", retryAfter: 5 });
    tts.ready(); // a load finishing after shutdown began
    tts.fail("late failure");
    tts.set("ready");
    expect(tts.state).toBe("draining");
  });

  test("does reject moves the lifecycle does not allow", () => {
    const tts = new EngineState("tts");
    tts.fail("broken");
    expect(() => tts.ready()).toThrow(/failed → ready/);
    expect(() => tts.set("initializing")).toThrow(/failed → initializing/);
  });

  test("does tell listeners about every change", () => {
    const tts = new EngineState("tts");
    const seen: string[] = [];
    const off = tts.onChange((s) => seen.push(s.status));
    tts.ready();
    tts.drain();
    off();
    tts.setDetails({ x: 1 });
    expect(seen).toEqual(["ready", "draining"]);
  });
});
