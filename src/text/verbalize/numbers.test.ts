import { describe, expect, test } from "bun:test";
import { normalizeNumbers, normalizeNumbersEnglish } from "./numbers.ts";

/** [input, expected Arabic words] — each row is one rule of numbers.ts / arabic.ts / ../numbers/arabic-cardinal.ts. */
const ARABIC_CASES: readonly (readonly [string, string])[] = [
  // Digit systems
  ["7", "سبعة"],
  ["٣", "ثلاثة"],
  ["۱۲۳", "مئة وثلاثة وعشرون"],
  ["٢٠٢٦", "ألفان وستة وعشرون"],
  // 1, 2, 3–10, 11–99, hundreds
  ["0", "صفر"],
  ["1", "واحد"],
  ["2", "اثنان"],
  ["11", "أحد عشر"],
  ["12", "اثنا عشر"],
  ["19", "تسعة عشر"],
  ["21", "واحد وعشرون"],
  ["99", "تسعة وتسعون"],
  ["100", "مئة"],
  ["200", "مئتان"],
  ["305", "ثلاثمئة وخمسة"],
  // Thousands, millions, billions (comma-grouped amounts read as words)
  ["1000", "ألف"],
  ["2000", "ألفان"],
  ["3000", "ثلاثة آلاف"],
  ["11000", "أحد عشر ألفًا"],
  ["200000", "مئتا ألف"],
  ["101000", "مئة ألف وألف"],
  ["1,234,567", "مليون ومئتان وأربعة وثلاثون ألفًا وخمسمئة وسبعة وستون"],
  ["2,000,000", "مليونان"],
  ["5,000,000,000", "خمسة مليارات"],
  [
    "999,999,999,999",
    "تسعمئة وتسعة وتسعون مليارًا وتسعمئة وتسعة وتسعون مليونًا وتسعمئة وتسعة وتسعون ألفًا وتسعمئة وتسعة وتسعون",
  ],
  // Decimals and negatives
  ["3.5", "ثلاثة فاصلة خمسة"],
  ["٣٫٥", "ثلاثة فاصلة خمسة"],
  ["0.05", "صفر فاصلة صفر خمسة"],
  ["3.25", "ثلاثة فاصلة خمسة وعشرون"],
  ["-5", "سالب خمسة"],
  // Percentages
  ["50%", "خمسون بالمئة"],
  ["٥٠٪", "خمسون بالمئة"],
  ["12.5%", "اثنا عشر فاصلة خمسة بالمئة"],
  // Currency
  ["150 ريال", "مئة وخمسون ريالًا"],
  ["SAR 20", "عشرون ريالًا"],
  ["1 ريال", "ريال واحد"],
  ["2 ريال", "ريالان"],
  ["5 ر.س", "خمسة ريالات"],
  ["200 ريال", "مئتا ريال"],
  ["12,000 درهم", "اثنا عشر ألف درهم"],
  ["12.50 ريال", "اثنا عشر ريالًا وخمسون هللة"],
  ["$5", "خمسة دولارات"],
  ["USD 1.99", "دولار واحد وتسعة وتسعون سنتًا"],
  ["75 جنيه", "خمسة وسبعون جنيهًا"],
  ["EGP 3", "ثلاثة جنيهات"],
  ["AED 1,250.75", "ألف ومئتان وخمسون درهمًا وخمسة وسبعون فلسًا"],
  ["-150 ريال", "سالب مئة وخمسون ريالًا"],
  // Dates (day first, Gregorian month names, year genitive)
  ["2026-07-15", "الخامس عشر من يوليو ألفين وستة وعشرين"],
  ["15/07/2026", "الخامس عشر من يوليو ألفين وستة وعشرين"],
  ["١/١/٢٠٠٠", "الأول من يناير ألفين"],
  ["31.12.1999", "الحادي والثلاثون من ديسمبر ألف وتسعمئة وتسعة وتسعين"],
  // Times (24-hour, minutes and seconds counted as feminine nouns)
  ["14:30", "الساعة أربعة عشر وثلاثون دقيقة"],
  ["09:05 ص", "الساعة تسعة وخمس دقائق صباحًا"],
  ["12:00", "الساعة اثنا عشر"],
  ["10:01", "الساعة عشرة ودقيقة واحدة"],
  ["14:30:15", "الساعة أربعة عشر وثلاثون دقيقة وخمس عشرة ثانية"],
  // Phone, account and IBAN numbers, digit by digit
  ["0501234567", "صفر خمسة صفر واحد اثنان ثلاثة أربعة خمسة ستة سبعة"],
  ["050 123 4567", "صفر خمسة صفر، واحد اثنان ثلاثة، أربعة خمسة ستة سبعة"],
  ["050-123-4567", "صفر خمسة صفر، واحد اثنان ثلاثة، أربعة خمسة ستة سبعة"],
  ["+966 50 123 4567", "زائد تسعة ستة ستة، خمسة صفر، واحد اثنان ثلاثة، أربعة خمسة ستة سبعة"],
  ["+966501234567", "زائد تسعة ستة ستة خمسة صفر واحد اثنان ثلاثة أربعة خمسة ستة سبعة"],
  ["١٢٣٤٥٦٧", "واحد اثنان ثلاثة أربعة خمسة ستة سبعة"],
  ["SA03 8000 0000 6080", "إس إيه صفر ثلاثة، ثمانية صفر صفر صفر، صفر صفر صفر صفر، ستة صفر ثمانية صفر"],
  // In running text
  ["رصيدك 150 ريال حتى 2026-07-15", "رصيدك مئة وخمسون ريالًا حتى الخامس عشر من يوليو ألفين وستة وعشرين"],
  ["اتصل بنا من 9-5", "اتصل بنا من تسعة إلى خمسة"],
  ["و5 كتب", "وخمسة كتب"],
];

