/**
 * Ogg Opus (RFC 7845) through Debian's libopus (libopus0) with bun:ffi and the Ogg page writer of
 * ogg.ts: an identification header page, a comment header page, then 20 ms packets. Pre-skip is
 * the encoder's look-ahead; the input is padded by that much at the end so no speech is lost, and
 * the last page's granule position trims the padding away again (end trimming, RFC 7845 §4.4).
 */
import { CFunction, CString, type Pointer } from "bun:ffi";
import { concatBytes } from "../concat.ts";
import type { CodecLibraryStatus, PcmEncoder } from "./encoder.ts";
import { openCodecLibrary, type Opened } from "./native-library.ts";
import { OggStreamWriter } from "./ogg.ts";

/**
 * opus_encoder_ctl is variadic; it is declared with the fixed types of the SET request used (an
 * int), and a second function over the same address takes the GET request's int*. On the SysV
 * x86-64 and AAPCS64 Linux ABIs a variadic int or pointer is passed exactly like a named one.
 */
const SYMBOLS = {
  opus_encoder_create: { args: ["i32", "i32", "i32", "ptr"], returns: "ptr" },
  opus_encoder_ctl: { args: ["ptr", "i32", "i32"], returns: "i32" },
  opus_encode: { args: ["ptr", "ptr", "i32", "ptr", "i32"], returns: "i32" },
  opus_encoder_destroy: { args: ["ptr"], returns: "void" },
  opus_get_version_string: { args: [], returns: "ptr" },
} as const;

const OPUS_APPLICATION_AUDIO = 2049;
const OPUS_SET_BITRATE_REQUEST = 4002;
const OPUS_SET_COMPLEXITY_REQUEST = 4010;
/**
 * Encoder complexity 0–10 (libopus and ffmpeg default to 10). At 5 a response's encode takes half
 * the time; for speech at 24–32 kbit/s the difference is not audible.
 */
const COMPLEXITY = 5;
const OPUS_GET_LOOKAHEAD_REQUEST = 4027;
/** Opus decoders always run at 48 kHz; granule positions and pre-skip count 48 kHz samples. */
const DECODE_RATE = 48000;
/** The largest packet of one 20 ms mono frame is 1275 bytes (RFC 6716 §3.4). */
const MAX_PACKET = 1500;
const VENDOR = "sawt";

let opened: Opened<typeof SYMBOLS> | undefined;
const opus = (): Opened<typeof SYMBOLS> => (opened ??= openCodecLibrary("libopus.so.0", "SAWT_OPUS_LIB", SYMBOLS));

/** opus_encoder_ctl with an int* third argument (made once: each CFunction is a compiled trampoline). */
type CtlGet = (state: Pointer, request: number, out: Int32Array) => number;
let getCtl: CtlGet | undefined;

/** Whether libopus can be used, with its path and version. */
export function opusStatus(): CodecLibraryStatus {
  const lib = opus();
  if (!lib.ok) return lib;
  const version = lib.library.symbols.opus_get_version_string();
  return { ok: true, path: lib.path, version: version === null ? "unknown" : new CString(version).toString() };
}

/** OpusHead (RFC 7845 §5.1): version 1, mono, channel mapping family 0. */
export function opusHead(preSkip: number, inputRate: number): Uint8Array {
  const head = new Uint8Array(19);
  const view = new DataView(head.buffer);
  head.set(new TextEncoder().encode("OpusHead"));
  head[8] = 1;
  head[9] = 1;
  view.setUint16(10, preSkip, true);
  view.setUint32(12, inputRate, true);
  view.setInt16(16, 0, true);
  head[18] = 0;
  return head;
}

/** OpusTags (RFC 7845 §5.2) with a vendor string and no user comments. */
export function opusTags(vendor: string = VENDOR): Uint8Array {
  const name = new TextEncoder().encode(vendor);
  const tags = new Uint8Array(8 + 4 + name.length + 4);
  const view = new DataView(tags.buffer);
  tags.set(new TextEncoder().encode("OpusTags"));
  view.setUint32(8, name.length, true);
  tags.set(name, 12);
  view.setUint32(12 + name.length, 0, true);
  return tags;
}

