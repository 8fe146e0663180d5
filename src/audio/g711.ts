/**
 * G.711 companding (ITU-T G.711), the telephony sample encodings of D19: μ-law (PCMU, North
 * America/Japan) and A-law (PCMA, Europe and the Middle East), 8 bits per sample. Written from the
 * standard's segment tables: 16-bit linear → 8-bit code and back, in-process (no ffmpeg).
 */

/** Sample encodings of raw PCM and WAV output: linear 16-bit, or G.711 μ-law / A-law. */
export const SAMPLE_ENCODINGS = ["pcm_s16le", "pcm_mulaw", "pcm_alaw"] as const;
/** One sample encoding. */
export type SampleEncoding = (typeof SAMPLE_ENCODINGS)[number];

/** Type guard for {@link SampleEncoding}. */
export function isSampleEncoding(value: unknown): value is SampleEncoding {
  return typeof value === "string" && (SAMPLE_ENCODINGS as readonly string[]).includes(value);
}

/** μ-law: linear magnitudes are offset by 132 so every segment starts on a power of two. */
const MULAW_BIAS = 0x84;
/** Largest magnitude μ-law represents (after which the code saturates). */
const MULAW_CLIP = 32635;

/** The segment (exponent) of a biased μ-law magnitude: the position of its highest bit above bit 7. */
function mulawSegment(biased: number): number {
  let segment = 7;
  for (let mask = 0x4000; (biased & mask) === 0 && segment > 0; mask >>= 1) segment--;
  return segment;
}

/** One 16-bit sample → its μ-law code. */
export function linearToMulaw(sample: number): number {
  const sign = sample < 0 ? 0x80 : 0;
  const magnitude = Math.min(sample < 0 ? -sample : sample, MULAW_CLIP) + MULAW_BIAS;
  const segment = mulawSegment(magnitude);
  const mantissa = (magnitude >> (segment + 3)) & 0x0f;
  return ~(sign | (segment << 4) | mantissa) & 0xff;
}

/** One μ-law code → its 16-bit sample. */
export function mulawToLinear(code: number): number {
  const inverted = ~code & 0xff;
  const segment = (inverted >> 4) & 0x07;
  const magnitude = ((((inverted & 0x0f) << 3) + MULAW_BIAS) << segment) - MULAW_BIAS;
  return inverted & 0x80 ? -magnitude : magnitude;
}

/** Upper ends of A-law's eight segments, on the 13-bit magnitude. */
const ALAW_SEGMENT_ENDS = [0x1f, 0x3f, 0x7f, 0xff, 0x1ff, 0x3ff, 0x7ff, 0xfff] as const;

/** One 16-bit sample → its A-law code (even bits inverted, as transmitted). */
export function linearToAlaw(sample: number): number {
  let value = sample >> 3; // A-law works on 13 bits
  let mask: number;
  if (value >= 0) mask = 0xd5;
  else {
    mask = 0x55;
    value = -value - 1;
  }
  const segment = ALAW_SEGMENT_ENDS.findIndex((end) => value <= end);
  if (segment < 0) return 0x7f ^ mask;
  const mantissa = segment < 2 ? (value >> 1) & 0x0f : (value >> segment) & 0x0f;
  return ((segment << 4) | mantissa) ^ mask;
}

/** One A-law code → its 16-bit sample. */
export function alawToLinear(code: number): number {
  const value = code ^ 0x55;
  const segment = (value & 0x70) >> 4;
  let magnitude = (value & 0x0f) << 4;
  if (segment === 0) magnitude += 8;
  else magnitude = (magnitude + 0x108) << (segment - 1);
  return value & 0x80 ? magnitude : -magnitude;
}

// Encoding tables over all 65,536 inputs: one lookup per sample on the hot path. Each is built on
// first use: building them at import took ~15 ms of every cold start (issue #19), telephony or not.
const encodeTables: { pcm_mulaw?: Uint8Array; pcm_alaw?: Uint8Array } = {};
const decodeTables: { pcm_mulaw?: Int16Array; pcm_alaw?: Int16Array } = {};

function encodeTable(encoding: "pcm_mulaw" | "pcm_alaw"): Uint8Array {
  const encode = encoding === "pcm_mulaw" ? linearToMulaw : linearToAlaw;
  return (encodeTables[encoding] ??= Uint8Array.from({ length: 65536 }, (_, i) => encode(i - 32768)));
}

function decodeTable(encoding: "pcm_mulaw" | "pcm_alaw"): Int16Array {
  const decode = encoding === "pcm_mulaw" ? mulawToLinear : alawToLinear;
  return (decodeTables[encoding] ??= Int16Array.from({ length: 256 }, (_, code) => decode(code)));
}

/** Encodes 16-bit samples as G.711 codes (one byte per sample). */
export function encodeG711(samples: Int16Array, encoding: "pcm_mulaw" | "pcm_alaw"): Uint8Array {
  const table = encodeTable(encoding);
  const out = new Uint8Array(samples.length);
  for (let i = 0; i < samples.length; i++) out[i] = table[samples[i]! + 32768]!;
  return out;
}

/** Decodes G.711 codes to 16-bit samples. */
export function decodeG711(codes: Uint8Array, encoding: "pcm_mulaw" | "pcm_alaw"): Int16Array {
  const table = decodeTable(encoding);
  const out = new Int16Array(codes.length);
  for (let i = 0; i < codes.length; i++) out[i] = table[codes[i]!]!;
  return out;
}
