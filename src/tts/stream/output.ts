/**
 * A speech context's audio output: the context writes float PCM at its voice's rate, sentence by
 * sentence, and the output hands out the bytes in the format the context asked for (raw s16le or
 * G.711 at any rate, or a wav/mp3/opus/flac stream) as soon as they exist, counting what it sent.
 *
 * One encoder runs for the context's whole life, so the bytes are those REST gives for the same
 * sentences and silences. A flush {@link settle}s it: a raw format then holds nothing back (the
 * resampler's few samples of look-ahead are computed as if silence followed, as the next
 * sentence's pause does). Formats that only ffmpeg encodes (aac, or a codec library that is
 * missing) run through one ffmpeg process whose bytes arrive a little later than they were written.
 */
import { concatBytes } from "../../audio/concat.ts";
import { encodeAudioStream } from "../../audio/encode.ts";
import { encodesInProcess, StreamEncoder } from "../../audio/encoders/encode-path.ts";
import type { EncodingPlan } from "../../audio/formats.ts";
import { wavHeader } from "../../audio/wav.ts";

/** Where the bytes go: `samples` of audio (at the output's rate) ending `atMs` after the context began. */
export type AudioSink = (bytes: Uint8Array, samples: number) => void;

/** Samples and milliseconds of a context's audio handed out so far. */
export interface Sent {
  readonly samples: number;
  readonly ms: number;
}

/** A context's output; see the file comment. */
export interface ContextOutput {
  /** Audio written so far, in ms (what the next mark or sentence starts at). */
  readonly writtenMs: number;
  /** What was handed to the sink so far. */
  readonly sent: Sent;
  /** Encodes and hands out `pcm` (at the plan's input rate). */
  write(pcm: Float32Array): void;
  /** A flush: everything written is handed out (raw formats exactly; codecs keep a partial frame). */
  settle(): void;
  /** Ends the stream: the encoder's tail, then `done`. Resolves once every byte was handed out. */
  finish(): Promise<void>;
  /** A clear: what the encoder holds of the audio written so far is dropped, the stream goes on. */
  discard(): void;
  /** Drops everything: nothing more is handed out. */
  stop(): void;
}

/** The output of a context with `plan` (see {@link ContextOutput}). */
export function contextOutput(plan: EncodingPlan, sink: AudioSink): ContextOutput {
  return encodesInProcess(plan) ? new InProcessOutput(plan, sink) : new FfmpegOutput(plan, sink);
}

/** Bytes per sample of a raw plan's output (s16le 2, G.711 1); 0 for codecs. */
function rawBytesPerSample(plan: EncodingPlan): number {
  if (plan.format !== "pcm" && plan.format !== "wav") return 0;
  return plan.encoding === "pcm_s16le" ? 2 : 1;
}

class InProcessOutput implements ContextOutput {
  private readonly encoder: StreamEncoder;
  private readonly bytesPerSample: number;
  private written = 0;
  private sentSamples = 0;
  private header: Uint8Array | undefined;
  private stopped = false;

  constructor(
    private readonly plan: EncodingPlan,
    private readonly sink: AudioSink,
  ) {
    this.encoder = new StreamEncoder(plan);
    this.bytesPerSample = rawBytesPerSample(plan);
    this.header = plan.format === "wav" ? wavHeader(plan.encoderRate, undefined, plan.encoding) : undefined;
  }

  get writtenMs(): number {
    return (this.written / this.plan.inputRate) * 1000;
  }

  get sent(): Sent {
    return { samples: this.sentSamples, ms: (this.sentSamples / this.plan.encoderRate) * 1000 };
  }

  write(pcm: Float32Array): void {
    if (this.stopped || pcm.length === 0) return;
    this.written += pcm.length;
    this.hand(this.encoder.push(pcm));
  }

  settle(): void {
    if (!this.stopped) this.hand(this.encoder.settle());
  }

  discard(): void {
    if (!this.stopped) this.encoder.settle();
  }

  async finish(): Promise<void> {
    if (this.stopped) return;
    try {
      this.hand(this.encoder.finish());
    } finally {
      this.stop();
    }
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.encoder.close();
  }

  private hand(bytes: Uint8Array): void {
    const before = this.sentSamples;
    // Raw bytes count their samples; a codec is credited with what it was fed.
    this.sentSamples =
      this.bytesPerSample > 0 ? this.sentSamples + bytes.byteLength / this.bytesPerSample : this.encoder.encodedSamples;
    if (bytes.byteLength === 0) return;
    const out = this.header ? concatBytes([this.header, bytes]) : bytes;
    this.header = undefined;
    this.sink(out, this.sentSamples - before);
  }
}

/** Float chunks handed to ffmpeg as they are written. */
class ChunkQueue implements AsyncIterable<Float32Array> {
  private readonly chunks: Float32Array[] = [];
  private ended = false;
  private wake: (() => void) | undefined;

  push(chunk: Float32Array): void {
    this.chunks.push(chunk);
    this.wake?.();
  }

  end(): void {
    this.ended = true;
    this.wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Float32Array> {
    for (;;) {
      const next = this.chunks.shift();
      if (next) yield next;
      else if (this.ended) return;
      else await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }
}

class FfmpegOutput implements ContextOutput {
  private readonly queue = new ChunkQueue();
  private readonly abort = new AbortController();
  private readonly pumped: Promise<void>;
  private written = 0;
  private stopped = false;

  constructor(
    private readonly plan: EncodingPlan,
    sink: AudioSink,
  ) {
    const stream = encodeAudioStream(this.queue, plan.inputRate, plan.format, {
      targetSampleRate: plan.encoderRate,
      encoding: plan.encoding,
      signal: this.abort.signal,
    });
    this.pumped = (async () => {
      for await (const bytes of stream) {
        if (this.stopped) return;
        // The encoder's bytes are not tied to samples: each chunk is credited with its share of what was written.
        sink(bytes, 0);
      }
    })();
  }

  get writtenMs(): number {
    return (this.written / this.plan.inputRate) * 1000;
  }

  get sent(): Sent {
    return { samples: Math.round((this.written * this.plan.encoderRate) / this.plan.inputRate), ms: this.writtenMs };
  }

  write(pcm: Float32Array): void {
    if (this.stopped || pcm.length === 0) return;
    this.written += pcm.length;
    this.queue.push(pcm);
  }

  settle(): void {}

  discard(): void {}

  async finish(): Promise<void> {
    this.queue.end();
    await this.pumped;
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.queue.end();
    this.abort.abort();
    this.pumped.catch(() => {});
  }
}
