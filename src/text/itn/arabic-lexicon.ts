/**
 * The Arabic number words inverse text normalisation reads: MSA as Sawt's TTS front-end writes
 * them (src/text/verbalize/arabic.ts, in every case and gender) and the forms Egyptian,
 * Levantine, Gulf and Hijazi speakers say (src/text/numbers/dialects.ts and common speech:
 * «تلاتة», «اتنين», «تنين», «تلتاشر», «تلتعش», «ثلطعش», «ميتين», «تلتمية», «ثلاث مية»). Keys are
 * written naturally and folded once with {@link wordKey}, so «مئة», «مائة» and «مية» all match.
 */
import { wordKey } from "./words.ts";

/** What one number word is. */
export type NumberWord =
  /** 0–10; `digit` when it may be one digit of a phone or card number; `head` only before «عشر». */
  | { readonly t: "unit"; readonly v: number; readonly digit: boolean; readonly head?: boolean; readonly fem?: boolean }
  /** A unit that only multiplies a following «مية» («تلت مية», «تمن مية»). */
  | { readonly t: "hundredUnit"; readonly v: number }
  | { readonly t: "teen"; readonly v: number }
  | { readonly t: "tens"; readonly v: number }
  /** 100–900; `bare` for «مية»/«مائة», which a unit before it multiplies. */
  | { readonly t: "hundreds"; readonly v: number; readonly bare?: boolean }
  /** 1000^k: `n` 1 singular, 2 dual, "pl" plural or accusative (after a count), "acc2" «ألفًا»/«ألفا» (either). */
  | { readonly t: "scale"; readonly v: number; readonly n: 1 | 2 | "pl" | "acc2" };

const table = new Map<string, NumberWord>();
function add(word: NumberWord, ...spellings: string[]): void {
  for (const s of spellings) table.set(wordKey(s), word);
}

const unit = (v: number, fem = false, digit = true) => ({ t: "unit", v, digit, fem }) as const;
add(unit(0), "صفر");
add(unit(1), "واحد", "واحدة", "وحدة");
add(unit(2), "اثنان", "اثنين", "اتنين", "تنين", "ثنين", "اثنتان", "اثنتين", "ثنتين", "ثنتان");
add(unit(3), "ثلاثة", "تلاتة", "ثلاثه");
add(unit(3, true), "ثلاث", "تلات");
add(unit(4), "أربعة", "اربعة");
add(unit(4, true), "أربع");
add(unit(5), "خمسة");
add(unit(5, true), "خمس");
add(unit(6), "ستة");
add(unit(6, true), "ست");
add(unit(7), "سبعة");
add(unit(7, true), "سبع");
add(unit(8), "ثمانية", "تمانية", "ثمنية");
add(unit(8, true), "ثماني", "ثمان", "تمان", "تماني");
add(unit(9), "تسعة");
add(unit(9, true), "تسع");
add(unit(10, false, false), "عشرة");
add(unit(10, true, false), "عشر");
add({ t: "unit", v: 1, digit: false, head: true }, "أحد", "إحدى", "احدى");
add({ t: "unit", v: 2, digit: false, head: true }, "اثنا", "اثني", "اثنتا", "اثنتي");
add({ t: "hundredUnit", v: 3 }, "تلت", "ثلث");
add({ t: "hundredUnit", v: 8 }, "تمن", "ثمن");

const TEENS: readonly (readonly string[])[] = [
  ["حداشر", "احداشر", "إحدعش", "احدعش", "حدعش", "إحداعش"],
  ["اتناشر", "اطناشر", "تنعش", "اثنعش", "اتنعش", "ثنعش"],
  ["تلتاشر", "تلطاشر", "تلتعش", "ثلطعش", "ثلاثطعش", "ثلتعش"],
  ["أربعتاشر", "اربعطاشر", "أربعتعش", "اربعطعش"],
  ["خمستاشر", "خمسطاشر", "خمستعش", "خمسطعش"],
  ["ستاشر", "سطاشر", "ستعش", "سطعش"],
  ["سبعتاشر", "سبعطاشر", "سبعتعش", "سبعطعش"],
  ["تمنتاشر", "تمنطاشر", "تمنتعش", "ثمنطعش", "ثمنتعش"],
  ["تسعتاشر", "تسعطاشر", "تسعتعش", "تسعطعش"],
];
TEENS.forEach((forms, k) => add({ t: "teen", v: 11 + k }, ...forms));

const TENS: readonly (readonly string[])[] = [
  ["عشرون", "عشرين"],
  ["ثلاثون", "ثلاثين", "تلاتين", "تلاثين"],
  ["أربعون", "أربعين"],
  ["خمسون", "خمسين"],
  ["ستون", "ستين"],
  ["سبعون", "سبعين"],
  ["ثمانون", "ثمانين", "تمانين"],
  ["تسعون", "تسعين"],
];
TENS.forEach((forms, k) => add({ t: "tens", v: 20 + 10 * k }, ...forms));

