/**
 * The Arabic number words written forms read, built from what the reader writes, so the two
 * cannot drift apart: every word of ./arabic-words.ts in each gender and case (as
 * ./arabic-cardinal.ts inflects them), each dialect's reading of them (./dialects.ts: «تلاتة»,
 * «تلتاشر», «تلتعش», «ميتين»), and the forms callers say that Sawt's reader never does (HEARD:
 * «ثنين», «ثلطعش», «ثلاث مية», «مائة»). Keys are folded with the text kit's `match` folding, as
 * ITN's words are (../itn/words.ts), so «مئة», «مائة» and «مية» all match.
 */
import { foldArabic } from "../arabic/fold.ts";
import { CONSTRUCT, oblique } from "./arabic-cardinal.ts";
import {
  DEFINITE,
  HUNDREDS,
  HUNDREDS_GENITIVE_200,
  ONE_FEMININE_COMPOUND,
  ONES_FEMININE,
  ONES_MASCULINE,
  ORDINAL_ONE_COMPOUND,
  ORDINALS,
  SCALES,
  TEEN_HEADS,
  TEEN_TEN,
  TENS,
} from "./arabic-words.ts";
import { DIALECT_READINGS, spokenForms } from "./dialects.ts";

/** What one number word is. */
export type NumberWord =
  /** 0–10; `digit` when it may be one digit of a phone or card number; `head` only before «عشر». */
  | { readonly t: "unit"; readonly v: number; readonly digit: boolean; readonly head?: boolean }
  /** A unit that only multiplies a following «مية» («تلت مية», «تمن مية»). */
  | { readonly t: "hundredUnit"; readonly v: number }
  | { readonly t: "teen"; readonly v: number }
  | { readonly t: "tens"; readonly v: number }
  /** 100–900; `bare` for «مية»/«مائة», which a unit before it multiplies. */
  | { readonly t: "hundreds"; readonly v: number; readonly bare?: boolean }
  /** 1000^k: `n` 1 singular, 2 dual, "pl" plural or accusative (after a count), "acc2" «ألفًا»/«ألفا» (either). */
  | { readonly t: "scale"; readonly v: number; readonly n: 1 | 2 | "pl" | "acc2" };

const key = (word: string) => foldArabic(word, "match");
const table = new Map<string, NumberWord>();
function add(word: NumberWord, ...spellings: readonly string[]): void {
  for (const s of spellings) table.set(key(s), word);
}

// What the reader writes: units in both genders and cases, the heads of 11 and 12, tens, hundreds
// (with the genitive and construct 200), and each scale noun in every form a count gives it.
for (let v = 0; v <= 10; v++) {
  const unit = { t: "unit", v, digit: v < 10 } as const;
  for (const word of [ONES_MASCULINE[v]!, ONES_FEMININE[v]!]) add(unit, word, oblique(word));
}
for (const [value, heads] of [
  [1, TEEN_HEADS[11]],
  [2, TEEN_HEADS[12]],
] as const)
  add({ t: "unit", v: value, digit: false, head: true }, ...heads.masculine, ...heads.feminine);
add({ t: "unit", v: 1, digit: false, head: true }, ONE_FEMININE_COMPOUND);
for (let k = 2; k <= 9; k++) add({ t: "tens", v: 10 * k }, TENS[k]!, oblique(TENS[k]!));
add({ t: "hundreds", v: 100, bare: true }, HUNDREDS[1]!);
const twoHundred = [HUNDREDS[2]!, HUNDREDS_GENITIVE_200];
add({ t: "hundreds", v: 200 }, ...twoHundred, ...twoHundred.map((w) => CONSTRUCT.get(w)!));
for (let k = 3; k <= 9; k++) add({ t: "hundreds", v: 100 * k }, HUNDREDS[k]!);
SCALES.slice(1).forEach((noun, k) => {
  const v = 1000 ** (k + 1);
  add({ t: "scale", v, n: 1 }, noun.singular);
  add({ t: "scale", v, n: 2 }, ...noun.dual, ...noun.dual.map((w) => CONSTRUCT.get(w)!));
  add({ t: "scale", v, n: "pl" }, noun.plural);
  // «ألفًا» (accusative, after 11–99) folds to «ألفا», the construct dual («ألفا ريال»): either.
  add({ t: "scale", v, n: "acc2" }, noun.accusative);
});

/**
 * What callers say that the reader never writes: older and colloquial spellings, Gulf and Hijazi
 * forms, the dialects' own teens and hundreds beyond the reader's table, scale variants.
 */
