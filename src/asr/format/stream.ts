/**
 * Written forms and redaction of text that is still growing (`stream=true` deltas, live
 * partials): only the words whose formatting is decided are written, the open tail is held
 * back. Held: every word at the end that could still be part of a number, card, IBAN, phone or
 * e-mail address (number words, digits, hesitations, "at"/"dot"), with the two words before such
 * a run (an IBAN's country letters, an address's local part); then, word by word, whatever the
 * words that may come next would still rewrite: the decided words must format the same followed by
 * a run of digits, «ونص», an e-mail's "at … dot com" (or their English forms). So a delta never
 * carries a digit that a later one would have to retract: a card number read digit by digit stays
 * back until the words after it decide it.
 */
import type { TranscriptFormatting, TranscriptionOptions } from "../../core/asr.ts";
import { type FormatLanguage, type FormatOptions, formatWords } from "../../text/format.ts";
import { arabicItn } from "../../text/itn/arabic.ts";
import { numberWordAfterAnd, numberWordWithClitic } from "../../text/numbers/arabic-lexicon.ts";
import { englishItn } from "../../text/itn/english.ts";
import { below100Word, ENGLISH_HUNDRED, ENGLISH_PHRASE, ENGLISH_SCALES } from "../../text/numbers/english-words.ts";
import { wordsOf, type WrittenToken } from "../../text/itn/words.ts";
import { isEmailJoiner } from "../../text/redact/email.ts";
import { formatOptions } from "./units.ts";
import { isFiller, tokenKey } from "../../text/redact/numbers.ts";
import { asciiDigits } from "../../text/arabic/digits.ts";

/** What may follow a growing text, per language: the decided words must not change under any of them. */
const PROBES: Readonly<Record<FormatLanguage, readonly (readonly string[])[]>> = {
  ar: [
    "واحد تنين تلاتة اربعة خمسة ستة سبعة تمانية تسعة صفر واحد تنين تلاتة اربعة خمسة ستة",
    "ونص",
    "ات جيميل دوت كوم",
  ].map(wordsOf),
  en: [
    "one two three four five six seven eight nine zero one two three four five six",
    "thirty",
    "at gmail dot com",
  ].map(wordsOf),
};
/** Words held before a run of open words. */
const RUN_LEAD = 2;
/** English words of a number that `below100Word` does not read: hundreds, scales, "oh", "double five", "point", "plus". */
const ENGLISH_NUMBER_WORDS = new Set([
  ENGLISH_HUNDRED,
  ...ENGLISH_SCALES.slice(1),
  ENGLISH_PHRASE.oh,
  "double",
  "triple",
  ENGLISH_PHRASE.point,
  ENGLISH_PHRASE.plus,
]);

/** Whether a token could still be part of a card, ID, phone, IBAN or e-mail address the next words complete. */
function redactable(token: WrittenToken): boolean {
  const kind = token.kind;
  if (kind === "digits" || kind === "cardinal" || kind === "iban") return true;
  return (
    (kind === undefined && /\d/.test(asciiDigits(token.text))) || isFiller(token) || isEmailJoiner(tokenKey(token))
  );
}

/** Whether a token could still be part of any written form (an amount, a date, …) or of a redacted span. */
function open(token: WrittenToken): boolean {
  if (token.kind !== undefined || redactable(token)) return true;
  const key = tokenKey(token);
  return (
    numberWordWithClitic(key) !== undefined ||
    numberWordAfterAnd(key) !== undefined ||
    below100Word(key) !== undefined ||
    ENGLISH_NUMBER_WORDS.has(key)
  );
}

/** How the decided part of a growing text is found. */
export interface Deciding {
  /** Nothing more will come: every word is decided. */
  readonly final: boolean;
  /** Only what redaction could still take is held (a live final), not every written form. */
  readonly redactionOnly?: boolean;
}

/** The written tokens before word `cut` as one string, or null when a token reaches past it. */
function before(words: readonly string[], cut: number, options: FormatOptions): string | null {
  const tokens = formatWords(words, options).written.filter((t) => t.from < cut);
  return tokens.some((t) => t.to > cut) ? null : JSON.stringify(tokens.map((t) => [t.text, t.from, t.to]));
}

