/**
 * The AudioSocket door's cases and their expected outcome (./audiosocket.ts). A case is a byte
 * stream built from frames — the ones Asterisk sends (UUID, slin audio in one kind, DTMF, hangup,
 * error) from the npm `asterisk-audiosocket` codec where it knows the kind, the rest from
 * res_audiosocket.h's layout — and breaks: wrong first frames, UUIDs of the wrong size, unknown
 * kinds, rates Sawt does not take, a kind changing mid-call, lengths over the 16 KiB bound, length
 * lies, truncation, random bytes. {@link expected} reads the stream as docs/asterisk.md says the
 * door does, independently of src/: the outcome the connection must have and the refusal it counts.
 */
import { encodeFrame, FrameType } from "asterisk-audiosocket";
import type { Random } from "../fuzz/random.ts";

/** What the box does with a stream (see {@link expected}). */
export type Outcome =
  /** Sends one 0x00 frame and closes: a refusal, or the end of a call that was open. */
  | "hangup"
  /** Closes and sends nothing: the peer's 0x00 or 0xff before any call opened. */
  | "close"
  /** A call is open: the connection stays until the peer hangs up, or the call is idle. */
  | "open"
  /** Nothing identified the connection (no UUID and first audio): the hangup frame after `calls.identify_timeout_s`. */
  | "silent";

/** An expected outcome, and the refusal the box counts for it. */
export interface Expectation {
  readonly outcome: Outcome;
  /** `sawt_calls_refused_total{door="audiosocket",reason}` it adds to. */
  readonly refusal?: "protocol" | "silent";
  /**
   * Also allowed: the box reads a TCP chunk's frame headers before it acts on any frame, so a
   * length over the bound later in the same chunk as a 0x00 or 0xff may be read first (a protocol
   * refusal, a hangup frame).
   */
  readonly or?: Expectation;
  /** A frame is cut short at the end of the stream (a 0x00 written after it would be its payload). */
  readonly partial?: boolean;
}

/** Audio kinds and their rates (res_audiosocket.h); Sawt takes 8 to 48 kHz. */
export const RATES: ReadonlyMap<number, number> = new Map([
  [0x10, 8000],
  [0x11, 12000],
  [0x12, 16000],
  [0x13, 24000],
  [0x14, 32000],
  [0x15, 44100],
  [0x16, 48000],
  [0x17, 96000],
  [0x18, 192000],
]);
const MAX_PAYLOAD = 16_384;
const KNOWN = new Set([0x00, 0x01, 0x03, 0xff, ...RATES.keys()]);

/** A frame from the documented layout: kind, 16-bit big-endian length, payload. */
export function layoutFrame(kind: number, payload: Uint8Array, length = payload.length): Uint8Array {
  const out = new Uint8Array(3 + payload.length);
  out[0] = kind;
  out[1] = (length >> 8) & 0xff;
  out[2] = length & 0xff;
  out.set(payload, 3);
  return out;
}

/** The UUID frame of `id` (the npm codec's). */
export function uuidFrame(id: string): Uint8Array {
  return encodeFrame(FrameType.UUID, Buffer.from(id.replace(/-/g, ""), "hex"));
}

/** The 0x00 hangup frame (the npm codec's). */
export const HANGUP = new Uint8Array(encodeFrame(FrameType.HANGUP));

/** One audio frame of `kind` (20 ms of a quiet tone at its rate, or `bytes` of it). */
export function audioFrame(kind: number, random: Random, bytes?: number): Uint8Array {
  const rate = RATES.get(kind) ?? 8000;
  const length = bytes ?? Math.min(MAX_PAYLOAD, (rate / 50) * 2);
  const pcm = Buffer.alloc(length);
  for (let i = 0; i + 1 < length; i += 2) pcm.writeInt16LE(Math.round(800 * Math.sin(i / 7) + random.int(-50, 50)), i);
  return kind === 0x10 ? new Uint8Array(encodeFrame(FrameType.AUDIO, pcm)) : layoutFrame(kind, pcm);
}

/** A kind the box does not know. */
export function unknownKind(random: Random): number {
  for (;;) {
    const kind = random.int(0, 255);
    if (!KNOWN.has(kind)) return kind;
  }
}

/** Reads `stream` as the door does; `taken` says a call with the stream's UUID is open already. */
export function expected(stream: Uint8Array, taken: (uuid: string) => boolean): Expectation {
  let uuid: string | undefined;
  let kind: number | undefined;
  const protocol: Expectation = { outcome: "hangup", refusal: "protocol" };
  // Outcomes that a length over the bound later in the stream may pre-empt.
  const unlessOversize = (outcome: Expectation, at: number): Expectation =>
    oversizeFrom(stream, at) ? { ...outcome, or: protocol } : outcome;
  let at = 0;
  while (stream.length - at >= 3) {
    const length = (stream[at + 1]! << 8) | stream[at + 2]!;
    if (length > MAX_PAYLOAD) return protocol;
    if (stream.length - at < 3 + length) break;
    const frameKind = stream[at]!;
    const payload = stream.subarray(at + 3, at + 3 + length);
    at += 3 + length;
    if (frameKind === 0x00) return unlessOversize({ outcome: kind === undefined ? "close" : "hangup" }, at);
    if (uuid === undefined) {
      if (frameKind !== 0x01 || length !== 16) return protocol;
      uuid = Buffer.from(payload).toString("hex");
      continue;
    }
    if (frameKind === 0x03) continue;
    if (frameKind === 0xff) return unlessOversize({ outcome: kind === undefined ? "close" : "hangup" }, at);
    const rate = RATES.get(frameKind);
    if (rate === undefined) return protocol;
    if (kind === undefined) {
      if (rate > 48000 || taken(uuid)) return protocol;
      kind = frameKind;
    }
    if (frameKind !== kind) return protocol;
  }
  return kind === undefined
    ? { outcome: "silent", refusal: "silent" }
    : { outcome: "open", partial: at < stream.length };
}