add({ t: "hundreds", v: 100, bare: true }, "مئة", "مائة", "مية", "ميه", "مِيَّة");
add({ t: "hundreds", v: 200 }, "مئتان", "مئتين", "مئتا", "مئتي", "ميتين", "متين", "مائتان", "مائتين", "مائتا", "ميتان");
const HUNDREDS: readonly (readonly string[])[] = [
  ["ثلاثمئة", "ثلاثمائة", "تلتمية", "تلاتمية", "ثلثمية", "ثلاثمية", "تلتميت"],
  ["أربعمئة", "أربعمائة", "أربعمية", "ربعمية"],
  ["خمسمئة", "خمسمائة", "خمسمية", "خومسمية"],
  ["ستمئة", "ستمائة", "ستمية"],
  ["سبعمئة", "سبعمائة", "سبعمية"],
  ["ثمانمئة", "ثمانمائة", "تمنمية", "تمانمية", "ثمنمية", "ثمانمية"],
  ["تسعمئة", "تسعمائة", "تسعمية"],
];
HUNDREDS.forEach((forms, k) => add({ t: "hundreds", v: 300 + 100 * k }, ...forms));

function scale(v: number, singular: string[], dual: string[], plural: string[], acc2: string[]): void {
  add({ t: "scale", v, n: 1 }, ...singular);
  add({ t: "scale", v, n: 2 }, ...dual);
  add({ t: "scale", v, n: "pl" }, ...plural);
  add({ t: "scale", v, n: "acc2" }, ...acc2);
}
scale(1000, ["ألف"], ["ألفان", "ألفين", "ألفي"], ["آلاف", "الاف", "تلاف", "ألوف"], ["ألفا"]);
scale(1e6, ["مليون"], ["مليونان", "مليونين", "مليونا", "مليوني"], ["ملايين", "مليونًا"], []);
scale(1e9, ["مليار", "بليون"], ["ملياران", "مليارين", "مليارا", "مليلري"], ["مليارات", "مليارًا"], []);
scale(1e12, ["تريليون"], ["تريليونان", "تريليونين", "تريليونا"], ["تريليونات"], []);
// «مليونًا» folds to «مليونا», the construct dual's spelling too: after a count it is the
// accusative (11–99 millions), alone the dual, so it is "acc2" like «ألفا».
for (const s of ["مليونا", "مليارا", "تريليونا"]) {
  const entry = table.get(wordKey(s));
  if (entry?.t === "scale") table.set(wordKey(s), { ...entry, n: "acc2" });
}

/** The number word a folded key names. */
export function numberWord(key: string): NumberWord | undefined {
  return table.get(key);
}

/** Proclitics that may stand before a number word: «و» (and), «ب» (with/for). */
const PROCLITICS = ["و", "ب"];

/** A key's number word and the proclitic written before it («وخمسين» → «و» + 50). */
export function numberWordWithClitic(key: string): { word: NumberWord; clitic: string } | undefined {
  const word = table.get(key);
  if (word) return { word, clitic: "" };
  for (const c of PROCLITICS) {
    if (key.length > c.length + 1 && key.startsWith(c)) {
      const rest = table.get(key.slice(c.length));
      if (rest) return { word: rest, clitic: c };
    }
  }
  return undefined;
}

/** The number word after a leading «و» («وأحد» folds to «واحد», so this is asked apart). */
export function numberWordAfterAnd(key: string): NumberWord | undefined {
  return key.length > 2 && key.startsWith("و") ? table.get(key.slice(1)) : undefined;
}

/** Masculine and feminine ordinals 1–10 as a date or a clock hour names them. */
const ORDINAL_UNITS: readonly (readonly string[])[] = [
  ["الأول", "الأولى", "الواحدة", "أول"],
  ["الثاني", "الثانية", "التاني", "التانية"],
  ["الثالث", "الثالثة", "التالت", "التالتة"],
  ["الرابع", "الرابعة"],
  ["الخامس", "الخامسة"],
  ["السادس", "السادسة"],
  ["السابع", "السابعة"],
  ["الثامن", "الثامنة", "التامن", "التامنة"],
  ["التاسع", "التاسعة"],
  ["العاشر", "العاشرة"],
];
const ORDINAL_TENS: readonly (readonly string[])[] = [
  ["العشرون", "العشرين"],
  ["الثلاثون", "الثلاثين", "التلاتين"],
  ["الأربعون", "الأربعين"],
  ["الخمسون", "الخمسين"],
  ["الستون", "الستين"],
  ["السبعون", "السبعين"],
  ["الثمانون", "الثمانين", "التمانين"],
  ["التسعون", "التسعين"],
];
const ordinals = new Map<string, { v: number; tens: boolean }>();
ORDINAL_UNITS.forEach((forms, k) => {
  for (const f of forms) ordinals.set(wordKey(f), { v: k + 1, tens: false });
});
ORDINAL_TENS.forEach((forms, k) => {
  for (const f of forms) ordinals.set(wordKey(f), { v: 20 + 10 * k, tens: true });
});
for (const f of ["الحادي", "الحادية"]) ordinals.set(wordKey(f), { v: 1, tens: false });

/** An ordinal word: 1–10 (`tens` false; «الحادي» is 1) or a tens ordinal 20–90. */
export function ordinalWord(key: string): { v: number; tens: boolean } | undefined {
  return ordinals.get(key);
}
