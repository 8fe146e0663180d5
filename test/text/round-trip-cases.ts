/**
 * Random numbers, amounts, dates, times and phones of every kind Sawt's TTS front-end reads aloud
 * (integers to fifteen digits, decimals, negatives, percentages, phone and account numbers, money
 * in each currency and under one unit, dates, times), each as a prompt author may type it
 * (`written`: "05/03/2024", "SAR 20", "12.5 ريال", "09:05", "050-123-4567") and in the written form
 * inverse text normalisation gives back (`expected`, docs/transcripts.md: "5/3/2024", "20 ريال",
 * "12.50 ريال", "9:05", "050 123 4567").
 */

/** A seeded uniform source in [0, 1). */
export type Random = () => number;

/** One case: what the prompt says and the written form ITN must give for its reading. */
export interface RoundTripCase {
  readonly kind: string;
  readonly written: string;
  readonly expected: string;
}

const int = (r: Random, lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));
const pick = <T>(r: Random, items: readonly T[]): T => items[Math.floor(r() * items.length)]!;
const digits = (r: Random, n: number): string => Array.from({ length: n }, () => String(int(r, 0, 9))).join("");
const pad2 = (n: number): string => String(n).padStart(2, "0");
const same = (kind: string, text: string): RoundTripCase => ({ kind, written: text, expected: text });

/** Integers as written: plain below a million, grouped from a million (else they read as digits). */
export function writeInt(n: number): string {
  return n >= 1_000_000 ? n.toLocaleString("en-US") : String(n);
}

/** An integer of a random size (small ones more often, as in speech), up to fifteen digits. */
function amount(r: Random): number {
  const size = pick(r, [1, 2, 2, 3, 3, 4, 5, 6, 7, 9, 12, 15]);
  return int(r, size === 1 ? 0 : 10 ** (size - 1), 10 ** size - 1);
}

function integer(r: Random): RoundTripCase {
  const n = amount(r);
  // Below a million a thousands comma is optional; the written form has none.
  if (n >= 1000 && n < 1_000_000 && r() < 0.3)
    return { kind: "integer", written: n.toLocaleString("en-US"), expected: String(n) };
  return same("integer", writeInt(n));
}

function decimal(r: Random): RoundTripCase {
  const sign = r() < 0.2 ? "-" : "";
  return same("decimal", `${sign}${int(r, 0, 9999)}.${digits(r, int(r, 1, 3))}`);
}

function percent(r: Random): RoundTripCase {
  const value = `${int(r, 0, 200)}${r() < 0.3 ? `.${int(r, 1, 9)}` : ""}`;
  if (r() < 0.15) return { kind: "percent", written: `%${value}`, expected: `${value}%` };
  return same("percent", `${pick(r, ["", "-"])}${value}%`);
}

function phone(r: Random): RoundTripCase {
  switch (int(r, 0, 5)) {
    case 0:
      return same("phone", `05${digits(r, 8)}`);
    case 1:
      return same("phone", `05${digits(r, 1)} ${digits(r, 3)} ${digits(r, 4)}`);
    case 2:
      return same("phone", `+966 5${digits(r, 1)} ${digits(r, 3)} ${digits(r, 4)}`);
    case 3:
      return same("phone", `01${pick(r, ["0", "1", "2", "5"])}${digits(r, 8)}`);
    case 4: {
      const groups = [`05${digits(r, 1)}`, digits(r, 3), digits(r, 4)];
      return { kind: "phone", written: groups.join("-"), expected: groups.join(" ") };
    }
    default:
      return same("phone", `${int(r, 1, 9)}${digits(r, int(r, 6, 15))}`);
  }
}

/** [Arabic name, English written prefix, ISO code, subunits per unit, Arabic subunit]. */
const CURRENCIES = [
  ["ريال", "SAR ", "SAR", 100, "هللة"],
  ["دولار", "$", "USD", 100, "سنت"],
  ["جنيه", "EGP ", "EGP", 100, "قرش"],
  ["درهم", "AED ", "AED", 100, "فلس"],
  ["دينار", "KWD ", "KWD", 1000, "فلس"],
  ["يورو", "€", "EUR", 100, "سنت"],
] as const;

