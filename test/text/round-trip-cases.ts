/**
 * Random written forms of the kinds Sawt's TTS front-end reads aloud (numbers, decimals,
 * negatives, percentages, phone and account numbers, money in each currency, dates, times), in the
 * canonical spelling inverse text normalisation writes, so that reading then ITN must give each
 * back character for character.
 */

/** A seeded uniform source in [0, 1). */
export type Random = () => number;

const int = (r: Random, lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));
const pick = <T>(r: Random, items: readonly T[]): T => items[Math.floor(r() * items.length)]!;
const digits = (r: Random, n: number): string => Array.from({ length: n }, () => String(int(r, 0, 9))).join("");
const pad2 = (n: number): string => String(n).padStart(2, "0");

/** Integers as written: plain below a million, grouped from a million (else they read as digits). */
export function writeInt(n: number): string {
  return n >= 1_000_000 ? n.toLocaleString("en-US") : String(n);
}

/** An integer of a random size (small ones more often, as in speech). */
function amount(r: Random): number {
  const size = pick(r, [1, 2, 2, 3, 3, 4, 5, 6, 7, 9, 12]);
  return int(r, size === 1 ? 0 : 10 ** (size - 1), 10 ** size - 1);
}

/** Each kind of case, with how many of every hundred it makes up. */
const KINDS: readonly [number, (r: Random, lang: "ar" | "en") => string][] = [
  [18, (r) => writeInt(amount(r))],
  [6, (r) => `-${writeInt(int(r, 1, 99999))}`],
  [8, (r) => `${int(r, 0, 9999)}.${digits(r, int(r, 1, 3))}`],
  [6, (r) => `${pick(r, ["", "-"])}${int(r, 0, 200)}${r() < 0.3 ? `.${int(r, 1, 9)}` : ""}%`],
  [14, (r) => phone(r)],
  [22, (r, lang) => money(r, lang)],
  [14, (r, lang) => date(r, lang)],
  [12, (r, lang) => time(r, lang)],
];
const TOTAL = KINDS.reduce((sum, [w]) => sum + w, 0);

function phone(r: Random): string {
  switch (int(r, 0, 4)) {
    case 0:
      return `05${digits(r, 8)}`;
    case 1:
      return `05${digits(r, 1)} ${digits(r, 3)} ${digits(r, 4)}`;
    case 2:
      return `+966 5${digits(r, 1)} ${digits(r, 3)} ${digits(r, 4)}`;
    case 3:
      return `01${pick(r, ["0", "1", "2", "5"])}${digits(r, 8)}`;
    default:
      return `${int(r, 1, 9)}${digits(r, int(r, 6, 15))}`;
  }
}

const AR_CURRENCIES = [
  ["ريال", 100],
  ["دولار", 100],
  ["جنيه", 100],
  ["درهم", 100],
  ["دينار", 1000],
  ["يورو", 100],
] as const;
const EN_CURRENCIES = [
  ["$", 100],
  ["€", 100],
  ["SAR ", 100],
  ["EGP ", 100],
  ["AED ", 100],
  ["KWD ", 1000],
] as const;

function money(r: Random, lang: "ar" | "en"): string {
  const [name, subunits] = lang === "ar" ? pick(r, AR_CURRENCIES) : pick(r, EN_CURRENCIES);
  const units = r() < 0.2 ? int(r, 1, 3) : Math.max(1, amount(r));
  const subs = r() < 0.5 ? 0 : int(r, 1, subunits - 1);
  const width = String(subunits).length - 1;
  const value = `${writeInt(units)}${subs === 0 ? "" : `.${String(subs).padStart(width, "0")}`}`;
  return lang === "ar" ? `${value} ${name}` : `${name}${value}`;
}

function date(r: Random, lang: "ar" | "en"): string {
  const [y, m, d] = [int(r, 1000, 2999), int(r, 1, 12), int(r, 1, 31)];
  return lang === "ar" ? `${d}/${m}/${y}` : `${y}-${pad2(m)}-${pad2(d)}`;
}

function time(r: Random, lang: "ar" | "en"): string {
  const h = int(r, 0, 23);
  const m = r() < 0.2 ? 0 : int(r, 1, 59);
  const s = r() < 0.25 ? `:${pad2(int(r, 1, 59))}` : "";
  const meridiem = r() < 0.3 ? (lang === "ar" ? pick(r, [" ص", " م"]) : pick(r, [" AM", " PM"])) : "";
  return `${h}:${pad2(m)}${s}${meridiem}`;
}

/** One random written form for `lang`. */
export function randomCase(r: Random, lang: "ar" | "en"): string {
  let roll = r() * TOTAL;
  for (const [weight, make] of KINDS) {
    if (roll < weight) return make(r, lang);
    roll -= weight;
  }
  return KINDS[0]![1](r, lang);
}
