/**
 * The chan_websocket door's cases (./chan-websocket.ts): the messages of one socket, in plain text
 * or JSON control, and the outcome docs/asterisk.md gives them.
 */
import { NASTY_STRINGS, type Random } from "../fuzz/random.ts";

const FORMATS: Record<string, number> = { ulaw: 160, alaw: 160, slin: 320, slin16: 640, slin48: 1920 };
const BAD_FORMATS = ["opus", "g722", "slin96", "slin192", "gsm", "", "ulaw,alaw", "μlaw"];
const CONTROL = [
  "DTMF_END",
  "MEDIA_XOFF",
  "MEDIA_XON",
  "MEDIA_BUFFERING_COMPLETED",
  "MEDIA_MARK_PROCESSED",
  "STATUS",
  "QUEUE_DRAINED",
  "ERROR",
  "MEDIA_START",
  "FOO_BAR",
  "REPORT_QUEUE_DRAINED",
];
/** Texts that are no event (Elysia parses some as JSON, numbers or booleans; none names an event). */
const NOT_EVENTS = [
  "",
  "   ",
  "hello",
  "media_start channel_id:x",
  "123",
  "true",
  "null",
  "[1,2]",
  '{"foo":1}',
  "{broken",
  "/x",
  '{"event":5}',
];

/** What the box must do with a case's socket. */
export interface Expect {
  /** `open`: a call is up; `silent`: closed 1008 at the identify timeout; else closed with this code. */
  readonly outcome: "open" | "silent" | number;
  /** The close reason starts so. */
  readonly reason?: string;
  readonly refusal?: "protocol" | "key" | "silent";
}

/** One case's messages and what they must lead to. */
export interface Case {
  readonly label: string;
  readonly query: string;
  readonly json: boolean;
  readonly messages: (string | Uint8Array)[];
  readonly expect: Expect;
  readonly channelId: string;
}

/** A control event in plain text or JSON. */
export function event(json: boolean, name: string, params: Record<string, unknown> = {}, bare?: string): string {
  if (json) return JSON.stringify({ event: name, ...params });
  const parts = bare !== undefined ? [bare] : Object.entries(params).map(([k, v]) => `${k}:${String(v)}`);
  return [name, ...parts].join(" ");
}

function mediaStart(json: boolean, fields: Record<string, unknown>, variables?: Record<string, unknown>): string {
  const start = { connection_id: "sawt", channel: "WebSocket/sawt/0x1", ptime: 20, ...fields };
  return event(json, "MEDIA_START", json && variables ? { ...start, channel_variables: variables } : start);
}

/** Messages on a call that is up: none of them ends it. */
function during(r: Random, json: boolean, format: string): string | Uint8Array {
  const roll = r.next();
  if (roll < 0.45) {
    const frame = FORMATS[format] ?? 160;
    return r.bytes(r.pick([frame, frame, 2 * frame, 1, 0, 3, frame - 1, r.int(0, 4000)]));
  }
  if (roll < 0.85) {
    const name = r.pick(CONTROL);
    if (name === "MEDIA_MARK_PROCESSED")
      return json ? event(json, name, { correlation_id: r.pick(["default#1", "x", 7]) }) : event(json, name, {}, "x#9");
    const digit = r.pick(["5", "#", "", "12", r.pick(NASTY_STRINGS).replace(/\s/g, "")]);
    return event(json, name, name === "DTMF_END" ? { digit, channel_id: "c" } : { channel_id: r.pick(["c", "", 3]) });
  }
  return r.pick(NOT_EVENTS);
}

