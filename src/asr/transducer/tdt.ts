/**
 * The frame advance of a TDT (token-and-duration transducer) search, shared by the greedy search
 * (./pipeline.ts) and the phrase-boosted one (./beam.ts): the joiner's predicted duration,
 * except where sherpa-onnx's greedy TDT decoding moves one frame instead.
 */

/** sherpa-onnx's token limit per frame for TDT. */
export const TDT_MAX_TOKENS_PER_FRAME = 5;

/** Tokens emitted on the current frame so far (the search keeps one across steps). */
export interface TdtFrame {
  tokens: number;
}

/**
 * Frames to advance after one step that emitted a token (`emitted`) or a blank, with the
 * predicted `duration`: a frame that has emitted {@link TDT_MAX_TOKENS_PER_FRAME} tokens without
 * moving, or a blank of duration 0, moves one frame (else the search would never end).
 */
export function tdtAdvance(frame: TdtFrame, emitted: boolean, duration: number): number {
  if (emitted) frame.tokens += 1;
  if (duration > 0) frame.tokens = 0;
  if (frame.tokens >= TDT_MAX_TOKENS_PER_FRAME || (!emitted && duration === 0)) {
    frame.tokens = 0;
    return 1;
  }
  return duration;
}