function money(r: Random, lang: "ar" | "en"): RoundTripCase {
  const [name, prefix, code, subunits, subName] = pick(r, CURRENCIES);
  const width = String(subunits).length - 1;
  const sign = r() < 0.1 ? "-" : "";
  const subs = r() < 0.5 ? 0 : int(r, 1, subunits - 1);
  if (lang === "ar" && r() < 0.08 && subs > 0 && sign === "") {
    // Under one unit: said in the subunit alone, written so (the currency is not said).
    const written = `0.${String(subs).padStart(width, "0")} ${name}`;
    return { kind: "money", written, expected: `${subs} ${subName}` };
  }
  const units = r() < 0.2 ? int(r, 1, 3) : Math.max(1, Math.min(amount(r), 10 ** 12));
  const value = `${writeInt(units)}${subs === 0 ? "" : `.${String(subs).padStart(width, "0")}`}`;
  const expected = lang === "ar" ? `${sign}${value} ${name}` : `${sign}${prefix}${value}`;
  // A fraction with a trailing zero may be typed short ("12.5"); a code may stand first in Arabic.
  const short = subs > 0 && subs % 10 === 0 && width === 2 && r() < 0.3 ? value.slice(0, -1) : value;
  const written =
    lang === "ar" ? (r() < 0.15 ? `${sign}${code} ${short}` : `${sign}${short} ${name}`) : `${sign}${prefix}${short}`;
  return { kind: "money", written, expected };
}

function date(r: Random, lang: "ar" | "en"): RoundTripCase {
  const [y, m, d] = [int(r, 1000, 2999), int(r, 1, 12), int(r, 1, 31)];
  const expected = lang === "ar" ? `${d}/${m}/${y}` : `${y}-${pad2(m)}-${pad2(d)}`;
  const sep = pick(r, ["/", "-", "."]);
  // Day first (as Saudi and Egyptian usage writes it) or ISO, padded or not.
  const written = pick(r, [
    `${d}/${m}/${y}`,
    `${pad2(d)}${sep}${pad2(m)}${sep}${y}`,
    `${y}-${pad2(m)}-${pad2(d)}`,
    `${y}/${m}/${d}`,
  ]);
  return { kind: "date", written, expected };
}

function time(r: Random, lang: "ar" | "en"): RoundTripCase {
  const h = int(r, 0, 23);
  const m = r() < 0.2 ? 0 : int(r, 1, 59);
  const s = r() < 0.25 ? `:${pad2(int(r, 1, 59))}` : "";
  const pm = r() < 0.5;
  const marked = r() < 0.3;
  const meridiem = !marked ? "" : lang === "ar" ? (pm ? " م" : " ص") : pm ? " PM" : " AM";
  const expected = `${h}:${pad2(m)}${s}${meridiem}`;
  // An hour may be typed with a leading zero; an Arabic prompt may mark the time AM/PM.
  const hour = h < 10 && r() < 0.3 ? pad2(h) : String(h);
  const typed = marked && lang === "ar" && r() < 0.3 ? (pm ? " PM" : " AM") : meridiem;
  return { kind: "time", written: `${hour}:${pad2(m)}${s}${typed}`, expected };
}

/** Each kind of case, with how many of every hundred it makes up. */
const KINDS: readonly [number, (r: Random, lang: "ar" | "en") => RoundTripCase][] = [
  [18, integer],
  [8, decimal],
  [6, (r) => same("negative", `-${writeInt(int(r, 1, 99999))}`)],
  [6, percent],
  [14, phone],
  [22, money],
  [14, date],
  [12, time],
];
const TOTAL = KINDS.reduce((sum, [w]) => sum + w, 0);

/** One random case for `lang`. */
export function randomCase(r: Random, lang: "ar" | "en"): RoundTripCase {
  let roll = r() * TOTAL;
  for (const [weight, make] of KINDS) {
    if (roll < weight) return make(r, lang);
    roll -= weight;
  }
  return KINDS[0]![1](r, lang);
}
