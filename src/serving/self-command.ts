/**
 * The command line that starts this executable again with other arguments: the compiled binary
 * itself, or Bun with the source entry when run from a checkout (also under `bun test`, where
 * `Bun.main` is the test file, so the entry is found from this module instead).
 */
import { join } from "node:path";

/** Whether this code runs from the compiled binary (its modules live in Bun's embedded file system). */
export function isCompiled(): boolean {
  return import.meta.dir.startsWith("/$bunfs/") || import.meta.dir.startsWith("B:/~BUN/");
}

/**
 * `argv` for starting this executable with `args`. From a checkout, Bun's own options (such as
 * `--preload`) come along, so the new process loads what this one did.
 */
export function selfCommand(args: readonly string[]): string[] {
  return isCompiled()
    ? [process.execPath, ...args]
    : [process.execPath, ...process.execArgv, join(import.meta.dir, "..", "main.ts"), ...args];
}