const HEARD: readonly (readonly [NumberWord, readonly string[]])[] = [
  [{ t: "unit", v: 1, digit: true }, ["وحدة"]],
  [{ t: "unit", v: 2, digit: true }, ["ثنين", "ثنتين", "ثنتان"]],
  [{ t: "unit", v: 8, digit: true }, ["ثمنية", "ثمان", "تماني"]],
  [{ t: "hundredUnit", v: 3 }, ["تلت", "ثلث"]],
  [{ t: "hundredUnit", v: 8 }, ["تمن", "ثمن"]],
  [{ t: "teen", v: 11 }, ["احداشر", "حدعش", "إحداعش"]],
  [{ t: "teen", v: 12 }, ["اطناشر", "اثنعش", "اتنعش", "ثنعش"]],
  [{ t: "teen", v: 13 }, ["تلطاشر", "ثلطعش", "ثلاثطعش", "ثلتعش"]],
  [{ t: "teen", v: 14 }, ["اربعطاشر", "اربعطعش"]],
  [{ t: "teen", v: 15 }, ["خمسطاشر", "خمسطعش"]],
  [{ t: "teen", v: 16 }, ["سطاشر", "سطعش"]],
  [{ t: "teen", v: 17 }, ["سبعطاشر", "سبعطعش"]],
  [{ t: "teen", v: 18 }, ["تمنطاشر", "ثمنطعش", "ثمنتعش"]],
  [{ t: "teen", v: 19 }, ["تسعطاشر", "تسعطعش"]],
  [{ t: "tens", v: 30 }, ["تلاثين"]],
  [{ t: "hundreds", v: 100, bare: true }, ["مائة"]],
  [{ t: "hundreds", v: 200 }, ["متين", "مائتان", "مائتين", "مائتا", "ميتان"]],
  [{ t: "hundreds", v: 300 }, ["ثلاثمائة", "تلاتمية", "ثلثمية", "ثلاثمية", "تلتميت"]],
  [{ t: "hundreds", v: 400 }, ["أربعمائة", "أربعمية", "ربعمية"]],
  [{ t: "hundreds", v: 500 }, ["خمسمائة", "خمسمية", "خومسمية"]],
  [{ t: "hundreds", v: 600 }, ["ستمائة", "ستمية"]],
  [{ t: "hundreds", v: 700 }, ["سبعمائة", "سبعمية"]],
  [{ t: "hundreds", v: 800 }, ["ثمانمائة", "تمانمية", "ثمنمية", "ثمانمية"]],
  [{ t: "hundreds", v: 900 }, ["تسعمائة", "تسعمية"]],
  [{ t: "scale", v: 1000, n: "pl" }, ["تلاف", "ألوف"]],
  [{ t: "scale", v: 1e9, n: 1 }, ["بليون"]],
  [{ t: "scale", v: 1e9, n: 2 }, ["مليلري"]],
];
for (const [word, spellings] of HEARD) add(word, ...spellings);

// Each dialect's reading gets the entry of the MSA word it replaces; a teen («ثلاثة عشر» →
// «تلتاشر») is the unit before the ten word plus ten. Readings of other words are no numbers.
for (const readings of Object.values(DIALECT_READINGS))
  for (const [msa, spoken] of Object.entries(readings ?? {})) {
    const [first, ten, ...rest] = msa.split(" ");
    const entry = table.get(key(first!));
    if (ten === undefined) {
      if (entry) table.set(key(spoken), entry);
    } else if (entry?.t === "unit" && rest.length === 0 && Object.values(TEEN_TEN).includes(ten as "عشر"))
      table.set(key(spoken), { t: "teen", v: 10 + entry.v });
  }

/** The number word a folded key names. */
export function numberWord(folded: string): NumberWord | undefined {
  return table.get(folded);
}

/** Proclitics that may stand before a number word: «و» (and), «ب» (with/for). */
const PROCLITICS = ["و", "ب"];

/** A key's number word and the proclitic written before it («وخمسين» → «و» + 50). */
export function numberWordWithClitic(folded: string): { word: NumberWord; clitic: string } | undefined {
  const word = table.get(folded);
  if (word) return { word, clitic: "" };
  for (const c of PROCLITICS) {
    if (folded.length > c.length + 1 && folded.startsWith(c)) {
      const rest = table.get(folded.slice(c.length));
      if (rest) return { word: rest, clitic: c };
    }
  }
  return undefined;
}

/** The number word after a leading «و» («وأحد» folds to «واحد», so this is asked apart). */
export function numberWordAfterAnd(folded: string): NumberWord | undefined {
  return folded.length > 2 && folded.startsWith("و") ? table.get(folded.slice(1)) : undefined;
}

const ordinals = new Map<string, { v: number; tens: boolean }>();
/** `masculine` and its feminine («الأول» → «الأولى», «الثالث» → «الثالثة»), in each dialect's reading. */
function addOrdinal(masculine: string, entry: { v: number; tens: boolean }): void {
  for (const form of spokenForms(masculine)) {
    ordinals.set(key(form), entry);
    if (!entry.tens) ordinals.set(key(form === ORDINALS[1] ? `${form}ى` : `${form}ة`), entry);
  }
}
// The reader's day ordinals 1–10 and «الحادي» (11th, 21st); tens ordinals in both cases, and the
// dialect readings of the tens words with the article («التلاتين»).
ORDINALS.slice(1).forEach((word, k) => addOrdinal(word, { v: k + 1, tens: false }));
addOrdinal(ORDINAL_ONE_COMPOUND, { v: 1, tens: false });
for (let k = 2; k <= 9; k++)
  for (const word of [TENS[k]!, oblique(TENS[k]!)])
    for (const form of spokenForms(word)) ordinals.set(key(DEFINITE + form), { v: 10 * k, tens: true });
// Heard: «الواحدة» (the hour one), «أول» (the first of a month), Egyptian «التاني».
for (const [word, v] of [
  ["الواحدة", 1],
  ["أول", 1],
  ["التاني", 2],
  ["التانية", 2],
] as const)
  ordinals.set(key(word), { v, tens: false });

/** An ordinal word: 1–10 (`tens` false; «الحادي» is 1) or a tens ordinal 20–90. */
export function ordinalWord(folded: string): { v: number; tens: boolean } | undefined {
  return ordinals.get(folded);
}
