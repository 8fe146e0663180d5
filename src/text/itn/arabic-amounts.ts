/**
 * Arabic amounts: plain and decimal numbers, money (the count before the currency word in any
 * case, «ريال واحد», the dual «ريالان», «مئة ريال وريال», then «و» + subunits or «ونص»), and
 * percentages («بالمئة», «بالمية», «في المية»). The written forms are what the TTS front-end reads
 * back the same way: "12.50 ريال", "1,500,000 دولار", "15%", "3.05".
 */
import { arabicCardinal, arabicFraction } from "./arabic-numbers.ts";
import { type ArabicCurrency, arabicCurrency, arabicSubunit } from "./arabic-names.ts";
import { ONES_FEMININE, ONES_MASCULINE, PHRASE } from "../numbers/arabic-words.ts";
import { joinable, type Match, type Word, wordKey, writeAmount, writeInteger } from "./words.ts";

/** A number as spoken: its integer, the fraction digits after «فاصلة», where it ends, its proclitic. */
export interface Amount {
  readonly units: number;
  readonly frac?: string;
  readonly end: number;
  readonly clitic: string;
}

/** The reader's words (../numbers/arabic-words.ts) and what callers say besides. */
const keys = (...words: string[]) => new Set(words.map(wordKey));
const POINT = keys(PHRASE.point, "فاصل");
const HALF = new Set(["ونص", "ونصف", "والنص", "والنصف"]);
const PERCENT = keys(PHRASE.percent, "بالمية", "بالماية", "%");
/** «واحد»/«واحدة» after a singular noun: «ريال واحد», «هللة واحدة». */
const ONE = keys(ONES_MASCULINE[1]!, ONES_FEMININE[1]!);

/** A cardinal, optionally with «فاصلة» and a fraction. */
export function arabicAmount(words: readonly Word[], i: number): Amount | undefined {
  const n = arabicCardinal(words, i);
  if (!n) return undefined;
  if (joinable(words, n.end - 1) && POINT.has(words[n.end]?.key ?? "") && joinable(words, n.end)) {
    const frac = arabicFraction(words, n.end + 1);
    if (frac) return { units: n.value, frac: frac.digits, end: frac.end, clitic: n.clitic };
  }
  return { units: n.value, end: n.end, clitic: n.clitic };
}

/** The written amount: integer (grouped from a million) and the fraction as spoken. */
export function writeDecimal(a: Pick<Amount, "units" | "frac">): string {
  return a.frac === undefined ? writeInteger(a.units) : `${writeInteger(a.units)}.${a.frac}`;
}

/** Subunits after «و» at `pos` for `currency`: «وخمسون هللة», «وهللة واحدة», «وهللتان», «ونص». */
function subunitsAt(words: readonly Word[], pos: number, currency: ArabicCurrency) {
  const key = words[pos]?.key ?? "";
  if (HALF.has(key)) return { subs: currency.subunits / 2, end: pos + 1 };
  if (key.startsWith("و")) {
    const form = arabicSubunit(key.slice(1));
    if (form?.of === currency.sub && form.n === 2) return { subs: 2, end: pos + 1 };
    if (form?.of === currency.sub && form.n === 1 && joinable(words, pos) && ONE.has(words[pos + 1]?.key ?? ""))
      return { subs: 1, end: pos + 2 };
  }
  const n = arabicCardinal(words, pos, true);
  if (!n || !joinable(words, n.end - 1)) return undefined;
  const form = arabicSubunit(words[n.end]?.key ?? "");
  if (form?.of !== currency.sub || form.n === 2) return undefined;
  // «ستمئة فلس وفلس» (601 fils), «وفلسان» (602): the subunit said again after a round hundred.
  const next = joinable(words, n.end) ? (words[n.end + 1]?.key ?? "") : "";
  const again = n.value % 100 === 0 && next.startsWith("و") ? arabicSubunit(next.slice(1)) : undefined;
  if (again?.of === currency.sub && again.n !== undefined) return { subs: n.value + again.n, end: n.end + 2 };
  return { subs: n.value, end: n.end + 1 };
}

/** The money written form, or undefined when `subs` does not fit the currency. */
function money(units: number, subs: number | undefined, currency: ArabicCurrency, end: number): Match | undefined {
  if (subs !== undefined && (subs <= 0 || subs >= currency.subunits)) return undefined;
  return { text: `${writeAmount(units, subs, currency.subunits)} ${currency.written}`, end, kind: "money" };
}

