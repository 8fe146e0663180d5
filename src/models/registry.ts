/**
 * The model registry: the families every engine, `sawt models` and doctor offer pack folders to,
 * in claim order. It imports no feature: the wiring hands it the built-in list
 * (src/app/families.ts, where the claim rule is written), and code outside the build (tests,
 * plugins) adds families with {@link registerFamily}; these are asked first.
 */
import type { Family, LoadedModel } from "./family.ts";

/** Any registered family. */
export type AnyFamily = Family<unknown, LoadedModel>;

let builtIn: readonly AnyFamily[] | undefined;
const registered: AnyFamily[] = [];

/** Sets the built-in families, in claim order (the wiring calls it once at start; again is a no-op). */
export function useBuiltInFamilies(families: readonly AnyFamily[]): void {
  builtIn ??= families;
}

/**
 * Adds a family ahead of the built-in ones (so it may claim folders they would otherwise take).
 * Returns a function that removes it again. Families are read at each engine start, doctor run
 * and `models list`, so register before starting the server.
 */
export function registerFamily<C, M extends LoadedModel>(family: Family<C, M>): () => void {
  const entry = family as unknown as AnyFamily;
  if (allFamilies().some((f) => f.name === entry.name))
    throw new Error(`model family ${entry.name} is already registered`);
  registered.unshift(entry);
  return () => {
    const at = registered.indexOf(entry);
    if (at >= 0) registered.splice(at, 1);
  };
}

/** Every family in claim order. Throws when the wiring never set the built-in ones (a pack would silently go unclaimed). */
export function allFamilies(): readonly AnyFamily[] {
  if (builtIn === undefined)
    throw new Error("no built-in model families: the entry point must import src/app/families.ts");
  return [...registered, ...builtIn];
}
