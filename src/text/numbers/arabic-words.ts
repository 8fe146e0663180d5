/**
 * THE Arabic number vocabulary, Modern Standard Arabic as Sawt writes it (undiacritised except
 * the accusative tanween alif "ًا"): the words the TTS reader says numbers with
 * (./arabic-cardinal.ts, ../verbalize/arabic.ts) and the words written forms read back
 * (./arabic-lexicon.ts, ../itn/). One table both ways, so a word the reader starts saying is a
 * word ITN reads; each dialect's way of saying them is ./dialects.ts, what callers say beyond
 * both is the lexicon's list of heard forms.
 */

/** The inflected forms of an Arabic counted noun (see `countArabic` for which is used when). */
export interface ArabicNoun {
  /** Singular, genitive after 100/1000/…: "ريال". */
  readonly singular: string;
  /** Dual nominative / genitive: "ريالان" / "ريالين". */
  readonly dual: readonly [string, string];
  /** Plural after 3–10: "ريالات". */
  readonly plural: string;
  /** Accusative singular after 11–99: "ريالًا". */
  readonly accusative: string;
  readonly feminine: boolean;
}

/** 0–10 counting a masculine noun (and read alone, and recited as digits). */
export const ONES_MASCULINE: readonly string[] = [
  "صفر",
  "واحد",
  "اثنان",
  "ثلاثة",
  "أربعة",
  "خمسة",
  "ستة",
  "سبعة",
  "ثمانية",
  "تسعة",
  "عشرة",
];
/** 0–10 counting a feminine noun ("ثلاث دقائق"). */
export const ONES_FEMININE: readonly string[] = [
  "صفر",
  "واحدة",
  "اثنتان",
  "ثلاث",
  "أربع",
  "خمس",
  "ست",
  "سبع",
  "ثماني",
  "تسع",
  "عشر",
];
/** The tens 20–90 by their digit (nominative; the genitive ends in ين). */
export const TENS: readonly string[] = [
  "",
  "",
  "عشرون",
  "ثلاثون",
  "أربعون",
  "خمسون",
  "ستون",
  "سبعون",
  "ثمانون",
  "تسعون",
];
/** The hundreds 100–900 by their digit (modern joined spelling, "مئة" not "مائة"). */
export const HUNDREDS: readonly string[] = [
  "",
  "مئة",
  "مئتان",
  "ثلاثمئة",
  "أربعمئة",
  "خمسمئة",
  "ستمئة",
  "سبعمئة",
  "ثمانمئة",
  "تسعمئة",
];
/** «مئتين», the genitive of 200. */
export const HUNDREDS_GENITIVE_200 = "مئتين";

/** The ten word after a unit in 13–19: «عشر» counting a masculine noun, «عشرة» a feminine one. */
export const TEEN_TEN = { masculine: "عشر", feminine: "عشرة" } as const;
/** The first word of 11 and 12 (before the ten word), by gender; 12 nominative then genitive. */
export const TEEN_HEADS = {
  11: { masculine: ["أحد"], feminine: ["إحدى"] },
  12: { masculine: ["اثنا", "اثني"], feminine: ["اثنتا", "اثنتي"] },
} as const;
/** The unit 1 before a tens word counting a feminine noun: «إحدى وعشرون دقيقة». */
export const ONE_FEMININE_COMPOUND = "إحدى";

/** Definite masculine ordinals 1–10 (a day of the month: «الخامس من مارس»). */
export const ORDINALS: readonly string[] = [
  "",
  "الأول",
  "الثاني",
  "الثالث",
  "الرابع",
  "الخامس",
  "السادس",
  "السابع",
  "الثامن",
  "التاسع",
  "العاشر",
];
/** The ordinal 1 inside 11th, 21st, 31st: «الحادي عشر», «الحادي والعشرون». */
export const ORDINAL_ONE_COMPOUND = "الحادي";
/** The definite article that makes a tens word ordinal: «العشرون», «الثلاثون». */
export const DEFINITE = "ال";

function scaleNoun(singular: string, plural: string): ArabicNoun {
  return { singular, dual: [`${singular}ان`, `${singular}ين`], plural, accusative: `${singular}ًا`, feminine: false };
}

/** The scale nouns by power of 1000 (index 0 is none). Beyond trillions numbers are read digit by digit. */
export const SCALES: readonly ArabicNoun[] = [
  scaleNoun("", ""),
  scaleNoun("ألف", "آلاف"),
  scaleNoun("مليون", "ملايين"),
  scaleNoun("مليار", "مليارات"),
  scaleNoun("تريليون", "تريليونات"),
];

/** Minutes, counted after an hour. */
export const MINUTE: ArabicNoun = {
  singular: "دقيقة",
  dual: ["دقيقتان", "دقيقتين"],
  plural: "دقائق",
  accusative: "دقيقة",
  feminine: true,
};
/** Seconds, counted after the minutes. */
export const SECOND: ArabicNoun = {
  singular: "ثانية",
  dual: ["ثانيتان", "ثانيتين"],
  plural: "ثوان",
  accusative: "ثانية",
  feminine: true,
};

/** The words around numbers: what the reader says and written forms look for. */
export const PHRASE = {
  /** Before the fraction: «ثلاثة فاصلة خمسة». */
  point: "فاصلة",
  /** After a percentage. */
  percent: "بالمئة",
  /** Before a negative number. */
  minus: "سالب",
  /** The "+" of an international phone number. */
  plus: "زائد",
  /** Between the ends of a range: «تسعة إلى خمسة». */
  to: "إلى",
  /** Before a clock time. */
  hour: "الساعة",
  /** Between the day and the month of a date. */
  of: "من",
  /** After a morning and an evening time. */
  am: "صباحًا",
  pm: "مساءً",
} as const;

/** Arabic names of Latin letters, for spelling IBANs and codes to an Arabic voice (P sounds as B: «بي»). */
export const LATIN_LETTER_NAMES: Readonly<Record<string, string>> = {
  A: "إيه",
  B: "بي",
  C: "سي",
  D: "دي",
  E: "إي",
  F: "إف",
  G: "جي",
  H: "إتش",
  I: "آي",
  J: "جيه",
  K: "كيه",
  L: "إل",
  M: "إم",
  N: "إن",
  O: "أو",
  P: "بي",
  Q: "كيو",
  R: "آر",
  S: "إس",
  T: "تي",
  U: "يو",
  V: "في",
  W: "دبليو",
  X: "إكس",
  Y: "واي",
  Z: "زد",
};
