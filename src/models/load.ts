/**
 * The loading driver: opens one validated pack's sessions through its family and warms them.
 * Engines decide which packs of their roles to load and in what order (TTS loads tashkeel before
 * the voices that use it; ASR keeps one VAD); every load goes through here, so a failure is
 * worded and released the same way for all families.
 */
import { firstLine } from "./errors.ts";
import type { LoadContext, LoadedModel } from "./family.ts";
import type { ConfiguredPack } from "./inspect.ts";

/** A loaded pack, or why it could not be loaded. */
export type LoadResult =
  | { readonly ok: true; readonly model: LoadedModel /** Load plus warm-up, in ms. */; readonly ms: number }
  | { readonly ok: false; readonly reason: string };

/**
 * Loads and warms `entry`. On failure its sessions are released and the reason is worded by the
 * family (default: `cannot load|run the model: <first line>`, the pack folder's path stripped:
 * health endpoints are open).
 */
export async function loadPack(
  entry: ConfiguredPack,
  shared: Omit<LoadContext, "pack" | "dir"> = {},
): Promise<LoadResult> {
  const { family, pack } = entry;
  let model: LoadedModel | undefined;
  const started = performance.now();
  try {
    model = await family.load(entry.config, { ...shared, pack: pack.name, dir: pack.dir });
    await family.warmUp?.(model);
    return { ok: true, model, ms: Math.round(performance.now() - started) };
  } catch (error) {
    await model?.release().catch(() => undefined);
    const ran = model !== undefined;
    if (family.loadFailure) return { ok: false, reason: family.loadFailure(error, ran) };
    const line = firstLine(error).replaceAll(`${pack.dir}/`, "");
    return { ok: false, reason: `${ran ? "cannot run" : "cannot load"} the model: ${line}` };
  }
}

/**
 * Parallel runs for pack `pack`: its `runtime.pack_sessions` entry (`pack=N`, validated by the
 * config loader) if it has one, else `fallback` (the engine's concurrency).
 */
export function parallelRunsOf(pack: string, packSessions: readonly string[], fallback: number): number {
  for (const entry of packSessions) {
    const at = entry.lastIndexOf("=");
    if (entry.slice(0, at) === pack) return Number(entry.slice(at + 1));
  }
  return fallback;
}
