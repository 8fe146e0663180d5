/** Clause punctuation as Piper phonemises it (shared by phonemes.ts and the espeak worker). */

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
