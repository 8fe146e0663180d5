/**
 * Speaker labels of a recording's channels (issue #27): a request's `speakers` (REST form
 * `speakers=agent,customer`, gRPC `speakers`, realtime `session.speakers`), else the server's
 * `asr.speakers`, else `ch0`, `ch1`, …. One schema checks them on every door, so a label is always
 * safe inside a VTT voice tag (`<v agent>`), an SRT line and a JSON field.
 */
import * as v from "valibot";
import { MAX_CHANNELS } from "../core/asr.ts";

/** A speaker label: 1–32 letters (any script), digits, `_`, `-` or `.`. */
export const SPEAKER_LABEL = /^[\p{L}\p{N}_.-]{1,32}$/u;

/** What a bad label is told. */
const LABEL_RULE = "Each speaker label must be 1-32 letters, digits, '_', '-' or '.'";

/** The speaker labels of one request, in channel order: at most one per channel, no repeats. */
export const SpeakersSchema = v.pipe(
  v.array(v.string("Must be a list of speaker labels"), "Must be a list of speaker labels"),
  v.minLength(1, "Must name at least one speaker"),
  v.maxLength(MAX_CHANNELS, `At most ${MAX_CHANNELS} speakers (one per channel)`),
  v.check((labels) => labels.every((label) => SPEAKER_LABEL.test(label)), LABEL_RULE),
  v.check((labels) => new Set(labels).size === labels.length, "Speaker labels must differ"),
);

/**
 * `agent, customer` → `["agent", "customer"]` (items trimmed; empty items kept, so the schema
 * refuses them); a JSON array of strings (`["agent","customer"]`) is read as one too.
 */
export function speakerList(text: string): string[] {
  const trimmed = text.trim();
  if (trimmed.startsWith("[")) {
    try {
      const parsed: unknown = JSON.parse(trimmed);
      if (Array.isArray(parsed) && parsed.every((item) => typeof item === "string")) return parsed;
    } catch {
      // Not JSON: read as a comma list, whose labels the schema then refuses.
    }
  }
  return trimmed.split(",").map((label) => label.trim());
}

/** The label of `channel`: the request's, else the server's, else `ch<n>`. */
export function speakerOf(channel: number, ...maps: ReadonlyArray<readonly string[] | undefined>): string {
  for (const map of maps) {
    const label = map?.[channel];
    if (label !== undefined) return label;
  }
  return `ch${channel}`;
}

/** The labels of `count` channels. */
export function speakersOf(count: number, ...maps: ReadonlyArray<readonly string[] | undefined>): string[] {
  return Array.from({ length: count }, (_, channel) => speakerOf(channel, ...maps));
}
