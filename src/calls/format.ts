/**
 * A call's audio format on its door, in Sawt's terms: linear 16-bit little-endian PCM at the
 * door's rate (AudioSocket's kinds, chan_websocket's `slin*`) or 8 kHz G.711 (chan_websocket and
 * externalMedia `ulaw`/`alaw`). One format both ways: the caller's audio is transcribed in it and
 * Sawt's speech is synthesised into it, in 20 ms frames.
 */
import type { SampleEncoding } from "../audio/g711.ts";
import { type LiveAudioFormat, liveFormatProblem } from "../audio/live-input.ts";

/** A call's format: the live core's input format, which is also the synthesis target. */
export type CallFormat = LiveAudioFormat;

/** Milliseconds of one frame on every call door. */
export const FRAME_MS = 20;

/** Bytes of one 20 ms frame. */
export function frameBytes(format: CallFormat): number {
  return ((format.sampleRate * FRAME_MS) / 1000) * (format.encoding === "pcm_s16le" ? 2 : 1);
}

/** Samples of one 20 ms frame. */
export function frameSamples(format: CallFormat): number {
  return (format.sampleRate * FRAME_MS) / 1000;
}

/** The byte of digital silence (G.711's zero level; linear PCM's 0). */
export function silenceByte(format: CallFormat): number {
  return format.encoding === "pcm_mulaw" ? 0xff : format.encoding === "pcm_alaw" ? 0xd5 : 0;
}

/** Milliseconds of audio in `bytes`. */
export function msOf(format: CallFormat, bytes: number): number {
  return (bytes / frameBytes(format)) * FRAME_MS;
}

/** The format's name as Asterisk names it (`slin`, `slin16`, `ulaw`, `alaw`): events and logs use it. */
export function formatName(format: CallFormat): string {
  if (format.encoding === "pcm_mulaw") return "ulaw";
  if (format.encoding === "pcm_alaw") return "alaw";
  return format.sampleRate === 8000 ? "slin" : `slin${Math.round(format.sampleRate / 1000)}`;
}

/** Asterisk's format names Sawt takes (chan_websocket's `format`, externalMedia's). */
const NAMED: Readonly<Record<string, CallFormat>> = {
  ulaw: { encoding: "pcm_mulaw", sampleRate: 8000 },
  alaw: { encoding: "pcm_alaw", sampleRate: 8000 },
  slin: { encoding: "pcm_s16le", sampleRate: 8000 },
  slin12: { encoding: "pcm_s16le", sampleRate: 12000 },
  slin16: { encoding: "pcm_s16le", sampleRate: 16000 },
  slin24: { encoding: "pcm_s16le", sampleRate: 24000 },
  slin32: { encoding: "pcm_s16le", sampleRate: 32000 },
  slin44: { encoding: "pcm_s16le", sampleRate: 44100 },
  slin48: { encoding: "pcm_s16le", sampleRate: 48000 },
};

/** The format Asterisk names `name`, or undefined when Sawt does not take it (opus, g722, slin96…). */
export function namedFormat(name: string): CallFormat | undefined {
  const format = NAMED[name.trim().toLowerCase()];
  return format && liveFormatProblem(format) === null ? format : undefined;
}

/** The names {@link namedFormat} takes, for messages. */
export const FORMAT_NAMES = Object.keys(NAMED);
