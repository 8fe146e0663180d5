/** Reading and writing cluster files for `sawt keys|voices export|import`. */
import { readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { ClusterFileError } from "../store/cluster-file.ts";
import { UsageError } from "./args.ts";

/** Largest cluster file read (voices with embeddings for many keys stay far below). */
const MAX_FILE_BYTES = 256 * 1024 * 1024;

/** Parses the cluster file at `path` (`-` reads stdin). */
export function readClusterFile(path: string | undefined): unknown {
  if (!path) throw new UsageError("import needs a FILE (or - for stdin)");
  let text: string;
  try {
    // A file is refused by its size before it is read; stdin can only be measured as it arrives.
    const tooLarge = () => new ClusterFileError(`${path} is larger than ${MAX_FILE_BYTES} bytes`);
    if (path !== "-" && statSync(path).size > MAX_FILE_BYTES) throw tooLarge();
    const bytes = readFileSync(path === "-" ? 0 : path);
    if (bytes.byteLength > MAX_FILE_BYTES) throw tooLarge();
    text = bytes.toString("utf8");
  } catch (error) {
    if (error instanceof ClusterFileError) throw error;
    throw new ClusterFileError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? "unreadable"}`);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new ClusterFileError(`${path} is not JSON`);
  }
}

/** Writes `text` to `path` atomically (a temporary file renamed over it), or to stdout without a path. */
export function writeOutput(path: string | undefined, text: string): void {
  if (!path || path === "-") {
    process.stdout.write(text);
    return;
  }
  const temporary = `${path}.tmp-${process.pid}`;
  writeFileSync(temporary, text, { mode: 0o640 });
  renameSync(temporary, path);
}
