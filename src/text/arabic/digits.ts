/**
 * Arabic digits both ways: Arabic-Indic (U+0660–U+0669, the Arab world's) and Eastern
 * Arabic-Indic (U+06F0–U+06F9, Persian keyboards) to ASCII for reading and matching, and ASCII
 * to Arabic-Indic for writing (`asr.digits = "arabic-indic"`), with the Arabic decimal (٫),
 * thousands (٬) and percent (٪) signs.
 */

const INDIC_DIGIT = /[\u0660-\u0669\u06F0-\u06F9]/gu;
const INDIC_NUMERAL = /[\u0660-\u066C\u06F0-\u06F9]/gu;
const INDIC = "٠١٢٣٤٥٦٧٨٩";

const asciiOf = (c: string): string => {
  const code = c.charCodeAt(0);
  return String(code >= 0x06f0 ? code - 0x06f0 : code - 0x0660);
};

/** `text` with Arabic-Indic and Eastern Arabic-Indic digits as ASCII 0–9 (nothing else changed). */
export function asciiDigits(text: string): string {
  return text.replace(INDIC_DIGIT, asciiOf);
}

/** {@link asciiDigits}, and the Arabic percent, decimal and thousands signs as "%", "." and ",". */
export function asciiNumerals(text: string): string {
  return text.replace(INDIC_NUMERAL, (c) => {
    const code = c.charCodeAt(0);
    if (code <= 0x0669 || code >= 0x06f0) return asciiOf(c);
    return code === 0x066a ? "%" : code === 0x066b ? "." : ",";
  });
}

/** A written token in Arabic-Indic digits, with the Arabic decimal and thousands separators and ٪. */
export function toArabicIndic(text: string): string {
  return text
    .replace(/(?<=\d)\.(?=\d)/g, "٫")
    .replace(/(?<=\d),(?=\d)/g, "٬")
    .replace(/(?<=\d)%/g, "٪")
    .replace(/\d/g, (d) => INDIC[Number(d)]!);
}