const ENGLISH_CASES: readonly (readonly [string, string])[] = [
  ["1234", "one thousand two hundred thirty-four"],
  ["3.5", "three point five"],
  ["3.25", "three point two five"],
  ["50%", "fifty percent"],
  ["-7", "minus seven"],
  ["$12.50", "twelve dollars and fifty cents"],
  ["SAR 1", "one riyal"],
  ["2026-07-15", "July fifteenth, twenty twenty-six"],
  ["14:30", "fourteen thirty"],
  ["9:05 am", "nine oh five a m"],
  ["21st", "twenty-first"],
  ["call 050 123 4567", "call zero five zero, one two three, four five six seven"],
  ["+15551234567", "plus one five five five one two three four five six seven"],
];

describe("normalizeNumbers (ar)", () => {
  for (const [input, expected] of ARABIC_CASES) {
    test(`reads ${JSON.stringify(input)} as Arabic words`, () => {
      expect(normalizeNumbers(input, "ar")).toBe(expected);
    });
  }
});

describe("normalizeNumbers (en)", () => {
  for (const [input, expected] of ENGLISH_CASES) {
    test(`reads ${JSON.stringify(input)} as English words`, () => {
      expect(normalizeNumbers(input, "en")).toBe(expected);
    });
  }
});

describe("number edge cases", () => {
  test("leaves text unchanged when it has no digits", () => {
    expect(normalizeNumbers("مرحبا بكم، hello!", "ar")).toBe("مرحبا بكم، hello!");
  });

  test("keeps sentence punctuation next to numbers when they end a sentence", () => {
    expect(normalizeNumbers("المجموع 5.", "ar")).toBe("المجموع خمسة.");
    expect(normalizeNumbers("Total: 3, then 4.", "en")).toBe("Total: three, then four.");
  });

  test("leaves invalid dates and times as separate numbers when they cannot be a date", () => {
    expect(normalizeNumbers("32/13/2026", "ar")).not.toContain("من");
    expect(normalizeNumbers("25:00", "en")).not.toContain("o'clock");
  });

  test("reads English when the English shorthand is used", () => {
    expect(normalizeNumbersEnglish("Pay 25% of 1,000")).toBe("Pay twenty-five percent of one thousand");
  });

  test("reads numbers beyond trillions digit by digit when words would be absurd", () => {
    expect(normalizeNumbers("1,000,000,000,000,000,000", "ar").split(" ")[0]).toBe("واحد");
  });
});
