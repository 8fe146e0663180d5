import { describe, expect, test } from "bun:test";
import { AppError } from "../errors/taxonomy.ts";
import type { BuiltinVoice } from "./types.ts";
import { builtinVoice, INVALID_VOICE_DETAIL, resolveVoice, type InstalledPacks } from "./voice-resolution.ts";

const packs =
  (...voices: BuiltinVoice[]): InstalledPacks =>
  (voice) =>
    voices.includes(voice) ? { engine: "piper" } : undefined;
const all = packs("Yara", "Sherine", "Myriam", "Yara_en");

describe("resolveVoice", () => {
  test("does give each voice its primary dialect when none is asked", () => {
    expect(resolveVoice({ voice: "Yara", dialect: undefined }, all, false)).toMatchObject({
      voice: "Yara",
      dialect: "ar-najdi",
      fallback: undefined,
    });
    expect(resolveVoice({ voice: "Sherine", dialect: undefined }, all, false)).toMatchObject({
      voice: "Sherine",
      dialect: "ar-egyptian",
    });
    expect(resolveVoice({ voice: "Myriam", dialect: undefined }, all, false)).toMatchObject({
      voice: "Myriam",
      dialect: "ar-levantine",
    });
  });

  test("does keep the voice when it covers the asked dialect", () => {
    expect(resolveVoice({ voice: "Yara", dialect: "ar-qassimi" }, all, false)).toMatchObject({
      voice: "Yara",
      dialect: "ar-qassimi",
      pack: "Yara",
      fallback: undefined,
    });
  });

  test("does switch to the dialect's voice when the voice does not cover it", () => {
    const r = resolveVoice({ voice: "Yara", dialect: "ar-levantine" }, all, false);
    expect(r).toMatchObject({ voice: "Myriam", dialect: "ar-levantine", pack: "Myriam" });
    expect(r.fallback).toBe("Yara does not speak ar-levantine, Myriam used");
    expect(resolveVoice({ voice: "Sherine", dialect: "ar-hijazi" }, all, false)).toMatchObject({
      voice: "Yara",
      dialect: "ar-hijazi",
    });
  });

  test("does fall back to Yara for removed and unknown voices when not strict", () => {
    for (const voice of ["Nouf", "Atheer", "Yaraa", ""]) {
      const r = resolveVoice({ voice, dialect: undefined }, all, false);
      expect(r).toMatchObject({ voice: "Yara", dialect: "ar-najdi" });
      expect(r.fallback).toBe("unknown voice, default Yara used");
    }
  });

  test("does apply the dialect after an unknown voice fell back to Yara", () => {
    expect(resolveVoice({ voice: "Nouf", dialect: "ar-egyptian" }, all, false)).toMatchObject({
      voice: "Sherine",
      dialect: "ar-egyptian",
    });
  });

  test("does reject unknown voices with the allowed list when strict", () => {
    expect(() => resolveVoice({ voice: "Nouf", dialect: undefined }, all, true)).toThrow(INVALID_VOICE_DETAIL);
    try {
      resolveVoice({ voice: "Nouf", dialect: undefined }, all, true);
    } catch (error) {
      expect((error as AppError).status).toBe(400);
    }
    expect(INVALID_VOICE_DETAIL).toBe("Invalid voice. Allowed: Yara, Sherine, Myriam, Yara_en");
    expect(resolveVoice({ voice: "sherine", dialect: undefined }, all, true).voice).toBe("Sherine");
  });

  test("does report en and ignore the dialect for Yara_en", () => {
    expect(resolveVoice({ voice: "Yara_en", dialect: "ar-egyptian" }, all, false)).toMatchObject({
      voice: "Yara_en",
      dialect: "en",
      pack: "Yara_en",
      fallback: undefined,
    });
  });

  test("does use Yara's pack for a voice without one, reporting Yara's dialect", () => {
    const r = resolveVoice({ voice: "Myriam", dialect: undefined }, packs("Yara"), false);
    expect(r).toMatchObject({ voice: "Yara", dialect: "ar-najdi", engine: "piper", pack: "Yara" });
    expect(r.fallback).toBe("Myriam pack not installed, Yara pack used");
  });

  test("does let espeak-ng speak the voice itself when neither it nor Yara has a pack", () => {
    const r = resolveVoice({ voice: "Sherine", dialect: undefined }, packs("Myriam"), false);
    expect(r).toMatchObject({ voice: "Sherine", dialect: "ar-egyptian", engine: "espeak-ng", pack: undefined });
    expect(r.fallback).toBe("no Sherine or Yara pack installed, espeak-ng used");
  });

  test("does use espeak-ng's English, not Yara's Arabic pack, for Yara_en without a pack", () => {
    expect(resolveVoice({ voice: "Yara_en", dialect: undefined }, packs("Yara"), false)).toMatchObject({
      voice: "Yara_en",
      dialect: "en",
      engine: "espeak-ng",
    });
  });

  test("does keep fallback reasons free of the caller's text so they are safe in a header", () => {
    const r = resolveVoice({ voice: "Nouf\r\nX-Evil: 1", dialect: "ar-egyptian" }, packs(), false);
    expect(r.fallback).toMatch(/^[\x20-\x7e]+$/);
    expect(r.fallback).not.toContain("Nouf");
  });
});

describe("name lookups", () => {
  test("does match voices case-insensitively and reject unknown ones", () => {
    expect(builtinVoice(" YARA_EN ")).toBe("Yara_en");
    expect(builtinVoice("Nouf")).toBeUndefined();
  });
});
