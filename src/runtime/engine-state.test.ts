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
    const tts = new EngineState<string>("tts");
    const asr = new EngineState<string>("asr");
    expect(errorOf(() => tts.require())).toMatchObject({ status: 503, detail: "TTS engine not initialized" });
    expect(errorOf(() => requireReady(asr))).toMatchObject({ status: 503, detail: "ASR engine not initialized" });
  });

  test("does hand out the service once ready", () => {
    const tts = new EngineState<string>("tts");
    tts.ready("service", { packs: ["yara"] });
    expect(tts.require()).toBe("service");
    expect(tts.snapshot()).toMatchObject({ status: "ready", details: { packs: ["yara"] } });
  });

  test("does keep the failure reason out of the client's error but in the snapshot", () => {
    const asr = new EngineState<string>("asr");
    asr.fail("no ASR pack installed", { broken_packs: [{ pack: "whisper", reason: "bad" }] });
    expect(errorOf(() => asr.require())).toMatchObject({ status: 503, detail: "ASR engine not initialized" });
    expect(asr.snapshot()).toMatchObject({ status: "failed", reason: "no ASR pack installed", details: { broken_packs: [{ pack: "whisper" }] } });
  });

  test("does refuse work with Retry-After once draining, and stay draining", () => {
    const tts = new EngineState<string>("tts");
    tts.ready("service");
    tts.drain();
    expect(errorOf(() => tts.require())).toMatchObject({ status: 503, retryAfter: 5 });
    tts.ready("late load"); // a load finishing after shutdown began
    tts.fail("late failure");
    expect(tts.state).toBe("draining");
  });

  test("does reject moves the lifecycle does not allow", () => {
    const tts = new EngineState<string>("tts");
    tts.fail("broken");
    expect(() => tts.ready("service")).toThrow(/failed → ready/);
    expect(() => tts.set("initializing")).toThrow(/failed → initializing/);
  });

  test("does tell listeners about every change", () => {
    const tts = new EngineState<string>("tts");
    const seen: string[] = [];
    const off = tts.onChange((s) => seen.push(s.status));
    tts.ready("service");
    tts.drain();
    off();
    tts.setDetails({ x: 1 });
    expect(seen).toEqual(["ready", "draining"]);
  });
});
