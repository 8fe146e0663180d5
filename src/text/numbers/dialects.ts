/**
 * Dialect-aware reading, where it is cheap and right: the number words and a few common words
 * Egyptian and Levantine speakers say differently from Najdi/MSA, chiefly ث read as ت
 * («ثلاثة» → «تلاتة») and their own teens and tens («ثلاثة عشر» → «تلتاشر» / «تلتعش»,
 * «عشرون» → «عشرين»). THE table of these readings is here, used both ways: the TTS front-end
 * applies it after numbers are read out (so "13" and «ثلاثة عشر» typed as words are both said the
 * dialect's way), and written forms read every reading back (./arabic-lexicon.ts gives each the
 * entry of the MSA word it replaces). Najdi, Hijazi and Qassimi keep the MSA forms the number
 * reader writes.
 */
import type { Dialect } from "../../core/tts.ts";
import { LETTER_OR_MARK } from "../arabic/marks.ts";

/** Shared by both dialects: tens end in -een, hundreds and two thousand as spoken. */
const SPOKEN_TENS: Readonly<Record<string, string>> = {
  عشرون: "عشرين",
  ثلاثون: "تلاتين",
  ثلاثين: "تلاتين",
  أربعون: "أربعين",
  خمسون: "خمسين",
  ستون: "ستين",
  سبعون: "سبعين",
  ثمانون: "تمانين",
  ثمانين: "تمانين",
  تسعون: "تسعين",
  مئة: "مية",
  مائة: "مية",
  مئتان: "ميتين",
  مئتين: "ميتين",
  ثلاثمئة: "تلتمية",
  ثمانمئة: "تمنمية",
  ألفان: "ألفين",
  ثلاثة: "تلاتة",
  ثلاث: "تلات",
  ثمانية: "تمانية",
  ثمان: "تمان",
  ثانية: "تانية",
  ثواني: "تواني",
  الثالث: "التالت",
};

/** Word (or words) as the number reader and MSA write them → how each dialect says them. */
export const DIALECT_READINGS: Readonly<Partial<Record<Dialect, Readonly<Record<string, string>>>>> = {
  "ar-egyptian": {
    ...SPOKEN_TENS,
    اثنان: "اتنين",
    اثنين: "اتنين",
    "أحد عشر": "حداشر",
    "اثنا عشر": "اتناشر",
    "اثني عشر": "اتناشر",
    "ثلاثة عشر": "تلتاشر",
    "أربعة عشر": "أربعتاشر",
    "خمسة عشر": "خمستاشر",
    "ستة عشر": "ستاشر",
    "سبعة عشر": "سبعتاشر",
    "ثمانية عشر": "تمنتاشر",
    "تسعة عشر": "تسعتاشر",
    الثلاثاء: "التلات",
    الاثنين: "الاتنين",
    الثامن: "التامن",
  },
  "ar-levantine": {
    ...SPOKEN_TENS,
    اثنان: "تنين",
    اثنين: "تنين",
    "أحد عشر": "إحدعش",
    "اثنا عشر": "تنعش",
    "اثني عشر": "تنعش",
    "ثلاثة عشر": "تلتعش",
    "أربعة عشر": "أربعتعش",
    "خمسة عشر": "خمستعش",
    "ستة عشر": "ستعش",
    "سبعة عشر": "سبعتعش",
    "ثمانية عشر": "تمنتعش",
    "تسعة عشر": "تسعتعش",
    الثلاثاء: "التلاتا",
    الاثنين: "التنين",
    الثامن: "التامن",
  },
};

const patterns = new Map<Dialect, RegExp>();

/** The pattern of a dialect's table: whole words, longest first, after an optional «و». */
function patternFor(dialect: Dialect, table: Readonly<Record<string, string>>): RegExp {
  let pattern = patterns.get(dialect);
  if (!pattern) {
    const keys = Object.keys(table).sort((a, b) => b.length - a.length);
    pattern = new RegExp(`(?<![${LETTER_OR_MARK}])(و?)(${keys.join("|")})(?![${LETTER_OR_MARK}])`, "gu");
    patterns.set(dialect, pattern);
  }
  return pattern;
}

/** `text` with the dialect's readings applied; unchanged for dialects without a table. */
export function readInDialect(text: string, dialect: Dialect | "en" | undefined): string {
  const table = dialect === undefined || dialect === "en" ? undefined : DIALECT_READINGS[dialect];
  if (!table) return text;
  return text.replace(patternFor(dialect as Dialect, table), (_m, and: string, word: string) => and + table[word]!);
}

/** `word` and every dialect's reading of it (the MSA word first): what a caller may say for it. */
export function spokenForms(word: string): string[] {
  const forms = [word];
  for (const table of Object.values(DIALECT_READINGS)) {
    const spoken = table?.[word];
    if (spoken !== undefined && !forms.includes(spoken)) forms.push(spoken);
  }
  return forms;
}
