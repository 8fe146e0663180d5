/**
 * Text → IPA phonemes with libespeak-ng, shaped as Piper expects (DESIGN §4, Piper row):
 * one array of Unicode code points per sentence, words separated by " ", and each clause's
 * punctuation kept as a phoneme (", " ": " "; " inside a sentence; "." "?" "!" at its end).
 * Debian's espeak-ng 1.51 lacks espeak_TextToPhonemesWithTerminator, which Piper uses to learn
 * each clause's punctuation, so clauses are split here (sentences.ts) and the mark re-attached.
 */

import { CString, ptr } from "bun:ffi";
import { DEFAULT_MAX_SENTENCE_CHARS, splitSentences, type Clause, type Sentence } from "../frontend/sentences.ts";
import { cstring, withEspeak, type Espeak } from "./library.ts";

/** espeakCHARS_UTF8: the text argument is UTF-8. */
const CHARS_UTF8 = 1;
/**
 * espeak_TextToPhonemes `phonememode`: bit 1 (0x02, espeakPHONEMES_IPA) selects IPA output;
 * bits 8–23 would set a separator between phonemes and 0x80 a tie — Piper uses neither.
 */
export const PHONEMES_IPA = 0x02;

/** espeak marks a switch to another language's rules as "(en)…(ar)"; those letters are not phonemes. */
const LANGUAGE_SWITCH = /\([a-z]{2,3}(?:-[a-z0-9]+)*\)/giu;
const CLOSING_QUOTES = /["'”’»)\]]+$/u;

/**
 * The punctuation phoneme Piper emits for a clause terminator, or "" for none. Arabic marks map
 * to their Latin counterparts because that is what espeak reports for them (CLAUSE_COMMA, …).
 */
export function terminatorPhoneme(terminator: string): string {
  if (/[?؟]/u.test(terminator)) return "?";
  if (terminator.includes("!")) return "!";
  if (/[.…۔]/u.test(terminator)) return ".";
  if (/[,،]/u.test(terminator)) return ",";
  if (/[;؛]/u.test(terminator)) return ";";
  if (terminator.includes(":")) return ":";
  return "";
}

/**
 * Phonemes of one punctuation-free clause. espeak_TextToPhonemes translates one clause per call
 * and advances the text pointer (written back through the pointer-to-pointer argument), setting
 * it to NULL at the end; it may still split our clause (brackets, very long runs), so the pieces
 * are joined by a word space.
 */
function clausePhonemes(espeak: Espeak, text: string): string {
  const buffer = cstring(text);
  const start = ptr(buffer);
  const cursor = new BigUint64Array([BigInt(start)]);
  const pieces: string[] = [];
  for (let calls = 0; cursor[0] !== 0n; calls++) {
    // Each call consumes at least one character, so more calls than bytes means espeak is stuck.
    if (calls > buffer.byteLength) throw new Error("espeak_TextToPhonemes did not advance");
    const out = espeak.symbols.espeak_TextToPhonemes(cursor, CHARS_UTF8, PHONEMES_IPA);
    if (out === null) break;
    const piece = new CString(out).toString().replace(LANGUAGE_SWITCH, "").replace(/\s+/gu, " ").trim();
    if (piece !== "") pieces.push(piece);
    const offset = cursor[0] === 0n ? 0 : Number(cursor[0]) - start;
    if (offset < 0 || offset > buffer.byteLength) throw new Error("espeak_TextToPhonemes moved outside the text");
  }
  // Piper decomposes espeak's output (NFD) before mapping code points to ids.
  return pieces.join(" ").normalize("NFD");
}

function clauseBody(clause: Clause): string {
  const withoutQuotes = clause.text.replace(CLOSING_QUOTES, "");
  return withoutQuotes.endsWith(clause.terminator) ? withoutQuotes.slice(0, withoutQuotes.length - clause.terminator.length) : withoutQuotes;
}

function sentencePhonemes(espeak: Espeak, sentence: Sentence): string[] {
  let out = "";
  sentence.clauses.forEach((clause, index) => {
    const phonemes = clausePhonemes(espeak, clauseBody(clause));
    const mark = terminatorPhoneme(clause.terminator);
    if (out !== "" && !out.endsWith(" ") && phonemes !== "") out += " ";
    out += phonemes + mark;
    // Piper puts a word space after a mid-sentence mark (",", ":", ";") and after a clause that
    // ended without one (hard split) so the next clause's first word stays separate.
    if (index < sentence.clauses.length - 1 && (mark === "" || /[,:;]/.test(mark))) out += " ";
  });
  return Array.from(out.trim());
}

/** Phonemes (code points) of already-split sentences, with espeak voice `voice` ("ar", "en-us"). */
export function phonemizeSentences(sentences: readonly Sentence[], voice: string): Promise<string[][]> {
  return withEspeak((espeak) => {
    espeak.setVoice(voice);
    return sentences.map((sentence) => sentencePhonemes(espeak, sentence)).filter((phonemes) => phonemes.length > 0);
  });
}

/**
 * Text → phonemes per sentence, Piper style. `text` should already be through the front-end
 * (numbers as words); sentences are bounded by `maxSentenceChars` code points.
 */
export function phonemize(text: string, voice: string, maxSentenceChars: number = DEFAULT_MAX_SENTENCE_CHARS): Promise<string[][]> {
  return phonemizeSentences(splitSentences(text, maxSentenceChars), voice);
}