/** Draws a case; `open` is the channel id of a call this worker holds open, if any. */
export function drawCase(r: Random, open: string | undefined): Case {
  const json = r.chance(0.5);
  const format = r.pick(Object.keys(FORMATS));
  const channelId = `fz-${crypto.randomUUID()}`;
  const named = r.chance(0.2) ? format.toUpperCase() : format;
  const good = () =>
    mediaStart(json, {
      channel_id: channelId,
      format: named,
      optimal_frame_size: r.pick([FORMATS[format], 0, -1, "x", 7, 1e9]),
    });
  const base = { json, channelId, query: "" };
  const protocol = (reason: string, code = 1008): Expect => ({ outcome: code, reason, refusal: "protocol" });
  const kinds: (() => Case)[] = [
    () => {
      const after = Array.from({ length: r.int(0, 8) }, () => during(r, json, format));
      return { ...base, label: "call", messages: [good(), ...after], expect: { outcome: "open" } };
    },
    () => ({
      ...base,
      label: "media before MEDIA_START",
      messages: [r.bytes(r.int(0, 400)), good()],
      expect: protocol("media before MEDIA_START"),
    }),
    () => {
      const name = r.pick(CONTROL.filter((c) => c !== "MEDIA_START").concat(["HANGUP"]));
      return {
        ...base,
        label: "event before MEDIA_START",
        messages: [event(json, name, { channel_id: channelId }), good()],
        expect: protocol(`${name} before MEDIA_START`),
      };
    },
    () => ({
      ...base,
      label: "text that is no event, then silence",
      messages: [r.pick(NOT_EVENTS)],
      expect: { outcome: "silent", refusal: "silent" },
    }),
    () => ({ ...base, label: "nothing", messages: [], expect: { outcome: "silent", refusal: "silent" } }),
    () => {
      const id = r.pick<unknown>(["", undefined, ...(json ? [{}, [], null] : [])]);
      const fields: Record<string, unknown> = { format };
      if (id !== undefined) fields.channel_id = id;
      return {
        ...base,
        label: "MEDIA_START without channel_id",
        messages: [mediaStart(json, fields)],
        expect: protocol("MEDIA_START without channel_id"),
      };
    },
    () => {
      const bad = r.pick<unknown>([...BAD_FORMATS, ...(json ? [5, null, ["ulaw"]] : [])]);
      const fields: Record<string, unknown> = { channel_id: channelId };
      if (r.chance(0.9)) fields.format = bad;
      const text = mediaStart(json, fields);
      // A bad format that is empty in plain text is no `format:` parameter at all: the same refusal.
      return { ...base, label: "a format Sawt does not take", messages: [text], expect: protocol("format", 1003) };
    },
    () => ({
      ...base,
      label: "MEDIA_START of a call that is open",
      channelId: open ?? channelId,
      messages: [mediaStart(json, { channel_id: open ?? channelId, format })],
      expect: open ? protocol("Call") : { outcome: "open" },
    }),
    () =>
      json
        ? {
            ...base,
            label: "a SAWT_KEY_ID that names no key",
            messages: [
              mediaStart(
                json,
                { channel_id: channelId, format },
                {
                  [r.pick(["SAWT_KEY_ID", "_SAWT_KEY_ID", "__SAWT_KEY_ID"])]: r.pick([
                    "abcdefghijkl",
                    "nope",
                    "x".repeat(200),
                  ]),
                },
              ),
            ],
            expect: { outcome: 1008, reason: "No API key", refusal: "key" },
          }
        : {
            ...base,
            query: `?SAWT_KEY_ID=${encodeURIComponent(r.pick(["abcdefghijkl", "nope", "%00"]))}`,
            label: "a SAWT_KEY_ID in the URI that names no key",
            messages: [good()],
            expect: { outcome: 1008, reason: "No API key", refusal: "key" },
          },
    () => ({
      ...base,
      label: "channel variables of any shape",
      messages: [
        mediaStart(
          true,
          { channel_id: channelId, format },
          r.pick<Record<string, unknown>>([{ SAWT_KEY_ID: 5 }, { SAWT_KEY_ID: " " }, { x: { y: [] } }]),
        ),
      ],
      json: true,
      expect: { outcome: "open" },
    }),
    () => ({
      ...base,
      label: "media over 64 KiB",
      messages: [good(), r.bytes(r.int(65_537, 80_000))],
      expect: protocol("message too big", 1009),
    }),
    () => ({
      ...base,
      label: "text over 64 KiB",
      messages: [mediaStart(json, { channel_id: "x".repeat(r.int(65_537, 70_000)), format })],
      expect: protocol("message too big", 1009),
    }),
  ];
  return r.pick(kinds)();
}
