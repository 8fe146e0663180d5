/**
 * Where audio a client sends is staged before decoding, whatever front door it came through
 * (REST uploads, gRPC container bytes): a private `<data_dir>/tmp/` directory (0700) of randomly
 * named files, the extensions the decoder accepts, the 413 text, and the sweep of files a process
 * that died mid-request left behind (D18). REST's streaming multipart reader is src/http/upload.ts;
 * src/http/audio-upload.ts puts the two together.
 */
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { extname, join } from "node:path";
import { AppError } from "../errors/taxonomy.ts";
import { UPLOAD_EXTENSIONS } from "../core/asr.ts";

/** Name prefix of every staged upload (what the sweep removes). */
export const UPLOAD_PREFIX = "upload-";

/** The 413 for an upload over the limit. */
export function uploadTooLarge(maxUploadMb: number): AppError {
  return new AppError("payload_too_large", `File exceeds maximum size of ${maxUploadMb.toLocaleString("en-US")} MB`);
}

const created = new Set<string>();

/** The private temp directory for uploads (created 0700 the first time it is asked for, not per request). */
export function uploadDir(dataDir: string): string {
  const dir = join(dataDir, "tmp");
  if (!created.has(dir)) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    created.add(dir);
  }
  return dir;
}

/** Deletes uploads left behind by a process that died mid-request; returns how many. */
export function sweepStaleUploads(dataDir: string): number {
  const dir = uploadDir(dataDir);
  let removed = 0;
  for (const name of readdirSync(dir)) {
    if (!name.startsWith(UPLOAD_PREFIX)) continue;
    rmSync(join(dir, name), { force: true });
    removed++;
  }
  return removed;
}

/** The allowed extension of `filename`, or undefined. */
export function allowedExtension(filename: string): string | undefined {
  const ext = extname(filename).slice(1).toLowerCase();
  return (UPLOAD_EXTENSIONS as readonly string[]).includes(ext) ? ext : undefined;
}
