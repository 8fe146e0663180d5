/**
 * The fuzzer's seeded randomness: one mulberry32 stream per run, so a seed printed by a failing
 * run reproduces every request it made (the order of concurrent replies does not matter: each
 * request is drawn from the stream before it is sent).
 */

/** A seeded source of random choices. */
export class Random {
  private state: number;

  constructor(readonly seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  /** One element of `items`. */
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** `length` random bytes. */
  bytes(length: number): Uint8Array {
    const out = new Uint8Array(length);
    for (let i = 0; i < length; i++) out[i] = Math.floor(this.next() * 256);
    return out;
  }

  /** A string of `length` code points drawn from `alphabet`. */
  text(length: number, alphabet: readonly string[] = TEXT_ALPHABET): string {
    let out = "";
    for (let i = 0; i < length; i++) out += this.pick(alphabet);
    return out;
  }
}

/** Characters that matter to a speech front end and a content filter. */
export const TEXT_ALPHABET: readonly string[] = [
  ..."مرحبا بكم في خدمة العملاء شكرا",
  ..."hello world 0123456789 .,;:!?",
  "<",
  ">",
  "/",
  "{",
  "}",
  "$",
  "%",
  "&",
  "'",
  '"',
  "\\",
  "\n",
  "\t",
  "\r",
  "\u0000",
  "\u0007",
  "\u001b",
  "\u007f",
  "\u0085",
  "\u200e",
  "\u200f",
  "\u202e",
  "\u2066",
  "\ufeff",
  "\ud800",
  "\udc00",
  "😀",
  "ﷺ",
  "٣",
  "ً",
  "ّ",
  "＜",
];

/** Whole strings worth trying in any text field. */
export const NASTY_STRINGS: readonly string[] = [
  "",
  " ",
  "null",
  "undefined",
  "NaN",
  "-1",
  "1e309",
  "0x10",
  "../../etc/passwd",
  "%00",
  "%s%n",
  "<script>alert(1)</script>",
  "{{7*7}}",
  "${jndi:ldap://x}",
  "javascript:alert(1)",
  "' OR 1=1 --",
  "مرحبا",
  "\u202eabc",
  "\ud800",
  "a".repeat(300),
  "ar-egyptian",
  "ar-gulf",
  "ar-msa",
  "yara",
  "Sherine",
];
