/**
 * Work that runs ahead of its consumer: the speech detector keeps scoring the next windows (in its
 * own worker) while the recogniser (in another) decodes the pieces already found, so a recording's
 * VAD time hides behind its decoding instead of adding to it (issue #19).
 */
import { VAD_WINDOW, type VoiceActivityDetector } from "../recognizer.ts";
import { SpeechTracker, type SpanAudio } from "../vad/endpointer.ts";
import type { SegmenterOptions } from "../vad/segmenter.ts";
import { UtterancePieces, type DecodePiece, type PolicyOptions } from "./policy.ts";

/** Windows the detector scores per push while running ahead (≈ 2 s): pieces settle early, calls stay few. */
const WINDOWS_PER_PUSH = 64;

/** What a producer running ahead is given. */
export interface Ahead<T> {
  /** Queues items for the consumer, in order. */
  emit(items: readonly T[]): void;
  /** Aborted when the consumer stops early (or the call's signal aborts). */
  readonly signal: AbortSignal;
  /** Size (by the `size` measure) of the items queued plus the one the consumer is working on. */
  held(): number;
  /** Resolves when the consumer is done with an item, at once when it is waiting for one. */
  progress(): Promise<void>;
}

/**
 * Hands out in order what `produce` emits while it keeps working. Ending the iteration early (an
 * error, a break) aborts the producer through its signal and waits for it to stop; a producer
 * error is thrown to the consumer at its next step. `size` measures items for {@link Ahead.held}.
 */
export async function* runAhead<T>(
  produce: (ahead: Ahead<T>) => Promise<void>,
  signal?: AbortSignal,
  size: (item: T) => number = () => 1,
): AsyncGenerator<T> {
  const stop = new AbortController();
  const queue: T[] = [];
  let queued = 0;
  let working = 0;
  let idle = false;
  let finished = false;
  let failure: { error: unknown } | null = null;
  let wake: (() => void) | null = null;
  let waiters: (() => void)[] = [];
  const notify = () => {
    wake?.();
    wake = null;
  };
  const release = () => {
    for (const waiter of waiters) waiter();
    waiters = [];
  };
  const ahead: Ahead<T> = {
    emit(items) {
      queue.push(...items);
      for (const item of items) queued += size(item);
      notify();
    },
    signal: signal ? AbortSignal.any([signal, stop.signal]) : stop.signal,
    held: () => queued + working,
    progress: () => (idle || stop.signal.aborted ? Promise.resolve() : new Promise((resolve) => waiters.push(resolve))),
  };
  const producing = produce(ahead).then(
    () => {
      finished = true;
      notify();
    },
    (error: unknown) => {
      failure = { error };
      finished = true;
      notify();
    },
  );
  try {
    for (;;) {
      // The consumer is done with the item it had.
      working = 0;
      release();
      if (failure !== null) throw (failure as { error: unknown }).error;
      const next = queue.shift();
      if (next !== undefined) {
        queued -= size(next);
        working = size(next);
        yield next;
      } else if (finished) return;
      else {
        idle = true;
        release();
        await new Promise<void>((resolve) => (wake = resolve));
        idle = false;
      }
    }
  } finally {
    stop.abort();
    release();
    await producing;
  }
}

/**
 * The segmentation policy's pieces of `samples` (longer than the policy's window), found by the
 * detector running ahead of the consumer: the same pieces, in the same order, as
 * decodePieces(segmentSpeech(samples)).
 */
export function piecesAhead(
  samples: Float32Array,
  detector: VoiceActivityDetector,
  spanOptions: Partial<SegmenterOptions>,
  policy: PolicyOptions,
  signal?: AbortSignal,
): AsyncGenerator<DecodePiece> {
  return runAhead<DecodePiece>(async ({ emit, signal: scope }) => {
    const tracker = new SpeechTracker(detector, spanOptions);
    const pieces = new UtterancePieces(policy);
    const step = WINDOWS_PER_PUSH * VAD_WINDOW;
    for (let at = 0; at < samples.length; at += step) {
      const spans = await tracker.push(samples.subarray(at, at + step), scope);
      emit(pieces.add(spans, tracker.nextStartFloor));
    }
    emit(pieces.add(await tracker.end(scope), tracker.nextStartFloor));
    emit(pieces.finish());
  }, signal);
}

/**
 * The speech pieces of decoded audio arriving in `chunks`, cut by `tracker` running ahead of the
 * consumer, within `limitSamples` of audio held at once: the tracker's buffer, the pieces waiting
 * and the one being transcribed (the request's reservation; see AsrEngineService.transcribeFile).
 * The tracker reads on only while the next chunk fits, or when nothing else is held.
 */
export function speechPiecesAhead(
  chunks: AsyncIterable<Float32Array>,
  tracker: SpeechTracker,
  limitSamples: number,
  signal?: AbortSignal,
): AsyncGenerator<SpanAudio> {
  return runAhead<SpanAudio>(
    async (ahead) => {
      for await (const chunk of chunks) {
        while (ahead.held() > 0 && tracker.held + ahead.held() + chunk.length > limitSamples) {
          await ahead.progress();
          ahead.signal.throwIfAborted();
        }
        ahead.emit(await tracker.push(chunk, ahead.signal));
      }
      ahead.emit(await tracker.end(ahead.signal));
    },
    signal,
    (piece) => piece.samples.length,
  );
}
