/** The shape every CLI command follows. */
import type { FlagSpec } from "./args.ts";

/** One `sawt` command. */
export interface Command {
  readonly name: string;
  readonly summary: string;
  /** Full help text shown by `--help`. */
  readonly usage: string;
  readonly flags: FlagSpec;
  /** Runs the command; resolves to the process exit code. */
  run(argv: readonly string[]): Promise<number>;
}