/** Whether the first `cut` words format alike alone, within `words`, and whatever probe follows. */
function settled(words: readonly string[], cut: number, options: FormatOptions): boolean {
  const alone = before(words.slice(0, cut), cut, options);
  if (alone === null || before(words, cut, options) !== alone) return false;
  return PROBES[options.language].every((probe) => before([...words, ...probe], cut, options) === alone);
}

/** How many of `words` are decided (see the file comment). */
export function decidedWords(words: readonly string[], how: Deciding, formatting: TranscriptFormatting): number {
  if (how.final || words.length === 0) return words.length;
  const options = formatOptions(formatting, words);
  const tokens = options.language === "ar" ? arabicItn(words) : englishItn(words);
  const isOpen = how.redactionOnly ? redactable : open;
  let k = tokens.length;
  // Back over open words, and over the word before a joiner ("ahmed" of "ahmed at …", "gmail" of "gmail dot …").
  const backOverOpen = () => {
    while (k > 0 && (isOpen(tokens[k - 1]!) || (k < tokens.length && isEmailJoiner(tokenKey(tokens[k]!))))) k--;
  };
  backOverOpen();
  // A run of hesitations or joiners alone holds nothing; one with a number (or a joiner's address) does.
  const held = tokens.slice(k);
  const numeric = held.some(
    (t) => t.kind !== undefined || /\d/.test(asciiDigits(t.text)) || isEmailJoiner(tokenKey(t)),
  );
  if (how.redactionOnly && !numeric) return words.length;
  if (held.length > 0) {
    // The words before the run too (an IBAN's letters). A stream also never cuts right after an open
    // word; a final may: the word before the run is not open, so no chain crosses the cut.
    k = Math.max(0, k - RUN_LEAD);
    if (!how.redactionOnly) backOverOpen();
  }
  const cut = () => (k === tokens.length ? words.length : tokens[k]!.from);
  if (!how.redactionOnly)
    while (k > 0 && !settled(words, cut(), options)) {
      k--;
      backOverOpen();
    }
  return cut();
}

/** The decided part of `words`, formatted (the spoken words, redacted, when `itn` is off). */
export function decidedText(words: readonly string[], formatting: TranscriptFormatting, final: boolean): string {
  const decided = words.slice(0, decidedWords(words, { final }, formatting));
  if (decided.length === 0) return "";
  // The language of all the words, as the decision read them.
  return formatWords(decided, formatOptions(formatting, words))
    .written.map((t) => t.text)
    .join(" ");
}

/**
 * A growing text (each call's text extends the last) turned into a growing formatted text.
 * Words decided and already written are not formatted again, so a long file's stream stays
 * linear; a text that does not extend the last starts over.
 */
export class GrowingText {
  /** Words whose formatted text is final, and that text. */
  private doneWords: string[] = [];
  private doneText = "";

  constructor(private readonly formatting: TranscriptFormatting) {}

  /** The formatted text of `textSoFar` (its decided part; everything when `final`). */
  push(textSoFar: string, final = false): string {
    const words = wordsOf(textSoFar);
    if (this.doneWords.some((w, i) => words[i] !== w)) {
      this.doneWords = [];
      this.doneText = "";
    }
    const rest = words.slice(this.doneWords.length);
    const decided = decidedWords(rest, { final }, this.formatting);
    const text = decidedText(rest.slice(0, decided), this.formatting, true);
    // Words far enough behind the held tail are settled for good.
    if (decided > 0) {
      this.doneWords = words.slice(0, this.doneWords.length + decided);
      this.doneText = [this.doneText, text].filter((t) => t !== "").join(" ");
    }
    return this.doneText;
  }
}

/**
 * Options whose `onText` (each decoded piece's text so far, per channel) hears the text written
 * and redacted by `formatting`, decided (`stream=true` deltas); unchanged when it changes nothing.
 */
export function withFormattedText<O extends Pick<TranscriptionOptions, "onText">>(
  options: O,
  formatting: TranscriptFormatting,
): O {
  const { onText } = options;
  if (!onText || (!formatting.itn && formatting.redact.size === 0)) return options;
  const channels = new Map<number, GrowingText>();
  return {
    ...options,
    onText: (text, label) => {
      const channel = label?.channel ?? 0;
      let growing = channels.get(channel);
      if (!growing) channels.set(channel, (growing = new GrowingText(formatting)));
      onText(growing.push(text), label);
    },
  };
}
