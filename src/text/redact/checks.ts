/**
 * The check-digit rules that tell a real identifier from any run of digits: Luhn (payment cards,
 * ISO/IEC 7812; Saudi national ID and Iqama numbers use the same weighting over their 10 digits)
 * and the IBAN mod-97 check (ISO 13616) with each region country's fixed length.
 */

/** Whether `digits` (ASCII 0-9 only) passes the Luhn check. */
export function luhnValid(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  for (let k = 0; k < digits.length; k++) {
    let d = digits.charCodeAt(digits.length - 1 - k) - 48;
    if (k % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** A payment card number: 13–19 digits passing Luhn. */
export function isCardNumber(digits: string): boolean {
  return digits.length >= 13 && digits.length <= 19 && luhnValid(digits);
}

/**
 * A Saudi national ID (first digit 1) or Iqama (2) number: 10 digits whose check digit follows
 * the published rule (double the digits in odd places from the left, add the digits of each
 * product and the even-place digits; the total is a multiple of 10), which is Luhn over 10 digits.
 */
export function isSaudiId(digits: string): boolean {
  return /^[12]\d{9}$/.test(digits) && luhnValid(digits);
}

/** IBAN lengths of the countries a Gulf/Levant/Egypt call centre hears most, and Europe's big ones. */
const IBAN_LENGTHS: Readonly<Record<string, number>> = {
  SA: 24,
  AE: 23,
  BH: 22,
  KW: 30,
  QA: 29,
  OM: 23,
  JO: 30,
  LB: 28,
  EG: 29,
  IQ: 23,
  PS: 29,
  GB: 22,
  DE: 22,
  FR: 27,
  TR: 26,
};

/** Whether `code` (no spaces, upper case) is an IBAN: country, check digits, mod-97 = 1, its length. */
export function isIban(code: string): boolean {
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(code)) return false;
  const expected = IBAN_LENGTHS[code.slice(0, 2)];
  if (expected !== undefined && code.length !== expected) return false;
  const moved = code.slice(4) + code.slice(0, 4);
  let rest = 0;
  for (const c of moved) {
    const value = c >= "A" ? String(c.charCodeAt(0) - 55) : c;
    for (const d of value) rest = (rest * 10 + (d.charCodeAt(0) - 48)) % 97;
  }
  return rest === 1;
}

/** An IBAN written in groups of four: "SA03 8000 0000 6080 1016 7519". */
export function groupIban(code: string): string {
  return code.match(/.{1,4}/g)!.join(" ");
}
