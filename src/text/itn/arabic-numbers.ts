/**
 * Arabic number phrases → values. The grammar is the one Sawt's TTS reader writes and speakers
 * use: parts joined by «و» (units before tens: «خمسة وعشرون»), a unit before «عشر» for the teens,
 * a count before a scale word («ثلاثة آلاف», «خمسون ألفًا», «مئة ألف وألف»), a unit before «مية»
 * in the dialects («ثلاث مية»). Two number words side by side without «و» are two numbers (or
 * digits of a phone number): that is what keeps «خمسة خمسة» from being read as ten.
 */
import { type NumberWord, numberWordAfterAnd, numberWordWithClitic } from "../numbers/arabic-lexicon.ts";
import { commaAfter, type DigitRun, joinable, settleGroups, type Word } from "./words.ts";

/** A parsed number: its value, the index after its last word, and the proclitic before it. */
export interface Parsed {
  readonly value: number;
  readonly end: number;
  readonly clitic: string;
}

/** The number word at `i`, required to carry «و» (`conj`) or to carry no proclitic. */
function at(words: readonly Word[], i: number, conj: boolean): NumberWord | undefined {
  const w = words[i];
  if (!w) return undefined;
  if (conj) return numberWordAfterAnd(w.key);
  const hit = numberWordWithClitic(w.key);
  return hit?.clitic === "" ? hit.word : undefined;
}

/** Below 100: a teen, a tens word, a unit (+ «عشر» or «و» + tens). */
function below100(words: readonly Word[], i: number, conj: boolean): Parsed | undefined {
  const a = at(words, i, conj);
  if (!a) return undefined;
  if (a.t === "teen" || a.t === "tens") return { value: a.v, end: i + 1, clitic: "" };
  if (a.t !== "unit") return undefined;
  if (a.v >= 1 && a.v <= 9 && joinable(words, i)) {
    const next = at(words, i + 1, false);
    if (next?.t === "unit" && next.v === 10) return { value: 10 + a.v, end: i + 2, clitic: "" };
    const tens = at(words, i + 1, true);
    if (tens?.t === "tens") return { value: a.v + tens.v, end: i + 2, clitic: "" };
  }
  if (a.head || (a.v === 0 && conj)) return undefined;
  return { value: a.v, end: i + 1, clitic: "" };
}

/** A hundreds part: a hundreds word, or a unit before a bare «مية». */
function hundreds(words: readonly Word[], i: number, conj: boolean): Parsed | undefined {
  const a = at(words, i, conj);
  if (a?.t === "hundreds") return { value: a.v, end: i + 1, clitic: "" };
  if ((a?.t === "unit" && a.v >= 1 && a.v <= 9 && !a.head) || a?.t === "hundredUnit") {
    const b = joinable(words, i) ? at(words, i + 1, false) : undefined;
    if (b?.t === "hundreds" && b.bare) return { value: a.v * 100, end: i + 2, clitic: "" };
  }
  return undefined;
}

/** Below 1000: hundreds [و below-100] or below-100. */
function below1000(words: readonly Word[], i: number, conj: boolean): Parsed | undefined {
  const h = hundreds(words, i, conj);
  if (!h) return below100(words, i, conj);
  const rest = joinable(words, h.end - 1) ? below100(words, h.end, true) : undefined;
  return rest ? { value: h.value + rest.value, end: rest.end, clitic: "" } : h;
}

function scaleAt(words: readonly Word[], i: number, conj: boolean) {
  const s = at(words, i, conj);
  return s?.t === "scale" ? s : undefined;
}

/**
 * A cardinal number starting at word `i` (a leading «و»/«ب» is reported as `clitic`; with
 * `lead` the first word must carry «و», as minutes after an hour do).
 */
