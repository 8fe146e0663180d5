/** The shape every CLI command follows. */
import type { FlagSpec } from "./args.ts";

/** One `sawt` command. */
export interface Command {
  readonly name: string;
  /** Full help text shown by `--help`. */
  readonly usage: string;
  readonly flags: FlagSpec;
  /** Runs the command; resolves to the process exit code. */
  run(argv: readonly string[]): Promise<number>;
}

/**
 * A command as `sawt --help` lists it. Its module (and everything that module imports) is loaded
 * only when the command runs, so `sawt serve` does not load the doctor's, the model installer's
 * or the offline synthesiser's code, and `sawt --version` loads none.
 */
export interface CommandEntry {
  readonly name: string;
  /** One line for `sawt --help`. */
  readonly summary: string;
  load(): Promise<Command>;
}
