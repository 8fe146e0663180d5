/**
 * The Arabic nouns around numbers: currencies and their subunits in every form the TTS front-end
 * counts them (src/text/numbers/currencies.ts: singular, dual, plural, accusative) plus the
 * Levantine lira, and the Gregorian (Gulf/Egyptian and Levantine) and Hijri month names.
 */
import { wordKey } from "./words.ts";

/** A currency as Arabic speech names it. */
export interface ArabicCurrency {
  /** How the written form names it, after the amount. */
  readonly written: string;
  /** Subunits per unit (1000 for the Kuwaiti dinar's fils). */
  readonly subunits: number;
  /** The subunit's id (a key of the subunit table). */
  readonly sub: string;
}

/** One form of a currency or subunit word: which one, and its number when the form says it. */
export interface CurrencyForm<T> {
  readonly of: T;
  /** 1 for a singular after which «واحد» may follow, 2 for a dual, undefined for counted forms. */
  readonly n?: 1 | 2;
}

const SAR: ArabicCurrency = { written: "ريال", subunits: 100, sub: "halala" };
const USD: ArabicCurrency = { written: "دولار", subunits: 100, sub: "cent" };
const EGP: ArabicCurrency = { written: "جنيه", subunits: 100, sub: "piastre" };
const AED: ArabicCurrency = { written: "درهم", subunits: 100, sub: "fils" };
const KWD: ArabicCurrency = { written: "دينار", subunits: 1000, sub: "fils" };
const EUR: ArabicCurrency = { written: "يورو", subunits: 100, sub: "cent" };
const LIRA: ArabicCurrency = { written: "ليرة", subunits: 100, sub: "piastre" };

const currencies = new Map<string, CurrencyForm<ArabicCurrency>>();
const subunits = new Map<string, CurrencyForm<string>>();

function forms<T>(map: Map<string, CurrencyForm<T>>, of: T, singular: string[], dual: string[], other: string[]): void {
  for (const s of singular) map.set(wordKey(s), { of, n: 1 });
  for (const s of dual) map.set(wordKey(s), { of, n: 2 });
  for (const s of other) map.set(wordKey(s), { of });
}

forms(currencies, SAR, ["ريال"], ["ريالان", "ريالين"], ["ريالات", "ريالًا", "ريالا"]);
forms(currencies, USD, ["دولار"], ["دولاران", "دولارين"], ["دولارات", "دولارًا", "دولارا"]);
forms(currencies, EGP, ["جنيه", "جنية"], ["جنيهان", "جنيهين"], ["جنيهات", "جنيهًا", "جنيها"]);
forms(currencies, AED, ["درهم"], ["درهمان", "درهمين"], ["دراهم", "درهمًا", "درهما"]);
forms(currencies, KWD, ["دينار"], ["ديناران", "دينارين"], ["دنانير", "دينارًا", "دينارا"]);
forms(currencies, EUR, ["يورو"], [], []);
forms(currencies, LIRA, ["ليرة"], ["ليرتان", "ليرتين"], ["ليرات"]);

forms(subunits, "halala", ["هللة"], ["هللتان", "هللتين"], ["هللات"]);
forms(subunits, "piastre", ["قرش"], ["قرشان", "قرشين"], ["قروش", "قرشًا", "قرشا"]);
forms(subunits, "fils", ["فلس"], ["فلسان", "فلسين"], ["فلوس", "فلسًا", "فلسا"]);
forms(subunits, "cent", ["سنت"], ["سنتان", "سنتين"], ["سنتات", "سنتًا", "سنتا"]);

/** The currency a folded word names, in which form. */
export function arabicCurrency(key: string): CurrencyForm<ArabicCurrency> | undefined {
  return currencies.get(key);
}

/** The subunit a folded word names (its id), in which form. */
export function arabicSubunit(key: string): CurrencyForm<string> | undefined {
  return subunits.get(key);
}

/** A month name: its number and calendar. */
export interface Month {
  readonly month: number;
  readonly hijri: boolean;
  /** Words the name takes (two for «ربيع الأول», «كانون الثاني»). */
  readonly words: number;
}

const months = new Map<string, Month>();
function month(names: readonly string[], hijri: boolean): void {
  names.forEach((spellings, k) => {
    for (const name of spellings.split("|")) {
      months.set(wordKey(name), { month: k + 1, hijri, words: name.split(" ").length });
    }
  });
}
month(
  [
    "يناير|كانون الثاني",
    "فبراير|شباط",
    "مارس|آذار",
    "أبريل|ابريل|إبريل|نيسان",
    "مايو|أيار|ايار",
    "يونيو|يونيه|حزيران",
    "يوليو|يوليه|تموز",
    "أغسطس|اغسطس|آب",
    "سبتمبر|أيلول|ايلول",
    "أكتوبر|اكتوبر|تشرين الأول",
    "نوفمبر|تشرين الثاني",
    "ديسمبر|كانون الأول",
  ],
  false,
);
month(
  [
    "محرم|المحرم",
    "صفر",
    "ربيع الأول|ربيع الاول",
    "ربيع الآخر|ربيع الثاني|ربيع التاني",
    "جمادى الأولى|جمادى الاولى|جماد الأول",
    "جمادى الآخرة|جمادى الثانية|جمادى الاخرة",
    "رجب",
    "شعبان",
    "رمضان",
    "شوال",
    "ذو القعدة|ذي القعدة",
    "ذو الحجة|ذي الحجة",
  ],
  true,
);

/** The month named at word `i` (one or two words), if any. */
export function monthAt(words: readonly { readonly key: string }[], i: number): Month | undefined {
  const two = i + 1 < words.length ? months.get(`${words[i]!.key} ${words[i + 1]!.key}`) : undefined;
  return two ?? (words[i] ? months.get(words[i]!.key) : undefined);
}
