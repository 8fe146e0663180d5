/**
 * The two pack failure types every family and engine shares: {@link PackError}, thrown by a
 * family's `configure`/`load` when a pack breaks its contract, and {@link BrokenPack}, the record
 * health details, `sawt doctor`, `sawt models list` and the logs show for it.
 */

/** A pack that breaks its contract; `reason` (also the message) says what and why, in one line. */
export class PackError extends Error {
  override readonly name = "PackError";
  constructor(readonly reason: string) {
    super(reason);
  }
}

/** A pack folder that could not be used, and why (shown in health details, doctor and logs). */
export interface BrokenPack {
  /** The folder name under the models directory. */
  readonly pack: string;
  /** The family that claimed it; ASR health details name it, TTS details do not (unchanged contract). */
  readonly family?: string;
  /** One line, no secrets or absolute paths: e.g. `model.onnx: Failed to load model …`. */
  readonly reason: string;
}

/** The first line of an error's message (health details and logs carry one line). */
export function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split("\n")[0] ?? "";
}
