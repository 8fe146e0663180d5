/**
 * Arabic clock times and dates. Times start at «الساعة» (as the TTS reader says them): an hour as
 * a cardinal or a feminine ordinal («الثالثة»), then minutes («وخمس دقائق», «وعشرة», «وربع»,
 * «ونص», «إلا ربع»), seconds with their noun, and «صباحًا»/«مساءً» → "3:05", "15:30:07",
 * "9:45 م". Dates: a day (ordinal «الخامس», «أول», or a cardinal), «من», «شهر», a Gregorian or
 * Hijri month name (or «شهر» + its number), a year → "5/3/2024", "5 مارس", "1 رمضان 1445 هـ".
 */
import { ordinalWord } from "../numbers/arabic-lexicon.ts";
import { type ArabicNoun, MINUTE, ORDINAL_ONE_COMPOUND, PHRASE, SECOND, TEEN_TEN } from "../numbers/arabic-words.ts";
import { spokenForms } from "../numbers/dialects.ts";
import { monthAt } from "./arabic-names.ts";
import { arabicCardinal } from "./arabic-numbers.ts";
import { joinable, type Match, pad2, type Word, wordKey } from "./words.ts";

const QUARTERS: Readonly<Record<string, number>> = {
  وربع: 15,
  والربع: 15,
  ونص: 30,
  ونصف: 30,
  والنص: 30,
  والنصف: 30,
  وثلث: 20,
  وتلت: 20,
  والثلث: 20,
};
const keys = (words: readonly string[]) => new Set(words.map(wordKey));
/** The forms a noun takes after a count (the reader's, in each dialect's reading: «تانية»), and `heard` ones. */
const nounForms = (noun: ArabicNoun, heard: readonly string[]) =>
  [noun.singular, noun.plural, noun.accusative].flatMap(spokenForms).concat(heard);
const MINUTE_NOUNS = keys(nounForms(MINUTE, ["دقايق", "دقيقا"]));
const SECOND_NOUNS = keys(nounForms(SECOND, ["ثواني", "تواني"]));
/** «و» + the singular, «و» + the dual: one and two counted by the noun alone («ودقيقتان»). */
const withAnd = (words: readonly string[]) => words.flatMap(spokenForms).map((w) => wordKey(`و${w}`));
const MINUTE_ONE = withAnd([MINUTE.singular]);
const MINUTE_TWO = withAnd(MINUTE.dual);
const SECOND_ONE = withAnd([SECOND.singular]);
const SECOND_TWO = [...withAnd(SECOND.dual), wordKey("وتانيتين")];
const AM = keys([PHRASE.am, "صباح", "الصبح", "الصباح", "صبحا", "فجرا", "الفجر"]);
const PM = keys([PHRASE.pm, "مساءا", "المسا", "المساء", "بالليل", "ليلا", "عصرا", "العصر", "بليل", "مسا"]);
const HOUR = wordKey(PHRASE.hour);
const TEN = keys(Object.values(TEEN_TEN));
const ONE_COMPOUND = wordKey(ORDINAL_ONE_COMPOUND);
const OF = wordKey(PHRASE.of);

/** An ordinal 1–99 at `i` («الخامس», «الحادي عشر», «الحادية والعشرون», «العشرون»). */
export function arabicOrdinal(words: readonly Word[], i: number): { value: number; end: number } | undefined {
  const key = words[i]?.key ?? "";
  const o = ordinalWord(key);
  if (!o) return undefined;
  if (o.tens) return { value: o.v, end: i + 1 };
  if (joinable(words, i)) {
    const next = words[i + 1]!.key;
    if (o.v <= 9 && TEN.has(next)) return { value: 10 + o.v, end: i + 2 };
    const tens = next.startsWith("و") ? ordinalWord(next.slice(1)) : undefined;
    if (tens?.tens) return { value: o.v + tens.v, end: i + 2 };
  }
  return key.startsWith(ONE_COMPOUND) || key === "اول" ? undefined : { value: o.v, end: i + 1 };
}

/** `n` things counted with one of `nouns` after «و» at `pos`, as the TTS reader counts them. */
function counted(
  words: readonly Word[],
  pos: number,
  nouns: ReadonlySet<string>,
  singular: readonly string[],
  dual: readonly string[],
) {
  const key = words[pos]?.key ?? "";
  if (dual.includes(key)) return { n: 2, end: pos + 1 };
  if (singular.includes(key) && joinable(words, pos) && /^واحد/.test(words[pos + 1]!.key))
    return { n: 1, end: pos + 2 };
  const c = arabicCardinal(words, pos, true);
  if (!c) return undefined;
  const noun = joinable(words, c.end - 1) && nouns.has(words[c.end]?.key ?? "");
  return { n: c.value, end: noun ? c.end + 1 : c.end, noun };
}

/** The hour after «الساعة»: a feminine ordinal, a cardinal up to 24, or its first word. */
function hourAt(words: readonly Word[], pos: number): { value: number; end: number } | undefined {
  const o = arabicOrdinal(words, pos);
  if (o && o.value <= 24) return o;
  const c = arabicCardinal(words, pos);
  if (!c || c.clitic !== "") return undefined;
  // «ثلاثة وعشرون دقيقة» is 3:20, not 23 o'clock: a noun after the tens makes them minutes.
  const noun = words[c.end]?.key ?? "";
  const countsFollow =
    c.end > pos + 1 && joinable(words, c.end - 1) && (MINUTE_NOUNS.has(noun) || SECOND_NOUNS.has(noun));
  if (c.value <= 24 && !countsFollow) return { value: c.value, end: c.end };
  const one = arabicCardinal(words.slice(pos, pos + 1), 0);
  return one && one.value <= 24 ? { value: one.value, end: pos + 1 } : undefined;
}

