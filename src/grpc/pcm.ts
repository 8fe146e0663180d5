/**
 * Raw PCM at the gRPC edge: the wire carries signed 16-bit little-endian mono (Riva's and
 * telephony's LINEAR_PCM), the engines float samples. Conversions and resampling are src/audio's;
 * this file only fits them to the two directions gRPC needs.
 */
import { encodeAudio, encodeAudioStream } from "../audio/encode.ts";
import { bytesToInt16, floatToInt16, int16ToBytes, int16ToFloat } from "../audio/wav.ts";

/** The rate the ASR engines take. */
export const ASR_SAMPLE_RATE = 16000;

/** s16le bytes → float samples (a trailing odd byte is ignored). */
export function s16leToFloat(bytes: Uint8Array): Float32Array {
  return int16ToFloat(bytesToInt16(bytes));
}

/** Synthesised float samples at `rate` → s16le at `target` (resampled when they differ). */
export async function toS16le(samples: Float32Array, rate: number, target: number, signal: AbortSignal): Promise<Uint8Array> {
  if (rate === target) return int16ToBytes(floatToInt16(samples));
  return (await encodeAudio(samples, rate, "pcm", { targetSampleRate: target, signal })).bytes;
}

/** A whole LINEAR_PCM recording at `rate` → 16 kHz float for the ASR engine. */
export async function pcmToAsrRate(bytes: Uint8Array, rate: number, signal: AbortSignal): Promise<Float32Array> {
  const samples = s16leToFloat(bytes);
  if (rate === ASR_SAMPLE_RATE) return samples;
  return s16leToFloat((await encodeAudio(samples, rate, "pcm", { targetSampleRate: ASR_SAMPLE_RATE, signal })).bytes);
}

/** Live float chunks at `rate` → 16 kHz float chunks, resampled by one streaming ffmpeg run as they come. */
export async function* streamToAsrRate(chunks: AsyncIterable<Float32Array>, rate: number, signal: AbortSignal): AsyncIterable<Float32Array> {
  if (rate === ASR_SAMPLE_RATE) {
    yield* chunks;
    return;
  }
  let carry: number | undefined;
  for await (let bytes of encodeAudioStream(chunks, rate, "pcm", { targetSampleRate: ASR_SAMPLE_RATE, signal })) {
    if (carry !== undefined) {
      const joined = new Uint8Array(bytes.length + 1);
      joined[0] = carry;
      joined.set(bytes, 1);
      bytes = joined;
      carry = undefined;
    }
    if (bytes.length % 2 === 1) carry = bytes[bytes.length - 1];
    if (bytes.length > 1) yield s16leToFloat(bytes);
  }
}
