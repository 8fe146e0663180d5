import { describe, expect, test } from "bun:test";
import { EngineState } from "./engine-state.ts";

// What a client is told while an engine cannot serve is the edge's gate: src/edge/readiness.test.ts.
describe("EngineState", () => {
  test("does start initializing and not ready", () => {
    const tts = new EngineState("tts");
    expect(tts.state).toBe("initializing");
    expect(tts.isReady()).toBe(false);
  });

  test("does turn ready with its details", () => {
    const tts = new EngineState("tts");
    tts.ready({ packs: ["yara"] });
    expect(tts.isReady()).toBe(true);
    expect(tts.snapshot()).toMatchObject({ status: "ready", details: { packs: ["yara"] } });
  });

  test("does keep the failure reason and details in the snapshot", () => {
    const asr = new EngineState("asr");
    asr.fail("no ASR pack installed", { broken_packs: [{ pack: "whisper", reason: "bad" }] });
    expect(asr.isReady()).toBe(false);
    expect(asr.snapshot()).toMatchObject({
      status: "failed",
      reason: "no ASR pack installed",
      details: { broken_packs: [{ pack: "whisper" }] },
    });
  });

  test("does stay draining once draining", () => {
    const tts = new EngineState("tts");
    tts.ready();
    tts.drain();
    tts.ready(); // a load finishing after shutdown began
    tts.fail("late failure");
    expect(tts.state).toBe("draining");
    expect(tts.isReady()).toBe(false);
  });

  test("does reject moves the lifecycle does not allow", () => {
    const tts = new EngineState("tts");
    tts.fail("broken");
    expect(() => tts.ready()).toThrow(/failed → ready/);
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
