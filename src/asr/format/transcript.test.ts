import { describe, expect, test } from "bun:test";
import type { LiveEvent, Transcript, TranscriptFormatting, TranscriptSegment } from "../../core/asr.ts";
import { LiveFormatter } from "./live.ts";
import { GrowingText } from "./stream.ts";
import { formatTranscript } from "./transcript.ts";

const ALL = new Set(["card", "cvv", "expiry", "iban", "national_id", "phone", "email"]);
const formatting = (over: Partial<TranscriptFormatting> = {}): TranscriptFormatting => ({
  itn: true,
  redact: ALL,
  digits: "western",
  ...over,
});

// 4539 1488 0343 6467 (Luhn-valid), read over two utterances with hesitations.
const CARD_A = "رقم البطاقة اربعة خمسة تلاتة تسعة امم واحد اربعة تمانية تمانية";
const CARD_B = "يعني صفر تلاتة اربعة تلاتة ستة اربعة ستة سبعة شكرا";
const AMOUNT = "المبلغ مية وخمسين ريال";
const DIGIT_WORDS = /صفر|واحد|تنين|تلاتة|اربعة|خمسة|ستة|سبعة|تمانية|تسعة|\d/;

/** Every text an output carries (texts, spoken texts, words), not its times. */
const textsOf = (value: unknown): string[] =>
  JSON.stringify(value)
    .match(/"(?:text|textSpoken|word)":"[^"]*"/g)!
    .map((field) => field.slice(field.indexOf(":") + 1));

/** A segment whose words take one second each from `start`. */
function segment(id: number, text: string, start: number, channel?: number): TranscriptSegment {
  const words = text.split(" ").map((word, i) => ({ word, start: start + i, end: start + i + 0.5 }));
  return {
    id,
    start,
    end: start + words.length,
    text,
    words,
    ...(channel !== undefined ? { channel, speaker: `ch${channel}` } : {}),
  };
}

function transcript(segments: TranscriptSegment[]): Transcript {
  return {
    text: segments.map((s) => s.text).join(" "),
    language: "ar",
    dialect: null,
    duration: 60,
    segments,
    words: segments.flatMap((s) => s.words ?? []),
  };
}

describe("formatTranscript", () => {
  test("does redact a card read over two segments with fillers, its time covering the words", () => {
    const heard: string[] = [];
    const out = formatTranscript(
      transcript([segment(0, CARD_A, 0), segment(1, CARD_B, 20), segment(2, AMOUNT, 40)]),
      formatting({ onRedaction: (type) => heard.push(type) }),
    );
    expect(out.text).toBe("رقم البطاقة [REDACTED:card] شكرا المبلغ 150 ريال");
    expect(out.textSpoken).toBe("رقم البطاقة [REDACTED:card] شكرا المبلغ مية وخمسين ريال");
    expect(out.segments.map((s) => s.text)).toEqual(["رقم البطاقة [REDACTED:card]", "شكرا", "المبلغ 150 ريال"]);
    // From the first card word (third word of segment 0) to the last (ninth word of segment 1).
    expect(out.redactions).toEqual([{ type: "card", start: 2, end: 28.5 }]);
    expect(heard).toEqual(["card"]);
    // The written amount spans its three words' times; the call's words are the segments'.
    expect(out.segments[2]!.words!.at(-1)).toEqual({ word: "150 ريال", start: 41, end: 43.5 });
    expect(out.words).toEqual(out.segments.flatMap((s) => s.words ?? []));
    for (const text of textsOf(out.segments.slice(0, 2))) expect(text).not.toMatch(DIGIT_WORDS);
  });

  test("does keep the spoken words when itn is off, redacted all the same", () => {
    const out = formatTranscript(
      transcript([segment(0, CARD_A, 0), segment(1, CARD_B, 20)]),
      formatting({ itn: false }),
    );
    expect(out.text).toBe("رقم البطاقة [REDACTED:card] شكرا");
    expect(out.segments.map((s) => s.text)).toEqual(["رقم البطاقة [REDACTED:card]", "شكرا"]);
    const amount = formatTranscript(transcript([segment(0, AMOUNT, 0)]), formatting({ itn: false }));
    expect(amount.text).toBe(AMOUNT);
  });

  test("does not call a Luhn-invalid 16-digit number a card", () => {
    const invalid = CARD_B.replace("ستة سبعة شكرا", "ستة تمانية شكرا");
    const out = formatTranscript(transcript([segment(0, CARD_A, 0), segment(1, invalid, 20)]), formatting());
    expect(out.text).not.toContain("[REDACTED:card]");
    expect(out.redactions).toEqual([]);
  });

  test("does not join one channel's digits with the other's", () => {
    const out = formatTranscript(
      transcript([segment(0, CARD_A, 0, 0), segment(1, CARD_B, 20, 1)]),
      formatting({ itn: false }),
    );
    expect(out.text).not.toContain("[REDACTED:card]");
  });

  test("does leave a transcript alone when neither written forms nor redaction are asked for", () => {
    const raw = transcript([segment(0, AMOUNT, 0)]);
    expect(formatTranscript(raw, formatting({ itn: false, redact: new Set() }))).toBe(raw);
  });
});

