/**
 * Issue 37 acceptance 2 (and issue 27's property before it): for 10,000 random numbers, amounts,
 * dates, times and phones, Sawt's own TTS front-end (prepareText: NFKC, numbers read by the text
 * kit's reader, then the dialect's readings) says the prompt aloud in Modern Standard Arabic
 * (Najdi, Hijazi, Qassimi), in the Egyptian and the Levantine readings, and in English; inverse
 * text normalisation of that speech gives back the written form docs/transcripts.md documents,
 * character for character. Arabic cases also run in Arabic-Indic digits (the TTS reads them; ITN
 * writes them with asr.digits).
 */
import { describe, expect, test } from "bun:test";
import { seededRandom } from "../../src/asr/whisper/fallback.ts";
import type { Dialect } from "../../src/core/tts.ts";
import { toArabicIndic } from "../../src/text/arabic/digits.ts";
import { formatText } from "../../src/text/format.ts";
import { prepareText } from "../../src/tts/frontend/index.ts";
import { randomCase } from "./round-trip-cases.ts";

const CASES = 10_000;
const READINGS: readonly (Dialect | "en")[] = [
  "ar-najdi",
  "ar-hijazi",
  "ar-qassimi",
  "ar-egyptian",
  "ar-levantine",
  "en",
];

/** What the TTS front-end says for `text`: its sentences, as one line. */
function spoken(text: string, reading: Dialect | "en"): string {
  const sentences = prepareText(text, reading === "en" ? "en" : "ar", { dialect: reading });
  return sentences.map((s) => s.text).join(" ");
}

describe("round trip through the TTS reading", () => {
  test(`does give back the written form of each of ${CASES} cases from every dialect's reading`, () => {
    const random = seededRandom(37);
    const failures: string[] = [];
    const kinds = new Map<string, number>();
    for (let k = 0; k < CASES; k++) {
      for (const reading of READINGS) {
        const language = reading === "en" ? "en" : "ar";
        const indic = language === "ar" && random() < 0.1;
        const c = randomCase(random, language);
        kinds.set(c.kind, (kinds.get(c.kind) ?? 0) + 1);
        const written = indic ? toArabicIndic(c.written) : c.written;
        const expected = indic ? toArabicIndic(c.expected) : c.expected;
        const speech = spoken(written, reading);
        const digits = indic ? "arabic-indic" : "western";
        const back = formatText(speech, { language, itn: true, redact: new Set(), digits }).text;
        if (back !== expected && failures.length < 20)
          failures.push(`${reading} ${c.kind}: ${written} → ${speech} → ${back} (expected ${expected})`);
      }
    }
    expect(failures).toEqual([]);
    // Every kind is drawn often enough to mean something.
    for (const kind of ["integer", "decimal", "negative", "percent", "phone", "money", "date", "time"])
      expect(kinds.get(kind) ?? 0).toBeGreaterThan(1000);
  });

  test("does catch a reading it cannot invert", () => {
    // The property can fail: a reading that drops the minutes comes back as another time.
    const back = formatText(spoken("3:05", "ar-najdi").replace(/ و.*$/, ""), {
      language: "ar",
      itn: true,
      redact: new Set(),
      digits: "western",
    }).text;
    expect(back).not.toBe("3:05");
  });
});