/** A clock time starting at «الساعة». */
export function arabicTime(words: readonly Word[], i: number): Match | undefined {
  if (words[i]!.key !== HOUR || !joinable(words, i)) return undefined;
  const hour = hourAt(words, i + 1);
  if (!hour) return undefined;
  let h = hour.value;
  let end = hour.end;
  let minutes = 0;
  let seconds: number | undefined;
  if (joinable(words, end - 1)) {
    const key = words[end]!.key;
    const quarter = QUARTERS[key];
    if (quarter !== undefined) {
      minutes = quarter;
      end++;
    } else if (key === "الا" && joinable(words, end)) {
      const next = words[end + 1]!.key;
      const before = next === "ربع" ? 15 : next === "ثلث" || next === "تلت" ? 20 : undefined;
      const c = before === undefined ? arabicCardinal(words, end + 1) : undefined;
      const off = before ?? (c && c.clitic === "" && c.value < 30 ? c.value : undefined);
      if (off !== undefined) {
        minutes = 60 - off;
        h = h === 0 ? 23 : h === 1 ? 12 : h - 1;
        end = before !== undefined ? end + 2 : c!.end;
        if (c && joinable(words, end - 1) && MINUTE_NOUNS.has(words[end]?.key ?? "")) end++;
      }
    } else {
      const m = counted(words, end, MINUTE_NOUNS, MINUTE_ONE, MINUTE_TWO);
      // «الساعة ثلاثة وسبع ثوان» (3:00:07): a count that ends in a seconds noun is no minutes.
      const isSeconds = m !== undefined && m.noun === false && SECOND_NOUNS.has(words[m.end]?.key ?? "");
      if (m && m.n <= 59 && !isSeconds) {
        minutes = m.n;
        end = m.end;
      }
      const s = joinable(words, end - 1) ? counted(words, end, SECOND_NOUNS, SECOND_ONE, SECOND_TWO) : undefined;
      if (s && s.n <= 59 && s.noun !== false) {
        seconds = s.n;
        end = s.end;
      }
    }
  }
  if (h > 24) return undefined;
  let text = `${h}:${pad2(minutes)}${seconds === undefined ? "" : `:${pad2(seconds)}`}`;
  if (joinable(words, end - 1)) {
    const key = words[end]!.key;
    if (AM.has(key) || PM.has(key)) {
      text += AM.has(key) ? " ص" : " م";
      end++;
    }
  }
  return { text, end, kind: "time" };
}

const HIJRI_ERA = new Set(["هجري", "هجريه", "للهجره", "ه", "هـ"]);
const GREGORIAN_ERA = new Set(["ميلادي", "ميلاديه", "للميلاد", "م"]);

/** A date: day, optional «من»/«شهر», month (name or «شهر» + number), optional year and era. */
export function arabicDate(words: readonly Word[], i: number): Match | undefined {
  const ordinal = arabicOrdinal(words, i) ?? (words[i]!.key === "اول" ? { value: 1, end: i + 1 } : undefined);
  const cardinal = ordinal ? undefined : arabicCardinal(words, i);
  const day = ordinal ?? (cardinal?.clitic === "" ? cardinal : undefined);
  if (!day || day.value < 1 || day.value > 31 || !joinable(words, day.end - 1)) return undefined;
  let pos = day.end;
  const from = words[pos]!.key === OF && joinable(words, pos);
  if (from) pos++;
  const shahr = words[pos]!.key === "شهر" && joinable(words, pos);
  if (shahr) pos++;
  let month = monthAt(words, pos);
  if (month && words[pos]!.key === "صفر" && month.words === 1 && !ordinal && !from && !shahr) return undefined;
  let spoken: string | undefined;
  if (month) {
    spoken = words
      .slice(pos, pos + month.words)
      .map((w) => w.core)
      .join(" ");
    pos += month.words;
  } else if (shahr) {
    const n = arabicCardinal(words, pos);
    if (!n || n.clitic !== "" || n.value < 1 || n.value > 12) return undefined;
    month = { month: n.value, hijri: false, words: 1 };
    pos = n.end;
  } else return undefined;
  let year: number | undefined;
  let era = "";
  if (joinable(words, pos - 1)) {
    const skip = (words[pos]!.key === "سنه" || words[pos]!.key === "عام") && joinable(words, pos) ? 1 : 0;
    const y = arabicCardinal(words, pos + skip);
    if (y && y.clitic === "" && y.value >= 1000 && y.value <= 2999) {
      year = y.value;
      pos = y.end;
      const key = joinable(words, pos - 1) ? words[pos]!.key : "";
      if (HIJRI_ERA.has(key) || GREGORIAN_ERA.has(key)) {
        era = HIJRI_ERA.has(key) ? " هـ" : " م";
        pos++;
      }
    }
  }
  const d = day.value;
  let text: string;
  if (month.hijri) text = `${d} ${spoken}${year === undefined ? "" : ` ${year}`}${era}`;
  else if (year !== undefined) text = `${d}/${month.month}/${year}${era}`;
  else text = spoken === undefined ? `${d}/${month.month}` : `${d} ${spoken}`;
  return { text, end: pos, kind: "date" };
}