describe("GrowingText (stream deltas)", () => {
  test("does never show a digit of a card at any point of the stream, and ends with the whole text", () => {
    const words = `${CARD_A} ${CARD_B} ${AMOUNT}`.split(" ");
    const growing = new GrowingText(formatting());
    let last = "";
    for (let n = 1; n <= words.length; n++) {
      const text = growing.push(words.slice(0, n).join(" "));
      expect(text.startsWith(last)).toBe(true);
      expect(text).not.toMatch(/\d/);
      expect(text.replace(/[^ ]*(مية|وخمسين)[^ ]*/g, "")).not.toMatch(DIGIT_WORDS);
      last = text;
    }
    expect(growing.push(words.join(" "), true)).toBe("رقم البطاقة [REDACTED:card] شكرا المبلغ 150 ريال");
  });

  test("does hold back an e-mail address's local part until the address is decided", () => {
    const words = "ايميلي احمد ات جيميل دوت كوم شكرا جزيلا يا اخي".split(" ");
    const growing = new GrowingText(formatting());
    for (let n = 1; n <= words.length; n++) expect(growing.push(words.slice(0, n).join(" "))).not.toMatch(/احمد|جيميل/);
    expect(growing.push(words.join(" "), true)).toBe("ايميلي [REDACTED:email] شكرا جزيلا يا اخي");
  });

  test("does hold back a number that the next words could still extend", () => {
    const growing = new GrowingText(formatting({ redact: new Set() }));
    expect(growing.push("دفعت خمسة وعشرين")).toBe("");
    expect(growing.push("دفعت خمسة وعشرين ريال اليوم يا اخي")).toBe("دفعت 25 ريال اليوم يا اخي");
    // «الساعة» is written into the time the next words may say: it waits for them.
    expect(growing.push("دفعت خمسة وعشرين ريال اليوم يا اخي الساعة")).toBe("دفعت 25 ريال اليوم يا اخي");
    expect(growing.push("دفعت خمسة وعشرين ريال اليوم يا اخي الساعة تلاتة ونص تمام", true)).toBe(
      "دفعت 25 ريال اليوم يا اخي 3:30 تمام",
    );
  });
});

describe("LiveFormatter (live finals)", () => {
  const final = (text: string, start: number): LiveEvent => ({
    type: "final",
    text,
    start,
    end: start + text.split(" ").length,
    dialect: null,
    words: segment(0, text, start).words,
    computeSeconds: 0,
  });

  test("does hold a final whose number is open until the next final decides it", () => {
    const out: LiveEvent[] = [];
    const formatter = new LiveFormatter(formatting(), (e) => out.push(e));
    formatter.event(final(CARD_A, 0));
    formatter.event({ type: "speech_started", audioStartMs: 19_000 });
    formatter.event({ type: "partial", text: "يعني صفر", start: 20, end: 21, dialect: null });
    expect(out).toEqual([]);
    formatter.event(final(CARD_B, 20));
    expect(out.map((e) => e.type)).toEqual(["final", "speech_started", "final"]);
    const [first, , second] = out as Extract<LiveEvent, { type: "final" }>[];
    expect(first!.text).toBe("رقم البطاقة [REDACTED:card]");
    expect(first!.redactions).toEqual([{ type: "card", start: 2, end: 28.5 }]);
    expect(second!.text).toBe("شكرا");
    expect(second!.words).toEqual([{ word: "شكرا", start: 29, end: 29.5 }]);
    for (const text of textsOf(out)) expect(text).not.toMatch(DIGIT_WORDS);
  });

  test("does send a final at once when nothing in its tail could become a redacted number", () => {
    const out: LiveEvent[] = [];
    const formatter = new LiveFormatter(formatting(), (e) => out.push(e));
    formatter.event(final(AMOUNT, 0));
    expect(out).toHaveLength(1);
    expect((out[0] as { text: string }).text).toBe("المبلغ 150 ريال");
  });

  test("does decide a held final once five seconds of audio brought no new speech", () => {
    const out: LiveEvent[] = [];
    const formatter = new LiveFormatter(formatting(), (e) => out.push(e));
    formatter.event(final(CARD_A, 0));
    // The final ends at 11 s.
    formatter.tick(15.9);
    expect(out).toEqual([]);
    formatter.tick(16);
    expect((out[0] as { text: string }).text).toBe("رقم البطاقة 4539 امم 1488");
  });

  test("does decide a held final as it stands when the stream ends", () => {
    const out: LiveEvent[] = [];
    const formatter = new LiveFormatter(formatting(), (e) => out.push(e));
    formatter.event(final("رقمي صفر خمسة خمسة واحد تنين تلاتة اربعة خمسة ستة سبعة", 0));
    expect(out).toEqual([]);
    formatter.flush();
    expect((out[0] as { text: string }).text).toBe("رقمي [REDACTED:phone]");
  });
});