/** An Ogg Opus encoder at `sampleRate` (8, 12, 16, 24 or 48 kHz) and `kbps`; throws when libopus is missing. */
export function createOggOpusEncoder(sampleRate: number, kbps: number): PcmEncoder {
  const lib = opus();
  if (!lib.ok) throw new Error(lib.reason);
  const fns = lib.library.symbols;
  const error = new Int32Array(1);
  let state = fns.opus_encoder_create(sampleRate, 1, OPUS_APPLICATION_AUDIO, error) as Pointer | null;
  if (state === null || error[0] !== 0) throw new Error(`opus_encoder_create failed (${error[0]})`);
  const close = (): void => {
    if (state !== null) fns.opus_encoder_destroy(state);
    state = null;
  };
  const lookahead = new Int32Array(1);
  const address = (fns.opus_encoder_ctl as unknown as { ptr: Pointer }).ptr;
  const ctlGet = (getCtl ??= CFunction({
    ptr: address,
    args: ["ptr", "i32", "ptr"],
    returns: "i32",
  }) as unknown as CtlGet);
  const configured =
    fns.opus_encoder_ctl(state, OPUS_SET_BITRATE_REQUEST, kbps * 1000) === 0 &&
    fns.opus_encoder_ctl(state, OPUS_SET_COMPLEXITY_REQUEST, COMPLEXITY) === 0 &&
    ctlGet(state, OPUS_GET_LOOKAHEAD_REQUEST, lookahead) === 0;
  if (!configured) {
    close();
    throw new Error("opus_encoder_ctl failed");
  }
  const scale = DECODE_RATE / sampleRate;
  const frame = sampleRate / 50;
  const preSkip = lookahead[0]! * scale;
  const ogg = new OggStreamWriter((Math.random() * 2 ** 32) >>> 0);
  const headers: Uint8Array[] = [];
  ogg.add(opusHead(preSkip, sampleRate), 0n);
  headers.push(...ogg.flush());
  ogg.add(opusTags(), 0n);
  headers.push(...ogg.flush());

  const carry = new Int16Array(frame);
  let carried = 0;
  let received = 0;
  let frames = 0;
  // The last packet waits for the next call so the end-of-stream page always has one to carry.
  let held: Uint8Array | undefined;
  const packet = new Uint8Array(MAX_PACKET);
  const live = (): Pointer => {
    if (state === null) throw new Error("the opus encoder is closed");
    return state;
  };
  const encodeFrame = (pcm: Int16Array): void => {
    const length = fns.opus_encode(live(), pcm, frame, packet, packet.length);
    if (length < 0) throw new Error(`opus_encode failed (${length})`);
    if (held !== undefined) ogg.add(held, BigInt(frames * frame * scale));
    frames++;
    held = packet.slice(0, length);
  };
  const feed = (samples: Int16Array): void => {
    let at = 0;
    if (carried > 0) {
      const take = Math.min(frame - carried, samples.length);
      carry.set(samples.subarray(0, take), carried);
      carried += take;
      at = take;
      if (carried < frame) return;
      encodeFrame(carry);
      carried = 0;
    }
    for (; at + frame <= samples.length; at += frame) encodeFrame(samples.subarray(at, at + frame));
    carry.set(samples.subarray(at));
    carried = samples.length - at;
  };
  return {
    encode(samples) {
      received += samples.length;
      feed(samples);
      const pages = ogg.flush();
      return concatBytes(headers.splice(0).concat(pages));
    },
    finish() {
      // A look-ahead's worth of silence lets the last real samples out; then complete the frame.
      feed(new Int16Array(lookahead[0]!));
      if (carried > 0) feed(new Int16Array(frame - carried));
      if (held === undefined) feed(new Int16Array(frame));
      ogg.add(held!, BigInt(preSkip + received * scale));
      held = undefined;
      return concatBytes(headers.splice(0).concat(ogg.flush(true)));
    },
    close,
  };
}
