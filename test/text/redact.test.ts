/**
 * Redaction over written forms: what each type hides (spoken and written, across fillers and
 * segment boundaries), what it must leave alone (a Luhn-invalid card, a bad IBAN, an
 * unannounced three-digit number), the classes, and the word spans a recording system mutes.
 */
import { describe, expect, test } from "bun:test";
import { formatText, formatWords, type FormatLanguage } from "../../src/text/format.ts";
import { isCardNumber, isIban, isSaudiId, luhnValid } from "../../src/text/redact/checks.ts";
import { parseRedactClasses } from "../../src/text/redact/classes.ts";
import { wordsOf } from "../../src/text/itn/words.ts";
import { AppError } from "../../src/errors/taxonomy.ts";

const ALL = parseRedactClasses("pci,pii", "body.redact");

function redacted(text: string, language: FormatLanguage, redact = ALL) {
  return formatText(text, { language, itn: true, redact, digits: "western" });
}

const CASES: readonly [string, FormatLanguage, string][] = [
  [
    "بطاقتي أربعة واحد واحد واحد يعني واحد واحد واحد واحد اه واحد واحد واحد واحد واحد واحد واحد واحد",
    "ar",
    "بطاقتي [REDACTED:card]",
  ],
  [
    "card four one one one uh one one one one um one one one one one one one one thanks",
    "en",
    "card [REDACTED:card] thanks",
  ],
  ["card 4111-1111-1111-1111", "en", "card [REDACTED:card]"],
  ["card 4111 1111 1111 1111.", "en", "card [REDACTED:card]"],
  ["رقم البطاقة ٤١١١ ١١١١ ١١١١ ١١١١", "ar", "رقم البطاقة [REDACTED:card]"],
  ["أربعة آلاف ومئة وأحد عشر ألف ومئة وأحد عشر ألف ومئة وأحد عشر ألف ومئة وأحد عشر", "ar", "[REDACTED:card]"],
  ["amex three seven eight two eight two two four six three one zero zero zero five", "en", "amex [REDACTED:card]"],
  ["والرمز السري ثلاثة أربعة خمسة", "ar", "والرمز السري [REDACTED:cvv]"],
  ["the cvv is one two three", "en", "the cvv is [REDACTED:cvv]"],
  ["expiry zero five two seven", "en", "expiry [REDACTED:expiry]"],
  ["expires 05/27", "en", "expires [REDACTED:expiry]"],
  ["تاريخ الانتهاء خمسة ألفين وسبعة وعشرين", "ar", "تاريخ الانتهاء [REDACTED:expiry]"],
  ["IBAN SA03 8000 0000 6080 1016 7519 thanks", "en", "IBAN [REDACTED:iban] thanks"],
  ["iban SA0380000000608010167519", "en", "iban [REDACTED:iban]"],
  [
    "الآيبان إس إيه صفر ثلاثة، ثمانية صفر صفر صفر، صفر صفر صفر صفر، ستة صفر ثمانية صفر، واحد صفر واحد ستة، سبعة خمسة واحد تسعة",
    "ar",
    "الآيبان [REDACTED:iban]",
  ],
  ["هويتي واحد صفر صفر صفر صفر صفر صفر صفر صفر ثمانية", "ar", "هويتي [REDACTED:national_id]"],
  ["iqama 2000000006", "en", "iqama [REDACTED:national_id]"],
  ["جوالي صفر خمسة خمسة واحد اثنين ثلاثة أربعة خمسة ستة سبعة", "ar", "جوالي [REDACTED:phone]"],
  ["رقمي زائد تسعة ستة ستة، خمسة صفر، واحد اثنان ثلاثة، أربعة خمسة ستة سبعة", "ar", "رقمي [REDACTED:phone]"],
  ["call 010 1234 5678 now", "en", "call [REDACTED:phone] now"],
  ["my email is ahmed dot ali at gmail dot com ok", "en", "my email is [REDACTED:email] ok"],
  ["إيميلي سارة آت هوتميل دوت كوم", "ar", "إيميلي [REDACTED:email]"],
  ["write to a.b-c@example.co.uk.", "en", "write to [REDACTED:email]"],
];

const LEFT_ALONE: readonly [string, FormatLanguage, string][] = [
  ["card 4111 1111 1111 1112", "en", "card 4111 1111 1111 1112"],
  ["أربعة واحد واحد واحد واحد واحد واحد واحد واحد واحد واحد واحد واحد واحد واحد اثنين", "ar", "4111111111111112"],
  ["iban SA0380000000608010167518", "en", "iban SA0380000000608010167518"],
  ["ID 1000000006", "en", "ID 1000000006"],
  ["the code is one two three", "en", "the code is 123"],
  ["المبلغ مية وخمسين ريال", "ar", "المبلغ 150 ريال"],
  ["we met at noon", "en", "we met at noon"],
];

