/**
 * Silero VAD v5 (`silero_vad.onnx`, published as is). Each call scores one 512-sample window at
 * 16 kHz; the model also sees the previous window's last 64 samples (its context) and carries a
 * recurrent state, both per stream: `input` [1, 576], `state` [2, 1, 128], `sr` int64 scalar →
 * `output` [1, 1] speech probability, `stateN`. A chunk of windows is scored in one call to the
 * session's worker (Session.runScan), which carries the state from window to window itself.
 */
import { SPEECH_SAMPLE_RATE } from "../../audio/speech-rate.ts";
import type { Tensor } from "onnxruntime-node";
import { missingIo, type OnnxModelInfo } from "../../models/header.ts";
import { createSession, type Session } from "../../runtime/sessions.ts";
import { f32, floatData, i64, ortModule } from "../onnx.ts";
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

/** Most windows scored per worker call (≈ 65 s of audio, 4.7 MB of input). */
const MAX_WINDOWS_PER_CALL = 2048;

class SileroStream implements VadStream {
  private state: Tensor;
  private readonly context = new Float32Array(SILERO_CONTEXT);
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly session: Session,
    private readonly sr: Tensor,
  ) {
    this.state = f32(new Float32Array(STATE_SIZE), STATE_DIMS);
  }

  async probability(window: Float32Array): Promise<number> {
    return (await this.probabilities([window]))[0]!;
  }

  probabilities(windows: readonly Float32Array[]): Promise<number[]> {
    if (windows.some((window) => window.length !== VAD_WINDOW))
      return Promise.reject(new RangeError(`Silero needs ${VAD_WINDOW}-sample windows`));
    // Windows of one stream must run in order: each depends on the state the previous left.
    const next = this.queue.then(() => this.scoreAll(windows));
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async scoreAll(windows: readonly Float32Array[]): Promise<number[]> {
    const scores: number[] = [];
    for (let at = 0; at < windows.length; at += MAX_WINDOWS_PER_CALL)
      scores.push(...(await this.run(windows.slice(at, at + MAX_WINDOWS_PER_CALL))));
    return scores;
  }

  /** Scores windows in one worker call: each step sees the previous window's last 64 samples. */
  private async run(windows: readonly Float32Array[]): Promise<number[]> {
    const width = SILERO_CONTEXT + VAD_WINDOW;
    const inputs = new Float32Array(windows.length * width);
    windows.forEach((window, i) => {
      inputs.set(i === 0 ? this.context : windows[i - 1]!.subarray(VAD_WINDOW - SILERO_CONTEXT), i * width);
      inputs.set(window, i * width + SILERO_CONTEXT);
    });
    this.context.set(windows[windows.length - 1]!.subarray(VAD_WINDOW - SILERO_CONTEXT));
    const out = await this.session.runScan({
      step: { name: "input", data: inputs, dims: [1, width] },
      steps: windows.length,
      feeds: { state: this.state, sr: this.sr },
      carry: { stateN: "state" },
      collect: ["output"],
    });
    const stateN = out.stateN;
    if (stateN === undefined) throw new Error("silero returned no stateN");
    this.state = stateN;
    return Array.from(floatData(out.output, "output"));
  }
}

/** Opens a Silero pack's model as a voice-activity detector (one intra-op thread: it is tiny). */
export async function loadSilero(path: string, name: string): Promise<VoiceActivityDetector> {
  await ortModule();
  const { session } = await createSession(path, { label: `${name}/${SILERO_FILE}`, intraOpThreads: 1 });
  const sr = i64([SPEECH_SAMPLE_RATE], []);
  return {
    kind: "silero",
    name,
    createStream: () => new SileroStream(session, sr),
    release: () => session.release(),
  };
}
