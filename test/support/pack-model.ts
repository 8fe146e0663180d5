/**
 * Test engines' way to open a model file as one pack's session: a file onnxruntime cannot load
 * becomes a {@link BrokenPackError} naming the pack and the file (never its absolute path). The
 * real engines load packs through the model registry (src/models/); this helper only serves
 * test loaders (test/support/slow-engine.ts, test/serving/engines.test.ts).
 */
import { EngineLoadError } from "../../src/core/engines.ts";
import type { BrokenPack } from "../../src/models/errors.ts";
import { createSession, type CreatedSession } from "../../src/onnx/sessions.ts";

/**
 * One pack is unusable; `reason` is one line saying why. An EngineLoadError, so a test loader
 * that lets it escape fails its engine with the pack in health's broken_packs.
 */
export class BrokenPackError extends EngineLoadError {
  constructor(
    readonly pack: string,
    readonly reason: string,
  ) {
    super(`model pack ${pack}: ${reason}`, [{ pack, reason }]);
    this.name = "BrokenPackError";
  }

  /** As a {@link BrokenPack} record. */
  toBrokenPack(): BrokenPack {
    return { pack: this.pack, reason: this.reason };
  }
}

/** Opens `file` of pack `pack` as a session; a file onnxruntime cannot load becomes a BrokenPackError. */
export async function openPackModel(
  pack: string,
  file: string,
  label = file.split("/").pop() ?? file,
): Promise<CreatedSession> {
  try {
    return await createSession(file, { label: `${pack}/${label}` });
  } catch (error) {
    // onnxruntime names the full path; health endpoints are open, so only the file name is kept.
    const why = (error as Error).message.split("\n")[0]!.replaceAll(file, label);
    throw new BrokenPackError(pack, `${label}: ${why}`);
  }
}
