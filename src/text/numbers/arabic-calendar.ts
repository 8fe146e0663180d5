/**
 * THE Arabic month names: the Gregorian names as Saudi and Egyptian business Arabic writes them
 * (the first spelling of each is what the TTS reader says in a date), their other spellings and
 * the Levantine names, and the Hijri months. Written forms read every one of them (../itn/).
 */

/** Gregorian months, January first: each month's spellings, the reader's first, then the Levantine name. */
export const GREGORIAN_MONTHS: readonly (readonly string[])[] = [
  ["يناير", "كانون الثاني"],
  ["فبراير", "شباط"],
  ["مارس", "آذار"],
  ["أبريل", "ابريل", "إبريل", "نيسان"],
  ["مايو", "أيار", "ايار"],
  ["يونيو", "يونيه", "حزيران"],
  ["يوليو", "يوليه", "تموز"],
  ["أغسطس", "اغسطس", "آب"],
  ["سبتمبر", "أيلول", "ايلول"],
  ["أكتوبر", "اكتوبر", "تشرين الأول"],
  ["نوفمبر", "تشرين الثاني"],
  ["ديسمبر", "كانون الأول"],
];

/** Hijri months, Muharram first, each with its spellings. */
export const HIJRI_MONTHS: readonly (readonly string[])[] = [
  ["محرم", "المحرم"],
  ["صفر"],
  ["ربيع الأول", "ربيع الاول"],
  ["ربيع الآخر", "ربيع الثاني", "ربيع التاني"],
  ["جمادى الأولى", "جمادى الاولى", "جماد الأول"],
  ["جمادى الآخرة", "جمادى الثانية", "جمادى الاخرة"],
  ["رجب"],
  ["شعبان"],
  ["رمضان"],
  ["شوال"],
  ["ذو القعدة", "ذي القعدة"],
  ["ذو الحجة", "ذي الحجة"],
];

/** The name the reader says for Gregorian month `month` (1–12). */
export function gregorianMonthName(month: number): string {
  return GREGORIAN_MONTHS[month - 1]![0]!;
}
