/**
 * Spoken numbers the tone CTC recogniser can hear (its letters spell the Egyptian/Levantine digit
 * words «صفر واحد تنين تلاتة اربعة خمسة ستة سبعة تمانية تسعة», Latin letter names without hamza
 * and e-mail words), for the written-form and redaction tests on every door: a call that reads a
 * Luhn-valid card over two utterances with hesitations, an SA IBAN, a Saudi ID, a mobile number
 * and an e-mail address, each utterance after a second of silence.
 */
import { isIban, isSaudiId, luhnValid } from "../../src/text/redact/checks.ts";
import { letterToneAudio } from "../support/models/ctc.ts";
import { concat, silence } from "./support.ts";

/** The digit words, by digit. */
export const DIGIT_WORDS = ["صفر", "واحد", "تنين", "تلاتة", "اربعة", "خمسة", "ستة", "سبعة", "تمانية", "تسعة"];

/** `digits` read one by one. */
export const spoken = (digits: string): string => [...digits].map((d) => DIGIT_WORDS[Number(d)]).join(" ");

/** The card (Luhn-valid), the IBAN, the ID and the phone, as digits. */
export const CARD = "4539148803436467";
export const IBAN = "SA0380000000608010167519";
export const SAUDI_ID = "1012345672";
export const PHONE = "0551234567";
if (!luhnValid(CARD) || !isIban(IBAN) || !isSaudiId(SAUDI_ID)) throw new Error("fixture numbers must be valid");

/** What each utterance of the call says. */
export const UTTERANCES = [
  `رقم البطاقة ${spoken(CARD.slice(0, 4))} امم ${spoken(CARD.slice(4, 8))}`,
  `يعني ${spoken(CARD.slice(8))}`,
  `الايبان اس ايه ${spoken(IBAN.slice(2))}`,
  `الهوية ${spoken(SAUDI_ID)}`,
  `جوالي ${spoken(PHONE)}`,
  "ايميلي احمد ات جيميل دوت كوم",
];

/** The call's text once redacted (`redact=pci,pii`), with or without written forms. */
export const REDACTED_TEXT =
  "رقم البطاقة [REDACTED:card] الايبان [REDACTED:iban] الهوية [REDACTED:national_id] جوالي [REDACTED:phone] ايميلي [REDACTED:email]";

/** The types redacted, in time order. */
export const REDACTED_TYPES = ["card", "iban", "national_id", "phone", "email"];

/** Words and digits that must never appear in any output of the redacted call. */
const SECRET = new RegExp(`\\d|[٠-٩]|${[...DIGIT_WORDS, "احمد", "جيميل"].join("|")}`);

/** Whether an output text shows any part of a redacted number or address. */
export const leaks = (text: string): boolean => SECRET.test(text);

/** The texts a JSON output carries under the given field names (not its times or ids). */
export function textFields(value: unknown, fields = ["text", "text_spoken", "word", "transcript", "delta"]): string[] {
  const out: string[] = [];
  const walk = (v: unknown) => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v !== null && typeof v === "object")
      for (const [k, child] of Object.entries(v)) {
        if (typeof child === "string" && fields.includes(k)) out.push(child);
        else walk(child);
      }
  };
  walk(value);
  return out;
}

/** Subtitle text without its cue numbers and timings. */
export const cueTexts = (subtitles: string): string[] =>
  subtitles
    .split("\n")
    .filter((line) => line !== "" && line !== "WEBVTT" && !/^\d+$/.test(line) && !line.includes("-->"));

/** 16 kHz mono: each utterance after a second of silence, and a second of silence at the end. */
export function callAudio(utterances: readonly string[] = UTTERANCES, rate = 16000): Float32Array {
  return concat(...utterances.flatMap((u) => [silence(1, rate), letterToneAudio(u, rate)]), silence(1.5, rate));
}

/** 16-bit little-endian PCM of float samples. */
export function pcm16(samples: Float32Array): Buffer {
  const out = new Int16Array(samples.length);
  for (let i = 0; i < samples.length; i++) out[i] = Math.round(Math.max(-1, Math.min(1, samples[i]!)) * 32767);
  return Buffer.from(out.buffer);
}