/** Whether a frame header from `at` on declares a length over the bound. */
function oversizeFrom(stream: Uint8Array, at: number): boolean {
  while (stream.length - at >= 3) {
    const length = (stream[at + 1]! << 8) | stream[at + 2]!;
    if (length > MAX_PAYLOAD) return true;
    at += 3 + length;
  }
  return false;
}

/** A UUID as its 16 bytes' hex (the form {@link expected} names it by). */
export const uuidHex = (id: string): string => id.replace(/-/g, "");

/** One case: its label, its bytes, the UUID of the call it opens (when it may). */
export interface AudioSocketCase {
  readonly label: string;
  readonly stream: Uint8Array;
  readonly uuid: string;
}

const join = (...parts: Uint8Array[]): Uint8Array => new Uint8Array(Buffer.concat(parts));

/** The label of the case whose UUID names a call another connection opened first (./audiosocket.ts opens it). */
export const TAKEN_LABEL = "UUID of a call that is open";

/** Draws a case. */
export function drawCase(random: Random): AudioSocketCase {
  const uuid = crypto.randomUUID();
  const kind = random.pick([0x10, 0x10, 0x12, 0x11, 0x16]);
  const good = () => Array.from({ length: random.int(1, 4) }, () => audioFrame(kind, random));
  const head = () => join(uuidFrame(uuid), ...good());
  const dtmf = () => layoutFrame(0x03, Buffer.from(random.pick(["5", "#", "*", "A", "\u0000", "xy", ""])));
  const cases: [string, () => Uint8Array][] = [
    ["call", () => join(head(), ...(random.chance(0.3) ? [dtmf()] : []), ...good())],
    ["call with DTMF of any size", () => join(head(), layoutFrame(0x03, random.bytes(random.int(0, 40))), ...good())],
    ["audio before the UUID", () => join(audioFrame(kind, random), uuidFrame(uuid))],
    ["DTMF before the UUID", () => join(dtmf(), uuidFrame(uuid))],
    ["error frame first", () => layoutFrame(0xff, random.bytes(random.int(0, 2)))],
    ["hangup first", () => join(HANGUP, ...(random.chance(0.5) ? [uuidFrame(uuid)] : []))],
    ["unknown kind first", () => layoutFrame(unknownKind(random), random.bytes(random.int(0, 64)))],
    ["UUID of the wrong size", () => layoutFrame(0x01, random.bytes(random.pick([0, 1, 15, 17, 32, 36, 400])))],
    ["UUID as text", () => layoutFrame(0x01, Buffer.from(uuid))],
    ["UUID then hangup", () => join(uuidFrame(uuid), HANGUP)],
    ["UUID then error", () => join(uuidFrame(uuid), layoutFrame(0xff, Uint8Array.of(random.int(0, 255))))],
    ["two UUIDs", () => join(head(), uuidFrame(crypto.randomUUID()))],
    [TAKEN_LABEL, () => join(uuidFrame(uuid), ...good(), ...good())],
    ["unknown kind mid-call", () => join(head(), layoutFrame(unknownKind(random), random.bytes(random.int(0, 99))))],
    ["kind changes mid-call", () => join(head(), audioFrame(kind === 0x10 ? 0x12 : 0x10, random))],
    ["rate over 48 kHz", () => join(uuidFrame(uuid), audioFrame(random.pick([0x17, 0x18]), random, 640))],
    ["odd-sized audio", () => join(uuidFrame(uuid), audioFrame(kind, random, random.int(0, 2000)))],
    ["audio at the bound", () => join(uuidFrame(uuid), audioFrame(0x16, random, MAX_PAYLOAD))],
    [
      "length over the bound",
      () =>
        join(uuidFrame(uuid), layoutFrame(0x10, random.bytes(random.int(0, 20)), random.int(MAX_PAYLOAD + 1, 65535))),
    ],
    [
      "length over the bound first",
      () => layoutFrame(random.int(0, 255), new Uint8Array(0), random.int(MAX_PAYLOAD + 1, 65535)),
    ],
    [
      "length lie mid-call",
      () => join(head(), layoutFrame(kind, random.bytes(random.int(0, 100)), random.int(200, MAX_PAYLOAD))),
    ],
    ["length lie in the UUID", () => layoutFrame(0x01, random.bytes(random.int(0, 15)), 16)],
    ["truncated header", () => join(head(), Uint8Array.of(kind, 0x01).subarray(0, random.int(1, 2)))],
    ["hangup then more", () => join(head(), HANGUP, ...good())],
    ["random bytes", () => random.bytes(random.int(1, 300))],
    [
      "random frames",
      () =>
        join(
          ...Array.from({ length: random.int(1, 6) }, () =>
            layoutFrame(
              random.pick([0x00, 0x01, 0x03, 0x10, 0x12, 0xff, unknownKind(random)]),
              random.bytes(random.pick([0, 1, 16, 320])),
            ),
          ),
        ),
    ],
    ["HTTP on the port", () => Buffer.from("GET / HTTP/1.1\r\nHost: x\r\n\r\n")],
    ["nothing", () => new Uint8Array(0)],
  ];
  const [label, build] = random.pick(cases);
  return { label, stream: build(), uuid };
}