export function arabicCardinal(words: readonly Word[], i: number, lead = false): Parsed | undefined {
  const first = words[i] ? numberWordWithClitic(words[i]!.key) : undefined;
  if (lead ? numberWordAfterAnd(words[i]?.key ?? "") === undefined : !first) return undefined;
  if (!lead && first!.clitic !== "") {
    // Parse with the proclitic off the first word, in a window (no number is 64 words long).
    const w = words[i]!;
    const view = words.slice(i, i + 64);
    view[0] = { ...w, key: w.key.slice(first!.clitic.length), core: w.core.slice(first!.clitic.length) };
    const bare = arabicCardinal(view, 0);
    return bare && { value: bare.value, end: bare.end + i, clitic: first!.clitic };
  }
  let total = 0;
  let pos = i;
  let lastScale = Infinity;
  let lastCount = 0;
  let started = false;
  for (;;) {
    if (started && !joinable(words, pos - 1)) break;
    const conj = started || lead;
    const g = below1000(words, pos, conj);
    if (g) {
      const s = joinable(words, g.end - 1) ? scaleAt(words, g.end, false) : undefined;
      if (s && s.v < lastScale && s.n !== 2 && g.value >= 1) {
        total += g.value * s.v;
        lastScale = s.v;
        lastCount = g.value;
        pos = g.end + 1;
        started = true;
        continue;
      }
      if (g.value === 0 && started) break;
      total += g.value;
      pos = g.end;
      started = true;
      break;
    }
    const s = scaleAt(words, pos, conj);
    if (!s || s.n === "pl") break;
    const count = s.n === 1 ? 1 : 2;
    const again = s.v === lastScale && lastCount >= 100 && lastCount % 100 === 0;
    if (!(s.v < lastScale || again)) break;
    total += count * s.v;
    lastScale = again ? s.v * 0.999 : s.v; // «مئة ألف وألف»: no third «ألف» after this one
    lastCount = count;
    pos += 1;
    started = true;
  }
  return started ? { value: total, end: pos, clitic: "" } : undefined;
}

/** A digit word (0–9, as read one by one) at `i`, bare. */
export function digitAt(words: readonly Word[], i: number): number | undefined {
  const w = at(words, i, false);
  return w?.t === "unit" && w.digit && !w.head ? w.v : undefined;
}

/** Whether word `i` starts a bigger number (so a run's last digit belongs to it, not the run). */
function multiplies(words: readonly Word[], i: number): boolean {
  if (!joinable(words, i)) return false;
  const next = at(words, i + 1, false);
  const tens = at(words, i + 1, true);
  return (
    (next?.t === "unit" && next.v === 10) ||
    (next?.t === "hundreds" && next.bare === true) ||
    next?.t === "scale" ||
    tens?.t === "tens"
  );
}

/**
 * Two or more digit words in a row (commas between groups allowed when the whole reads as a
 * phone or account number: 7+ digits, every later group 2+ digits), as TTS reads "0501234567"
 * or "050 123 4567".
 */
export function digitRun(words: readonly Word[], i: number): DigitRun | undefined {
  const groups: string[] = [""];
  const ends: number[] = [];
  let pos = i;
  while (digitAt(words, pos) !== undefined) {
    groups[groups.length - 1] += String(digitAt(words, pos));
    pos++;
    if (joinable(words, pos - 1)) continue;
    if (commaAfter(words, pos - 1) && digitAt(words, pos) !== undefined) {
      ends.push(pos);
      groups.push("");
      continue;
    }
    break;
  }
  if (pos > i + 1 && multiplies(words, pos - 1) && groups.at(-1)!.length > 1) {
    groups[groups.length - 1] = groups.at(-1)!.slice(0, -1);
    pos--;
  }
  ends.push(pos);
  return settleGroups(groups, ends);
}

/** The fraction after «فاصلة»: zeros then a cardinal or a digit run ("05", "50", "005"). */
export function arabicFraction(words: readonly Word[], i: number): { digits: string; end: number } | undefined {
  let pos = i;
  let zeros = "";
  const run = digitRun(words, pos);
  if (run && run.groups.length === 1) return { digits: run.groups[0]!, end: run.end };
  while (digitAt(words, pos) === 0 && joinable(words, pos)) {
    zeros += "0";
    pos++;
  }
  const n = arabicCardinal(words, pos);
  if (n && n.clitic === "") return { digits: zeros + String(n.value), end: n.end };
  if (zeros !== "" && digitAt(words, pos) === 0) return { digits: `${zeros}0`, end: pos + 1 };
  return zeros === "" ? undefined : { digits: zeros, end: pos };
}
