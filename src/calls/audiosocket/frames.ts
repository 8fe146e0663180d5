/**
 * AudioSocket frames as Asterisk's `include/asterisk/res_audiosocket.h` defines them (Asterisk 20
 * and later, master as of 2025): a 1-byte kind, a 2-byte big-endian payload length, the payload.
 * Kinds: 0x00 hangup, 0x01 the call's UUID (16 bytes), 0x03 one DTMF digit (its ASCII byte), 0x10
 * signed-linear audio at 8 kHz, 0x11–0x18 the same at 12, 16, 24, 32, 44.1, 48, 96 and 192 kHz
 * (`Dial(AudioSocket/host:port/uuid/c(slin16))` sends 0x12), 0xFF an error on Asterisk's side.
 * Linear audio is 16-bit in host order: little-endian on every machine Asterisk runs on.
 */
import type { CallFormat } from "../format.ts";

/** The frame kinds Sawt reads or writes. */
export const KIND = { hangup: 0x00, uuid: 0x01, dtmf: 0x03, error: 0xff } as const;

/** Audio kinds and their rates (res_audiosocket.h `AST_AUDIOSOCKET_KIND_AUDIO*`). */
const AUDIO_RATES: ReadonlyMap<number, number> = new Map([
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

/** Bytes of the header. */
export const HEADER_BYTES = 3;
/**
 * Largest payload read: 20 ms at 48 kHz is 1,920 bytes and Asterisk writes one voice frame per
 * message, so anything near the 16-bit length's 65,535 is not Asterisk's; it is refused rather
 * than buffered.
 */
export const MAX_PAYLOAD = 16_384;

/** One frame. */
export interface Frame {
  readonly kind: number;
  readonly payload: Uint8Array;
}

/** The linear rate an audio kind carries, or undefined when the kind is not audio. */
export function audioRate(kind: number): number | undefined {
  return AUDIO_RATES.get(kind);
}

/** The audio kind of a call format (the kind Sawt answers in). */
export function audioKind(format: CallFormat): number {
  for (const [kind, rate] of AUDIO_RATES) if (rate === format.sampleRate) return kind;
  throw new RangeError(`No AudioSocket kind for ${format.sampleRate} Hz`);
}

/** A frame's bytes. */
export function encodeFrame(kind: number, payload: Uint8Array = new Uint8Array(0)): Uint8Array {
  const out = new Uint8Array(HEADER_BYTES + payload.length);
  out[0] = kind;
  out[1] = payload.length >> 8;
  out[2] = payload.length & 0xff;
  out.set(payload, HEADER_BYTES);
  return out;
}

/** The UUID payload as the canonical lower-case 8-4-4-4-12 text (the call id). */
export function uuidText(payload: Uint8Array): string | undefined {
  if (payload.length !== 16) return undefined;
  const hex = Buffer.from(payload).toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A byte stream that is not AudioSocket. */
export class FrameError extends Error {}

/** Reads frames out of a TCP byte stream, however it was chunked; see the file comment. */
export class FrameReader {
  private buffer = new Uint8Array(0);

  /** The frames `chunk` completes; throws {@link FrameError} on a payload over {@link MAX_PAYLOAD}. */
  push(chunk: Uint8Array): Frame[] {
    let data = chunk;
    if (this.buffer.length > 0) {
      data = new Uint8Array(this.buffer.length + chunk.length);
      data.set(this.buffer);
      data.set(chunk, this.buffer.length);
    }
    const frames: Frame[] = [];
    let at = 0;
    while (data.length - at >= HEADER_BYTES) {
      const length = (data[at + 1]! << 8) | data[at + 2]!;
      if (length > MAX_PAYLOAD) throw new FrameError(`frame of ${length} bytes (at most ${MAX_PAYLOAD})`);
      if (data.length - at < HEADER_BYTES + length) break;
      frames.push({ kind: data[at]!, payload: data.slice(at + HEADER_BYTES, at + HEADER_BYTES + length) });
      at += HEADER_BYTES + length;
    }
    this.buffer = data.slice(at);
    return frames;
  }
}
