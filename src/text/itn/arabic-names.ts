/**
 * The Arabic nouns around numbers, read: currencies and their subunits in every form the TTS
 * reader counts them (the currency table, ../numbers/currencies.ts: singular, dual, plural,
 * accusative) plus the Levantine lira, and the month names of ../numbers/arabic-calendar.ts.
 */
import { GREGORIAN_MONTHS, HIJRI_MONTHS } from "../numbers/arabic-calendar.ts";
import type { ArabicNoun } from "../numbers/arabic-words.ts";
import { CURRENCIES } from "../numbers/currencies.ts";
import { wordKey } from "./words.ts";

/** Spellings of a currency's singular that callers (and recognisers) write beside the table's. */
const HEARD_SPELLINGS: Readonly<Record<string, string[]>> = { EGP: ["جنية"] };

/** A currency as Arabic speech names it. */
export interface ArabicCurrency {
  /** How the written form names it, after the amount. */
  readonly written: string;
  /** Subunits per unit (1000 for the Kuwaiti dinar's fils). */
  readonly subunits: number;
  /** The subunit's singular («هللة»), which names it in the subunit table. */
  readonly sub: string;
}

/** One form of a currency or subunit word: which one, and its number when the form says it. */
export interface CurrencyForm<T> {
  readonly of: T;
  /** 1 for a singular after which «واحد» may follow, 2 for a dual, undefined for counted forms. */
  readonly n?: 1 | 2;
}

const currencies = new Map<string, CurrencyForm<ArabicCurrency>>();
const subunits = new Map<string, CurrencyForm<string>>();

function forms<T>(map: Map<string, CurrencyForm<T>>, of: T, singular: string[], dual: string[], other: string[]): void {
  for (const s of other) map.set(wordKey(s), { of });
  for (const s of dual) map.set(wordKey(s), { of, n: 2 });
  for (const s of singular) map.set(wordKey(s), { of, n: 1 });
}

/** A noun's singular, dual (a one-word dual only: the euro's is «اثنان يورو») and counted forms. */
function nounForms<T>(map: Map<string, CurrencyForm<T>>, of: T, noun: ArabicNoun, heard: string[] = []): void {
  const dual = noun.dual.filter((w) => !w.includes(" "));
  forms(map, of, [noun.singular, ...heard], dual, [noun.plural, noun.accusative]);
}

// The currency table the reader counts with (its Arabic nouns and subunit nouns), written after the
// amount by its singular; a subunit is known by its singular («هللة»), which currencies share.
for (const currency of CURRENCIES) {
  const of = { written: currency.ar.singular, subunits: currency.subunits, sub: currency.arSub.singular };
  nounForms(currencies, of, currency.ar, HEARD_SPELLINGS[currency.code]);
  nounForms(subunits, currency.arSub.singular, currency.arSub);
}
// Heard, not in the reader's table: the Levantine lira (Lebanese, Syrian; its piastre is «قرش»).
forms(currencies, { written: "ليرة", subunits: 100, sub: "قرش" }, ["ليرة"], ["ليرتان", "ليرتين"], ["ليرات"]);

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
function month(names: readonly (readonly string[])[], hijri: boolean): void {
  names.forEach((spellings, k) => {
    for (const name of spellings) months.set(wordKey(name), { month: k + 1, hijri, words: name.split(" ").length });
  });
}
month(GREGORIAN_MONTHS, false);
month(HIJRI_MONTHS, true);

/** The month named at word `i` (one or two words), if any. */
export function monthAt(words: readonly { readonly key: string }[], i: number): Month | undefined {
  const two = i + 1 < words.length ? months.get(`${words[i]!.key} ${words[i + 1]!.key}`) : undefined;
  return two ?? (words[i] ? months.get(words[i]!.key) : undefined);
}
