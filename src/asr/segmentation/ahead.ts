/**
 * Work that runs ahead of its consumer: the speech detector keeps scoring the next windows (in its
 * own worker) while the recogniser (in another) decodes the pieces already found, so a recording's
 * VAD time hides behind its decoding instead of adding to it (issue #19).
 */
import { VAD_WINDOW, type VoiceActivityDetector } from "../recognizer.ts";
import { SpeechTracker } from "../vad/pipeline.ts";
import type { SegmenterOptions } from "../vad/segmenter.ts";
import { UtterancePieces, type DecodePiece, type PolicyOptions } from "./policy.ts";

/** Windows the detector scores per push while running ahead (≈ 2 s): pieces settle early, calls stay few. */
const WINDOWS_PER_PUSH = 64;

/**
 * Hands out in order what `produce` emits while it keeps working. Ending the iteration early (an
 * error, a break) aborts the producer through its signal and waits for it to stop; a producer
 * error is thrown to the consumer at its next step.
 */
export async function* runAhead<T>(
  produce: (emit: (items: readonly T[]) => void, signal: AbortSignal) => Promise<void>,
  signal?: AbortSignal,
): AsyncGenerator<T> {
  const stop = new AbortController();
  const queue: T[] = [];
  let finished = false;
  let failure: { error: unknown } | null = null;
  let wake: (() => void) | null = null;
  const notify = () => {
    wake?.();
    wake = null;
  };
  const producing = produce(
    (items) => {
      queue.push(...items);
      notify();
    },
    signal ? AbortSignal.any([signal, stop.signal]) : stop.signal,
  ).then(
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
      if (failure !== null) throw (failure as { error: unknown }).error;
      const next = queue.shift();
      if (next !== undefined) yield next;
      else if (finished) return;
      else await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    stop.abort();
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
  return runAhead<DecodePiece>(async (emit, scope) => {
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
