/**
 * Live audio arriving on a streaming door (realtime WebSocket, jambonz, gRPC StreamingRecognize)
 * turned into the ASR engine's 16 kHz float samples, in ONE place: linear 16-bit little-endian
 * PCM at 8–48 kHz or 8 kHz G.711 μ-law / A-law, bytes in whatever chunking the client chose (an
 * odd byte of linear PCM is carried over), decoded with ./g711.ts and resampled once by
 * ./resampler.ts.
 */
import { concatSamples } from "./concat.ts";
import { decodeG711, type SampleEncoding } from "./g711.ts";
import { StreamingResampler } from "./resampler.ts";
import { SPEECH_SAMPLE_RATE } from "./speech-rate.ts";
import { bytesToInt16, int16ToFloat } from "./wav.ts";

/** Lowest and highest linear PCM rates a streaming door accepts. */
export const LIVE_PCM_RATES = { min: 8000, max: 48000 } as const;
/** The one rate of G.711 telephony audio. */
export const G711_RATE = 8000;

/** How a stream's bytes are encoded. */
export interface LiveAudioFormat {
  readonly encoding: SampleEncoding;
  /** Samples per second (8000 for G.711). */
  readonly sampleRate: number;
}

/** Why a format cannot be streamed, or null when it can. */
export function liveFormatProblem(format: LiveAudioFormat): string | null {
  const { encoding, sampleRate } = format;
  if (encoding !== "pcm_s16le") return sampleRate === G711_RATE ? null : `G.711 audio is ${G711_RATE} Hz`;
  if (!Number.isInteger(sampleRate) || sampleRate < LIVE_PCM_RATES.min || sampleRate > LIVE_PCM_RATES.max) {
    return `linear PCM needs a sample rate between ${LIVE_PCM_RATES.min} and ${LIVE_PCM_RATES.max}`;
  }
  return null;
}

/** Decodes one live stream's bytes to 16 kHz float; see the file comment. */
export class LiveAudioInput {
  private readonly resampler: StreamingResampler;
  private carry: number | undefined;
  private bytesIn = 0;

  constructor(readonly format: LiveAudioFormat) {
    const problem = liveFormatProblem(format);
    if (problem) throw new RangeError(problem);
    this.resampler = new StreamingResampler(format.sampleRate, SPEECH_SAMPLE_RATE);
  }

  /** Bytes per second of this format (for buffering limits). */
  get bytesPerSecond(): number {
    return this.format.sampleRate * (this.format.encoding === "pcm_s16le" ? 2 : 1);
  }

  /** Seconds of audio received so far. */
  get secondsIn(): number {
    return this.bytesIn / this.bytesPerSecond;
  }

  /** The 16 kHz samples the next bytes complete. */
  push(bytes: Uint8Array): Float32Array {
    this.bytesIn += bytes.length;
    return this.resampler.push(this.decode(bytes));
  }

  /** Ends the stream: what the resampler still owes. */
  flush(): Float32Array {
    return this.resampler.flush();
  }

  private decode(bytes: Uint8Array): Float32Array {
    const { encoding } = this.format;
    if (encoding !== "pcm_s16le") return int16ToFloat(decodeG711(bytes, encoding));
    let aligned = bytes;
    if (this.carry !== undefined) {
      aligned = new Uint8Array(bytes.length + 1);
      aligned[0] = this.carry;
      aligned.set(bytes, 1);
      this.carry = undefined;
    }
    if (aligned.length % 2 === 1) {
      this.carry = aligned[aligned.length - 1];
      aligned = aligned.subarray(0, aligned.length - 1);
    }
    return int16ToFloat(bytesToInt16(aligned));
  }
}

/** A whole recording in `format` → 16 kHz float (the same path as a stream). */
export function decodeLiveRecording(bytes: Uint8Array, format: LiveAudioFormat): Float32Array {
  const input = new LiveAudioInput(format);
  return concatSamples([input.push(bytes), input.flush()]);
}
