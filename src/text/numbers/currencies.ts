/**
 * THE currency table: the currencies a Gulf/Egypt call centre mentions, with the spellings that
 * select them in a prompt, the words each language reads (the TTS reader counts with them) and how
 * a written form names them (ITN reads the same words back: ../itn/arabic-names.ts, ../itn/english.ts).
 * Arabic nouns carry every form the counting rules need; all main units and most subunits are
 * masculine, the halala is feminine.
 */
import type { ArabicNoun } from "./arabic-words.ts";

/** A currency unit and its subunit. */
export interface Currency {
  /** ISO 4217 code. */
  readonly code: string;
  /** Spellings in text, matched as whole words (case-insensitive for Latin). */
  readonly aliases: readonly string[];
  /** Spellings that may also come before the amount ("SAR 20", "$5"). */
  readonly prefixes: readonly string[];
  readonly ar: ArabicNoun;
  readonly arSub: ArabicNoun;
  /** English singular and plural, e.g. ["riyal", "riyals"]. */
  readonly en: readonly [string, string];
  /**
   * The symbol an English written form puts before the amount ("$12.50"); without one, the code
   * and a space ("SAR 12.50"). Arabic written forms name the currency after it: "12.50 ريال".
   */
  readonly symbol?: string;
  readonly enSub: readonly [string, string];
  /** Subunits per unit (100, or 1000 for the Kuwaiti fils). */
  readonly subunits: number;
}

function noun(singular: string, dualStem: string, plural: string, accusative: string, feminine = false): ArabicNoun {
  return { singular, dual: [`${dualStem}ان`, `${dualStem}ين`], plural, accusative, feminine };
}

const FILS = noun("فلس", "فلس", "فلوس", "فلسًا");
const CENT = noun("سنت", "سنت", "سنتات", "سنتًا");

/** The currency table, first match wins. */
export const CURRENCIES: readonly Currency[] = [
  {
    code: "SAR",
    aliases: ["ريالات", "ريالًا", "ريالاً", "ريالا", "ريال", "ر.س", "ر. س", "SAR", "riyals", "riyal", "SR"],
    prefixes: ["SAR", "SR"],
    ar: noun("ريال", "ريال", "ريالات", "ريالًا"),
    arSub: noun("هللة", "هللت", "هللات", "هللة", true),
    en: ["riyal", "riyals"],
    enSub: ["halala", "halalas"],
    subunits: 100,
  },
  {
    code: "USD",
    aliases: ["دولارات", "دولارًا", "دولاراً", "دولارا", "دولار", "USD", "US$", "$", "dollars", "dollar"],
    prefixes: ["USD", "US$", "$"],
    ar: noun("دولار", "دولار", "دولارات", "دولارًا"),
    arSub: CENT,
    en: ["dollar", "dollars"],
    symbol: "$",
    enSub: ["cent", "cents"],
    subunits: 100,
  },
  {
    code: "EGP",
    aliases: ["جنيهات", "جنيهًا", "جنيهاً", "جنيها", "جنيه", "ج.م", "EGP", "LE", "pounds", "pound"],
    prefixes: ["EGP", "LE"],
    ar: noun("جنيه", "جنيه", "جنيهات", "جنيهًا"),
    arSub: noun("قرش", "قرش", "قروش", "قرشًا"),
    en: ["pound", "pounds"],
    enSub: ["piastre", "piastres"],
    subunits: 100,
  },
  {
    code: "AED",
    aliases: ["دراهم", "درهمًا", "درهماً", "درهما", "درهم", "د.إ", "AED", "dirhams", "dirham"],
    prefixes: ["AED"],
    ar: noun("درهم", "درهم", "دراهم", "درهمًا"),
    arSub: FILS,
    en: ["dirham", "dirhams"],
    enSub: ["fils", "fils"],
    subunits: 100,
  },
  {
    code: "KWD",
    aliases: ["دنانير", "دينارًا", "ديناراً", "دينارا", "دينار", "د.ك", "KWD", "dinars", "dinar"],
    prefixes: ["KWD"],
    ar: noun("دينار", "دينار", "دنانير", "دينارًا"),
    arSub: FILS,
    en: ["dinar", "dinars"],
    enSub: ["fils", "fils"],
    subunits: 1000,
  },
  {
    code: "EUR",
    aliases: ["يورو", "EUR", "€", "euros", "euro"],
    prefixes: ["EUR", "€"],
    // The euro is indeclinable in Arabic usage ("عشرون يورو"); its dual is said with the number.
    ar: { singular: "يورو", dual: ["اثنان يورو", "اثنين يورو"], plural: "يورو", accusative: "يورو", feminine: false },
    arSub: CENT,
    en: ["euro", "euros"],
    symbol: "€",
    enSub: ["cent", "cents"],
    subunits: 100,
  },
];
