/**
 * LINEAR_PCM at the ASR edge: the wire carries signed 16-bit little-endian mono (Riva's and
 * telephony's), the ASR engine 16 kHz float samples. Conversions and resampling are src/audio's;
 * this file only fits them to whole recordings and live streams.
 */
import { SPEECH_SAMPLE_RATE } from "../audio/speech-rate.ts";
import { encodeAudio, encodeAudioStream } from "../audio/encode.ts";
import { bytesToInt16, int16ToFloat } from "../audio/wav.ts";

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
export async function pcmToAsrRate(bytes: Uint8Array, rate: number, signal: AbortSignal): Promise<Float32Array> {
  const samples = s16leToFloat(bytes);
  if (rate === SPEECH_SAMPLE_RATE) return samples;
  return s16leToFloat((await encodeAudio(samples, rate, "pcm", { targetSampleRate: SPEECH_SAMPLE_RATE, signal })).bytes);
}

/** Live float chunks at `rate` → 16 kHz float chunks, resampled by one streaming ffmpeg run as they come. */
export async function* streamToAsrRate(chunks: AsyncIterable<Float32Array>, rate: number, signal: AbortSignal): AsyncIterable<Float32Array> {
  if (rate === SPEECH_SAMPLE_RATE) {
    yield* chunks;
    return;
  }
  const align = s16leAligner();
  for await (const chunk of encodeAudioStream(chunks, rate, "pcm", { targetSampleRate: SPEECH_SAMPLE_RATE, signal })) {
    const bytes = align(chunk);
    if (bytes.length > 0) yield s16leToFloat(bytes);
  }
}
