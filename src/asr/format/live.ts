/**
 * Written forms and redaction of one channel's live events, applied by the live session
 * (../live/session.ts) for every live door (realtime, jambonz, gRPC StreamingRecognize, MRCP):
 * a partial carries only its decided words (./stream.ts; none decided yet: no partial); a final carries its written forms,
 * timed written words, `textSpoken` and `redactions`.
 *
 * With redaction on, a final whose last words could still be part of a card, IBAN, ID or phone
 * number (a number read over two utterances) is held, with the events after it, until the next
 * final decides it (the two are read as one run of words) or the stream ends; partials are not
 * sent meanwhile (the held final would have to come first). So no output ever carries a digit
 * that a later event would have to retract. Nor for ever: {@link HOLD_SECONDS} of audio without
 * new speech decide it as it stands. A session that fails drops what is held.
 */
import type { LiveEvent, TranscriptFormatting } from "../../core/asr.ts";
import { wordsOf } from "../../text/itn/words.ts";
import { decidedText, decidedWords } from "./stream.ts";
import { type FormattedRun, formatRuns, type TimedUnit, unitsOf } from "./units.ts";

type FinalEvent = Extract<LiveEvent, { type: "final" }>;

/** Most words held for an open number; a longer run is decided as it stands (a card is at most 19 digits). */
export const MAX_HELD_WORDS = 64;

/**
 * Seconds of audio after a held final, with no new speech, before it is decided as it stands: a
 * caller who pauses longer between the groups of a number has finished reading it, and a live
 * door that never ends (realtime) must not hold a result for ever.
 */
export const HOLD_SECONDS = 5;

/** Seconds after a held final before it is decided even while speech goes on (an utterance's longest). */
export const HOLD_MAX_SECONDS = 30;

/** See the file comment; one per channel. */
export class LiveFormatter {
  /** Events waiting behind a held final (the first is that final); partials are never held. */
  private pending: LiveEvent[] = [];
  /** Leading words of the first held final already written by the final before it (a token over both). */
  private written = 0;

  constructor(
    private readonly formatting: TranscriptFormatting,
    private readonly emit: (event: LiveEvent) => void,
  ) {}

  /** One event of the channel, in order. */
  event(event: LiveEvent): void {
    if (event.type === "partial") {
      if (this.pending.length > 0) return;
      // A partial's last word may be cut off mid-word («ت» of «تنين»): with redaction on it is not
      // shown until the next partial or the final has it whole, so it never closes a number early.
      const words = wordsOf(event.text);
      const heard = this.formatting.redact.size > 0 ? words.slice(0, -1) : words;
      const text = decidedText(heard, this.formatting, false);
      // Nothing decided yet: no partial (a door would only send an empty hypothesis).
      if (text !== "" || event.text === "") this.emit({ ...event, text });
      return;
    }
    if (event.type === "error") {
      this.pending = [];
      this.emit(event);
      return;
    }
    if (this.pending.length === 0 && event.type !== "final") {
      this.emit(event);
      return;
    }
    this.pending.push(event);
    if (event.type === "final") this.decide(false);
  }

  /**
   * The channel has heard audio up to `seconds` since the start of the call: a final held that
   * long without new speech ({@link HOLD_SECONDS}), or for {@link HOLD_MAX_SECONDS} in any case,
   * is decided as it stands.
   */
  tick(seconds: number): void {
    const last = this.pending.findLastIndex((e) => e.type === "final");
    const held = this.pending[last];
    if (held?.type !== "final") return;
    // Speech after the last held final: its own final will decide (unless it runs on too long).
    const speaking = this.pending.slice(last + 1).some((e) => e.type === "speech_started");
    const waited = seconds - held.end;
    if (waited >= HOLD_MAX_SECONDS || (!speaking && waited >= HOLD_SECONDS)) this.decide(true);
  }

  /** The stream ended: whatever is held is decided as it stands. */
  flush(): void {
    if (this.pending.length > 0) this.decide(true);
  }

  /** Formats the held finals as one run of words and sends every final (and what follows it) that is decided. */
  private decide(atEnd: boolean): void {
    const finals = this.pending.filter((e): e is FinalEvent => e.type === "final");
    const units: TimedUnit[] = finals.flatMap((f, i) => {
      const all = unitsOf(f.text, f.words, f, i);
      return i === 0 ? all.slice(this.written) : all;
    });
    const runs = formatRuns(
      units,
      this.formatting,
      finals.map((_, i) => i),
    );
    const texts = units.map((u) => u.text);
    // Written forms are decided per final; only redaction reads across finals.
    const hold = this.formatting.redact.size > 0 && units.length <= MAX_HELD_WORDS;
    const decided = hold ? decidedWords(texts, { final: atEnd, redactionOnly: true }, this.formatting) : units.length;
    let index = 0;
    let sent = 0;
    for (const event of this.pending) {
      if (event.type === "final") {
        // Sent once its last word is decided; a token it starts may reach into the next final.
        if (units.findLastIndex((u) => u.owner === index) >= decided) break;
        this.send(event, runs.get(index)!);
        index++;
      } else this.emit(event);
      sent++;
    }
    this.pending = this.pending.slice(sent);
    if (index === 0) return;
    // Leading words of the next held final that a token of a sent one already covers.
    const first = units.findIndex((u) => u.owner === index);
    const reach = Math.max(0, ...[...runs].filter(([i]) => i < index).map(([, run]) => run.reach));
    this.written = first < 0 ? 0 : Math.max(0, reach - first);
  }

  private send(event: FinalEvent, run: FormattedRun): void {
    for (const r of run.redactions) this.formatting.onRedaction?.(r.type);
    this.emit({
      ...event,
      text: run.text,
      textSpoken: run.textSpoken,
      ...(event.words ? { words: run.words.map((w) => ({ ...w, ...label(event) })) } : {}),
      ...(this.formatting.redact.size > 0
        ? { redactions: run.redactions.map((r) => ({ ...r, ...label(event) })) }
        : {}),
    });
  }
}

const label = (event: FinalEvent) =>
  event.channel !== undefined ? { channel: event.channel, speaker: event.speaker } : {};