describe("redaction", () => {
  test("does hide each type, spoken or written, across fillers", () => {
    const wrong = CASES.map(([text, lang, want]) => ({ text, want, got: redacted(text, lang).text })).filter(
      (r) => r.got !== r.want,
    );
    expect(wrong).toEqual([]);
  });

  test("does leave a Luhn-invalid card, a bad IBAN or ID and an unannounced code alone", () => {
    const wrong = LEFT_ALONE.map(([text, lang, want]) => ({ text, want, got: redacted(text, lang) })).filter(
      (r) => r.got.text !== r.want || r.got.redactions.length > 0,
    );
    expect(wrong).toEqual([]);
  });

  test("does leave no digit of a hidden number in either form", () => {
    for (const [text, lang] of CASES) {
      const out = redacted(text, lang);
      for (const form of [out.text, out.text_spoken])
        expect(form.replace(/\[REDACTED:\w+\]/g, "")).not.toMatch(/\d{3}/);
    }
  });

  test("does give offsets into text_spoken that cover the markers", () => {
    const out = redacted("call 0551234567 or mail ahmed at gmail dot com", "en");
    expect(out.redactions.map((r) => out.text_spoken.slice(r.start, r.end))).toEqual([
      "[REDACTED:phone]",
      "[REDACTED:email]",
    ]);
  });

  test("does find a card split over two segments and report the words to mute", () => {
    const first = wordsOf("رقم البطاقة أربعة واحد واحد واحد واحد واحد واحد واحد");
    const second = wordsOf("اه واحد واحد واحد واحد واحد واحد واحد واحد شكرا");
    const result = formatWords([...first, ...second], { language: "ar", itn: true, redact: ALL, digits: "western" });
    expect(result.redactions).toEqual([{ type: "card", from: 2, to: first.length + second.length - 1 }]);
    expect(result.written.map((t) => t.text)).toEqual(["رقم", "البطاقة", "[REDACTED:card]", "شكرا"]);
    expect(result.spoken.map((t) => t.text)).toEqual(["رقم", "البطاقة", "[REDACTED:card]", "شكرا"]);
  });

  test("does keep each written token's word span so times stay aligned", () => {
    const words = wordsOf("دفعت مية وخمسين ريال الساعة تلاتة ونص");
    const { written } = formatWords(words, { language: "ar", itn: true, redact: new Set(), digits: "western" });
    expect(written.map((t) => [t.text, t.from, t.to])).toEqual([
      ["دفعت", 0, 1],
      ["150 ريال", 1, 4],
      ["3:30", 4, 7],
    ]);
  });

  test("does hide only the requested classes", () => {
    const text = "card 4111111111111111 phone 0551234567";
    expect(redacted(text, "en", parseRedactClasses("pci", "f")).text).toBe("card [REDACTED:card] phone 0551234567");
    expect(redacted(text, "en", parseRedactClasses(["phone"], "f")).text).toBe(
      "card 4111111111111111 phone [REDACTED:phone]",
    );
    expect(redacted(text, "en", new Set()).redactions).toEqual([]);
  });
});

describe("redaction classes", () => {
  test("does expand classes and accept single types", () => {
    expect([...parseRedactClasses("pci", "f")].sort()).toEqual(["card", "cvv", "expiry"]);
    expect([...parseRedactClasses(" PII , card ", "f")].sort()).toEqual([
      "card",
      "email",
      "iban",
      "national_id",
      "phone",
    ]);
    expect(parseRedactClasses(undefined, "f").size).toBe(0);
  });

  test("does refuse an unknown class or a wrong type with a 422 naming the field", () => {
    for (const bad of ["pci,secrets", 5, [1]]) {
      let error: unknown;
      try {
        parseRedactClasses(bad, "body.redact");
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).status).toBe(422);
      expect((error as AppError).fields.map((f) => f.field)).toEqual(["body.redact"]);
    }
  });
});

describe("check digits", () => {
  test("does apply Luhn, the card length and the Saudi ID rule", () => {
    expect(luhnValid("79927398713")).toBe(true);
    expect(luhnValid("79927398710")).toBe(false);
    expect(isCardNumber("4111111111111111")).toBe(true);
    expect(isCardNumber("411111111111")).toBe(false);
    expect(isSaudiId("1000000008")).toBe(true);
    expect(isSaudiId("2000000006")).toBe(true);
    expect(isSaudiId("3000000004")).toBe(false);
    expect(isSaudiId("1000000006")).toBe(false);
  });

  test("does check IBANs by mod 97 and the country's length", () => {
    expect(isIban("SA0380000000608010167519")).toBe(true);
    expect(isIban("GB82WEST12345698765432")).toBe(true);
    expect(isIban("SA0380000000608010167518")).toBe(false);
    expect(isIban("SA03800000006080101675")).toBe(false);
  });
});
