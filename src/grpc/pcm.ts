/**
 * Raw audio at the gRPC ASR edge: LINEAR_PCM (signed 16-bit little-endian mono, Riva's and
 * telephony's) and 8 kHz G.711 MULAW / ALAW, brought to the engine's 16 kHz float samples. The
 * decoding and the one streaming resampler are src/audio's (live-input.ts, resampler.ts); this
 * file only fits them to the proto's encodings, whole recordings and live streams.
 */
import type { SampleEncoding } from "../audio/g711.ts";
import { decodeLiveRecording, LiveAudioInput, type LiveAudioFormat } from "../audio/live-input.ts";
import { StreamingResampler } from "../audio/resampler.ts";
import { SPEECH_SAMPLE_RATE } from "../audio/speech-rate.ts";
import { bytesToInt16, int16ToFloat } from "../audio/wav.ts";

/** The proto's raw sample encodings (Riva's numbering) and the sample encoding each stands for. */
export const RAW_ENCODINGS: Readonly<Record<string, SampleEncoding>> = {
  LINEAR_PCM: "pcm_s16le",
  MULAW: "pcm_mulaw",
  ALAW: "pcm_alaw",
};

/** The live format of a raw proto encoding at `rate` (G.711 is always 8 kHz: a rate of 0 means that). */
export function rawFormat(encoding: string, rate: number): LiveAudioFormat | undefined {
  const sampleEncoding = RAW_ENCODINGS[encoding];
  if (!sampleEncoding) return undefined;
  return { encoding: sampleEncoding, sampleRate: sampleEncoding !== "pcm_s16le" && rate === 0 ? 8000 : rate };
}

/** s16le bytes → float samples (a trailing odd byte is ignored). */
export function s16leToFloat(bytes: Uint8Array): Float32Array {
  return int16ToFloat(bytesToInt16(bytes));
}

/**
 * Cuts a byte stream into whole 16-bit samples: a chunk may end halfway through a sample, so its
 * last odd byte is carried to the front of the next chunk. Returns the aligned part of each chunk.
 */
export function s16leAligner(): (chunk: Uint8Array) => Uint8Array {
  let carry: number | undefined;
  return (chunk) => {
    let bytes = chunk;
    if (carry !== undefined) {
      bytes = new Uint8Array(chunk.length + 1);
      bytes[0] = carry;
      bytes.set(chunk, 1);
      carry = undefined;
    }
    if (bytes.length % 2 === 1) {
      carry = bytes[bytes.length - 1];
      bytes = bytes.subarray(0, bytes.length - 1);
    }
    return bytes;
  };
}

/** A whole LINEAR_PCM recording at `rate` → 16 kHz float for the ASR engine. */
export async function pcmToAsrRate(bytes: Uint8Array, rate: number, signal?: AbortSignal): Promise<Float32Array> {
  signal?.throwIfAborted();
  return rawToAsrRate(bytes, { encoding: "pcm_s16le", sampleRate: rate });
}

/** A whole raw recording in `format` → 16 kHz float (the streaming path, in one push). */
export function rawToAsrRate(bytes: Uint8Array, format: LiveAudioFormat): Float32Array {
  return decodeLiveRecording(bytes, format);
}

/** Live float chunks at `rate` → 16 kHz float chunks, through the one streaming resampler. */
export async function* streamToAsrRate(
  chunks: AsyncIterable<Float32Array>,
  rate: number,
  signal?: AbortSignal,
): AsyncIterable<Float32Array> {
  const resampler = new StreamingResampler(rate, SPEECH_SAMPLE_RATE);
  for await (const chunk of chunks) {
    signal?.throwIfAborted();
    const out = resampler.push(chunk);
    if (out.length > 0) yield out;
  }
  const tail = resampler.flush();
  if (tail.length > 0) yield tail;
}

/** Live raw byte chunks in `format` → 16 kHz float chunks (odd bytes carried, G.711 decoded). */
export async function* rawStreamToAsrRate(
  chunks: AsyncIterable<Uint8Array>,
  format: LiveAudioFormat,
): AsyncIterable<Float32Array> {
  const input = new LiveAudioInput(format);
  for await (const chunk of chunks) {
    const out = input.push(chunk);
    if (out.length > 0) yield out;
  }
  const tail = input.flush();
  if (tail.length > 0) yield tail;
}
