/**
 * Silero VAD v5 (`silero_vad.onnx`, published as is). Each call scores one 512-sample window at
 * 16 kHz; the model also sees the previous window's last 64 samples (its context) and carries a
 * recurrent state, both per stream: `input` [1, 576], `state` [2, 1, 128], `sr` int64 scalar →
 * `output` [1, 1] speech probability, `stateN`.
 */
import { SPEECH_SAMPLE_RATE } from "../../audio/speech-rate.ts";
import type { Tensor } from "onnxruntime-node";
import { missingIo, type OnnxModelInfo } from "../../models/header.ts";
import { f32, floatData, i64, openSession, ortModule, type RunnerSession } from "../onnx.ts";
import { VAD_WINDOW, type VadStream, type VoiceActivityDetector } from "../recognizer.ts";

/** File name of a Silero pack. */
export const SILERO_FILE = "silero_vad.onnx";
/** Samples of context carried from the previous window at 16 kHz. */
export const SILERO_CONTEXT = 64;
const STATE_DIMS = [2, 1, 128] as const;
const STATE_SIZE = 2 * 128;

/** Problems that make a Silero file unusable (empty when it honours the contract). */
export function validateSilero(info: OnnxModelInfo): string[] {
  return missingIo(info, ["input", "state", "sr"], ["output", "stateN"], SILERO_FILE);
}

class SileroStream implements VadStream {
  private state: Tensor;
  private readonly context = new Float32Array(SILERO_CONTEXT);
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly session: RunnerSession,
    private readonly sr: Tensor,
  ) {
    this.state = f32(new Float32Array(STATE_SIZE), STATE_DIMS);
  }

  probability(window: Float32Array): Promise<number> {
    if (window.length !== VAD_WINDOW)
      return Promise.reject(new RangeError(`Silero needs ${VAD_WINDOW}-sample windows`));
    // Windows of one stream must run in order: each depends on the state the previous left.
    const next = this.queue.then(() => this.run(window));
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async run(window: Float32Array): Promise<number> {
    const input = new Float32Array(SILERO_CONTEXT + VAD_WINDOW);
    input.set(this.context, 0);
    input.set(window, SILERO_CONTEXT);
    this.context.set(input.subarray(input.length - SILERO_CONTEXT));
    const out = await this.session.run({ input: f32(input, [1, input.length]), state: this.state, sr: this.sr });
    const stateN = out.stateN;
    if (stateN === undefined) throw new Error("silero returned no stateN");
    this.state = stateN;
    return floatData(out.output, "output")[0] ?? 0;
  }
}

/** Opens a Silero pack's model as a voice-activity detector. */
export async function loadSilero(path: string, name: string): Promise<VoiceActivityDetector> {
  await ortModule();
  const { session } = await openSession(path, `${name}/${SILERO_FILE}`);
  const sr = i64([SPEECH_SAMPLE_RATE], []);
  return {
    kind: "silero",
    name,
    createStream: () => new SileroStream(session, sr),
    release: () => session.release(),
  };
}