/** Everything after the currency word: «وريال» (x00 + 1), then subunits. */
function afterCurrency(words: readonly Word[], units: number, pos: number, currency: ArabicCurrency): Match {
  let end = pos;
  let total = units;
  if (units >= 100 && units % 100 === 0 && joinable(words, end - 1) && words[end]?.key.startsWith("و")) {
    const again = arabicCurrency(words[end]!.key.slice(1));
    // «وريال», «وريالان»; the euro has no dual: «واثنان يورو».
    const count = arabicCardinal(words, end, true);
    if (again?.of === currency && again.n !== undefined) {
      total += again.n;
      end++;
    } else if (count && count.value <= 2 && joinable(words, count.end - 1)) {
      const noun = arabicCurrency(words[count.end]?.key ?? "");
      if (noun?.of === currency) {
        total += count.value;
        end = count.end + 1;
      }
    }
  }
  if (joinable(words, end - 1)) {
    const sub = subunitsAt(words, end, currency);
    const written = sub && money(total, sub.subs, currency, sub.end);
    if (written) return written;
  }
  return money(total, undefined, currency, end)!;
}

/**
 * An amount under one unit, said in its subunit alone («خمسون هللة», «عشرون فلسًا», «ثمانمئة فلس
 * وفلس»): written with the subunit's singular, as an amount is with its currency's ("20 فلس").
 */
function subunitsAlone(words: readonly Word[], a: Amount, sub: string): Match {
  let count = a.units;
  let end = a.end + 1;
  const next = joinable(words, a.end) ? (words[end]?.key ?? "") : "";
  const again = count % 100 === 0 && next.startsWith("و") ? arabicSubunit(next.slice(1)) : undefined;
  if (again?.of === sub && again.n !== undefined) {
    count += again.n;
    end++;
  }
  return { text: `${a.clitic}${writeInteger(count)} ${sub}`, end, kind: "money" };
}

/** An amount followed by a currency or a percent word; plain amounts are left to the caller. */
export function arabicAmountPhrase(words: readonly Word[], i: number): Match | undefined {
  const a = arabicAmount(words, i);
  if (!a || !joinable(words, a.end - 1)) return undefined;
  const next = words[a.end]!.key;
  const currency = arabicCurrency(next);
  if (currency && currency.n !== 2) {
    if (a.frac !== undefined)
      return { text: `${writeDecimal(a)} ${currency.of.written}`, end: a.end + 1, kind: "money" };
    const m = afterCurrency(words, a.units, a.end + 1, currency.of);
    return { ...m, text: a.clitic + m.text };
  }
  const sub = a.frac === undefined ? arabicSubunit(next) : undefined;
  if (sub && sub.n !== 2) return subunitsAlone(words, a, sub.of);
  if (PERCENT.has(next)) return { text: `${a.clitic}${writeDecimal(a)}%`, end: a.end + 1, kind: "percent" };
  if (next === "في" && joinable(words, a.end) && /^ال(ميه|مايه)$/.test(words[a.end + 1]?.key ?? ""))
    return { text: `${a.clitic}${writeDecimal(a)}%`, end: a.end + 2, kind: "percent" };
  return undefined;
}

/**
 * The currency word first: «ريال واحد» (1), «ريالان» (2), each with its subunits; or a subunit
 * alone: «هللة واحدة» → "1 هللة", «هللتان» → "2 هللة".
 */
export function arabicNounFirstMoney(words: readonly Word[], i: number): Match | undefined {
  const form = arabicCurrency(words[i]!.key);
  if (!form?.n) {
    const sub = arabicSubunit(words[i]!.key);
    if (sub?.n === 2) return { text: `2 ${sub.of}`, end: i + 1, kind: "money" };
    if (sub?.n === 1 && joinable(words, i) && ONE.has(words[i + 1]?.key ?? ""))
      return { text: `1 ${sub.of}`, end: i + 2, kind: "money" };
    return undefined;
  }
  if (form.n === 2) return afterCurrency(words, 2, i + 1, form.of);
  if (joinable(words, i) && ONE.has(words[i + 1]?.key ?? "")) return afterCurrency(words, 1, i + 2, form.of);
  return undefined;
}
