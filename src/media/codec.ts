/**
 * The RTP audio codecs Sawt speaks (RFC 3551: PCMU 0 and PCMA 8 at 8 kHz; L16, big-endian, on a
 * dynamic payload type at 8 or 16 kHz) and what each is in Sawt's own terms: the live core's input
 * format and the synthesis encoding. Every RTP door (MRCP, externalMedia) maps codecs here.
 */
import type { LiveAudioFormat } from "../audio/live-input.ts";

/** An RTP audio codec with its payload type. */
export interface AudioCodec {
  readonly name: "PCMU" | "PCMA" | "L16";
  readonly payloadType: number;
  readonly rate: 8000 | 16000;
}

/** The static payload types of RFC 3551 that Sawt speaks. */
export const STATIC_CODECS: Readonly<Record<string, AudioCodec>> = {
  "0": { name: "PCMU", payloadType: 0, rate: 8000 },
  "8": { name: "PCMA", payloadType: 8, rate: 8000 },
};

/** The live core's input format for a codec (L16 arrives big-endian: swap it with {@link swap16} first). */
export function liveFormatOf(codec: AudioCodec): LiveAudioFormat {
  if (codec.name === "PCMU") return { encoding: "pcm_mulaw", sampleRate: 8000 };
  if (codec.name === "PCMA") return { encoding: "pcm_alaw", sampleRate: 8000 };
  return { encoding: "pcm_s16le", sampleRate: codec.rate };
}

/** The synthesis encoding for a codec (L16 is byte-swapped after, with {@link swap16}). */
export function synthesisEncodingOf(codec: AudioCodec): "pcm_mulaw" | "pcm_alaw" | "pcm_s16le" {
  return codec.name === "PCMU" ? "pcm_mulaw" : codec.name === "PCMA" ? "pcm_alaw" : "pcm_s16le";
}

/** Swaps 16-bit byte order (L16 is big-endian on the wire, Sawt's PCM little-endian). */
export function swap16(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(bytes.length - (bytes.length % 2));
  for (let i = 0; i + 1 < bytes.length; i += 2) {
    out[i] = bytes[i + 1]!;
    out[i + 1] = bytes[i]!;
  }
  return out;
}
