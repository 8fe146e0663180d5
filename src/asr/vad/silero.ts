/**
 * Silero VAD v5 (`silero_vad.onnx`, published as is). Each call scores one 512-sample window at
 * 16 kHz; the model also sees the previous window's last 64 samples (its context) and carries a
 * recurrent state, both per stream: `input` [1, 576], `state` [2, 1, 128], `sr` int64 scalar →
 * `output` [1, 1] speech probability, `stateN`. A chunk of windows is scored in one onnxruntime
 * run of the graph rebuilt to take them as a sequence (silero-sequence.ts), checked at load against
 * the published graph; a file that cannot be rebuilt is scored window by window in one call to the
 * session's worker (Session.runScan), which carries the state from window to window itself.
 */
import { readFileSync } from "node:fs";
import { SPEECH_SAMPLE_RATE } from "../../audio/speech-rate.ts";
import { log } from "../../log/logger.ts";
import { missingIo, type OnnxModelInfo } from "../../models/header.ts";
import { f32, floatData, i64, openSession, ortModule, type Session, type Tensor } from "../../onnx/runner.ts";
import { VAD_WINDOW, type VadStream, type VoiceActivityDetector } from "../recognizer.ts";
import { sileroSequenceModel } from "./silero-sequence.ts";

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
    private readonly model: SileroModel,
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
    const out = await scoreWindows(this.model, inputs, windows.length, this.state, this.sr);
    const stateN = out.stateN;
    if (stateN === undefined) throw new Error("silero returned no stateN");
    this.state = stateN;
    return Array.from(floatData(out.output, "output"));
  }
}

/** The session that scores windows, and whether it takes them as one sequence (the rebuilt graph). */
interface SileroModel {
  readonly session: Session;
  readonly sequence: boolean;
}

/** Scores `steps` rows of `inputs` (each [1, 576]) from `state`: one run of the sequence graph, else a scan. */
function scoreWindows(
  model: SileroModel,
  inputs: Float32Array,
  steps: number,
  state: Tensor,
  sr: Tensor,
): Promise<Record<string, Tensor>> {
  const width = SILERO_CONTEXT + VAD_WINDOW;
  if (model.sequence) return model.session.run({ input: f32(inputs, [steps, width]), state });
  return model.session.runScan({
    step: { name: "input", data: inputs, dims: [1, width] },
    steps,
    feeds: { state, sr },
    carry: { stateN: "state" },
    collect: ["output"],
  });
}

/** Windows of the load-time check: a chirp under noise, long enough for the state to matter. */
const CHECK_WINDOWS = 48;

function checkInput(): Float32Array {
  const width = SILERO_CONTEXT + VAD_WINDOW;
  const out = new Float32Array(CHECK_WINDOWS * width);
  let seed = 7;
  for (let i = 0; i < out.length; i++) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    out[i] = 0.4 * Math.sin(i * (0.01 + i * 2e-6)) + 0.05 * (seed / 1073741824 - 1);
  }
  return out;
}

/**
 * Whether the rebuilt graph scores as the published one: the same probabilities and final state
 * (within 1e-5) on {@link CHECK_WINDOWS} windows, run both ways.
 */
async function sameScores(sequence: SileroModel, original: SileroModel, sr: Tensor): Promise<boolean> {
  const inputs = checkInput();
  // A state that is not zero, with h and c unlike: a rebuild that mixed them up would pass from zeros.
  const state = f32(
    new Float32Array(STATE_SIZE).map((_, i) => 0.3 * Math.sin(i * (i < STATE_SIZE / 2 ? 0.7 : 1.9))),
    STATE_DIMS,
  );
  const [a, b] = await Promise.all(
    [sequence, original].map((model) => scoreWindows(model, inputs, CHECK_WINDOWS, state, sr)),
  );
  const close = (name: string) => {
    const x = floatData(a![name], name);
    const y = floatData(b![name], name);
    return x.length === y.length && x.every((v, i) => Math.abs(v - y[i]!) <= 1e-5);
  };
  return close("output") && close("stateN");
}

/**
 * Opens a Silero pack's model as a voice-activity detector (one intra-op thread: it is tiny), as
 * the rebuilt sequence graph when it scores as the published one, else as published.
 */
export async function loadSilero(path: string, name: string): Promise<VoiceActivityDetector> {
  await ortModule();
  const label = `${name}/${SILERO_FILE}`;
  const sr = i64([SPEECH_SAMPLE_RATE], []);
  // Read once: the published graph opens from these bytes and the rebuild is made from them.
  const file = readFileSync(path);
  const opened = await openSession(file, { label, intraOpThreads: 1 });
  const original: SileroModel = { session: opened.session, sequence: false };
  let model = original;
  let sequence: SileroModel | undefined;
  let refused: string | undefined;
  try {
    const rebuilt = sileroSequenceModel(file);
    if (rebuilt.bytes === undefined) refused = rebuilt.reason;
    else {
      sequence = {
        session: (await openSession(rebuilt.bytes, { label, intraOpThreads: 1 })).session,
        sequence: true,
      };
      if (await sameScores(sequence, original, sr)) model = sequence;
      else refused = "the rebuilt graph scores differently";
    }
  } catch (error) {
    refused = `the rebuilt graph failed: ${error instanceof Error ? error.message : String(error)}`;
  }
  if (refused !== undefined) log.warn("silero scored window by window", { model: label, reason: refused });
  await (model === original ? sequence : original)?.session.release();
  return {
    kind: "silero",
    name,
    provider: opened.provider,
    createStream: () => new SileroStream(model, sr),
    release: () => model.session.release(),
  };
}
