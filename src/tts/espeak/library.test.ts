import { describe, expect, test } from "bun:test";
import { AppError } from "../../errors/taxonomy.ts";
import {
  closeEspeak,
  EspeakUnavailableError,
  libraryCandidates,
  locateLibrary,
  probeEspeak,
  resolveDataPath,
  withEspeak,
} from "./library.ts";
import { synthesizeEspeak } from "./synth.ts";

describe("espeak-ng library", () => {
  test("reports version, sample rate and data path when the system library is present", async () => {
    const status = await probeEspeak();
    if (!status.available) throw new Error(status.reason);
    expect(status.version).toMatch(/^1\.\d+/);
    expect(status.sampleRate).toBe(22050);
    expect(status.dataPath).toContain("espeak-ng-data");
  });

  test("tries only the override when SAWT_ESPEAK_LIB is set", () => {
    expect(libraryCandidates({ SAWT_ESPEAK_LIB: "/opt/x/libespeak-ng.so.1" })).toEqual(["/opt/x/libespeak-ng.so.1"]);
    expect(libraryCandidates({}).at(-1)).toBe("libespeak-ng.so.1");
  });

  test("throws a 503 EspeakUnavailableError naming the path when the library is missing", () => {
    let caught: unknown;
    try {
      locateLibrary({ SAWT_ESPEAK_LIB: "/nonexistent/libespeak-ng.so.1" });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(EspeakUnavailableError);
    const error = caught as EspeakUnavailableError;
    expect(error).toBeInstanceOf(AppError);
    expect(error.status).toBe(503);
    expect(error.detail).toBe("TTS engine not initialized");
    expect(error.reason).toContain("/nonexistent/libespeak-ng.so.1");
    expect(error.tried).toEqual(["/nonexistent/libespeak-ng.so.1"]);
  });

  test("rejects a data override when it has no phontab", () => {
    expect(() => resolveDataPath("/usr/lib/x86_64-linux-gnu/libespeak-ng.so.1", { SAWT_ESPEAK_DATA: "/tmp" })).toThrow(
      EspeakUnavailableError,
    );
  });

  test("accepts the data directory or its parent when SAWT_ESPEAK_DATA is set", () => {
    const data = "/usr/lib/x86_64-linux-gnu/espeak-ng-data";
    const lib = "/usr/lib/x86_64-linux-gnu/libespeak-ng.so.1";
    expect(resolveDataPath(lib, { SAWT_ESPEAK_DATA: data })).toBe(data);
    expect(resolveDataPath(lib, { SAWT_ESPEAK_DATA: "/usr/lib/x86_64-linux-gnu" })).toBe(data);
    expect(resolveDataPath(lib, {})).toBe(data);
  });

  test("runs tasks one at a time when they await in the middle", async () => {
    const events: string[] = [];
    const task = (name: string) =>
      withEspeak(async () => {
        events.push(`${name}:start`);
        await Bun.sleep(5);
        events.push(`${name}:end`);
        return name;
      });
    expect(await Promise.all([task("a"), task("b"), task("c")])).toEqual(["a", "b", "c"]);
    expect(events).toEqual(["a:start", "a:end", "b:start", "b:end", "c:start", "c:end"]);
  });

  test("keeps serving later tasks when an earlier task fails", async () => {
    const failing = withEspeak(() => {
      throw new Error("boom");
    });
    const next = withEspeak((espeak) => espeak.sampleRate);
    await expect(failing).rejects.toThrow("boom");
    expect(await next).toBe(22050);
  });

  test("rejects with EspeakUnavailableError from the worker when the library cannot be loaded", async () => {
    const saved = process.env.SAWT_ESPEAK_LIB;
    await closeEspeak();
    process.env.SAWT_ESPEAK_LIB = "/nonexistent/libespeak-ng.so.1";
    try {
      const status = await probeEspeak();
      expect(status.available).toBe(false);
      if (!status.available) expect(status.tried).toEqual(["/nonexistent/libespeak-ng.so.1"]);
      const failed = await synthesizeEspeak("hello", "Yara_en").catch((error: unknown) => error);
      expect(failed).toBeInstanceOf(EspeakUnavailableError);
      expect((failed as EspeakUnavailableError).status).toBe(503);
    } finally {
      if (saved === undefined) delete process.env.SAWT_ESPEAK_LIB;
      else process.env.SAWT_ESPEAK_LIB = saved;
      await closeEspeak();
    }
    expect((await probeEspeak()).available).toBe(true); // a fresh worker loads it again
  });

  test("starts a new worker when used again after closeEspeak", async () => {
    const before = await synthesizeEspeak("hello", "Yara_en");
    await closeEspeak();
    const after = await synthesizeEspeak("hello", "Yara_en");
    // Same speech, give or take espeak's per-initialisation noise.
    expect(after.sampleRate).toBe(before.sampleRate);
    expect(Math.abs(after.samples.length - before.samples.length)).toBeLessThan(before.samples.length * 0.05);
  });
});
