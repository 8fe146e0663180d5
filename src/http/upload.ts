/**
 * Receives a multipart upload (file parts plus small form fields) straight to private temporary
 * files: random names, mode 0600, written chunk by chunk as the socket delivers them, never held
 * whole in memory. Limits are enforced while streaming: a declared Content-Length over the limit
 * is refused before reading, a file part is refused (413) as soon as the files cross the limit,
 * and a refused extension is refused when its part headers arrive. Whatever happens, the caller's
 * `remove()` (or a failure here) deletes the files (D18). Where files go and which are accepted
 * is the caller's (src/audio/upload.ts stages audio; src/http/audio-upload.ts joins the two).
 */
import { randomBytes } from "node:crypto";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { AppError, Detail } from "../errors/taxonomy.ts";
import { declaredLength } from "./body.ts";
import { multipartBoundary, readMultipart, type PartSink } from "./multipart.ts";

/** Room for form fields and multipart framing on top of the file limit. */
const FORM_OVERHEAD_BYTES = 1024 * 1024;
const MAX_FIELD_BYTES = 64 * 1024;

/** One received file. */
export interface UploadedFile {
  /** Path of the private temporary file. */
  readonly path: string;
  readonly filename: string;
  /** Lower-case extension without the dot. */
  readonly extension: string;
  readonly bytes: number;
}

/** A received upload (its first file flattened in); `remove()` must be called in every outcome. */
export interface Upload extends UploadedFile {
  /** Every file received, in order (one unless `maxFiles` allowed more). */
  readonly files: readonly UploadedFile[];
  /** Form fields other than the file (last value wins). */
  readonly fields: Readonly<Record<string, string>>;
  /** Every value of each form field, in order (for fields a client repeats, e.g. `name[]`). */
  readonly fieldValues: Readonly<Record<string, readonly string[]>>;
  remove(): Promise<void>;
}

/** How to receive an upload. */
export interface UploadOptions {
  /** Private directory (0700, existing) the files are written to. */
  readonly dir: string;
  /** Name prefix of the files (a sweep after a crash finds them by it). */
  readonly prefix: string;
  /** Most bytes all file parts together may have. */
  readonly maxBytes: number;
  /** The 413 error for files over `maxBytes`. */
  tooLarge(): AppError;
  /** The accepted extension of a file name (lower case, no dot), or undefined to refuse it (400). */
  extensionOf(filename: string): string | undefined;
  /** Names of the file part, first preferred (legacy v1 also accepted `audio`). */
  readonly fileFields?: readonly string[];
  /** How many file parts are accepted (voice cloning takes several samples); default 1. The size limit is for all together. */
  readonly maxFiles?: number;
  /** The error for a file part past `maxFiles` (default 400 `At most N files may be uploaded`). */
  tooManyFiles?(): AppError;
  /**
   * Fields that carry lists (ASR `hotwords`) and may use the whole form allowance rather than one
   * field's cap, so an over-long list reaches its route's validation (422 naming the field).
   */
  readonly listFields?: readonly string[];
}

/** Streams the request's multipart body to temp files. Throws AppError 400/413 (file removed). */
export async function receiveUpload(request: Request, options: UploadOptions): Promise<Upload> {
  const maxFileBytes = options.maxBytes;
  const fileFields = options.fileFields ?? ["file"];
  const listFields = options.listFields ?? [];
  const boundary = multipartBoundary(request.headers.get("content-type"));
  if (boundary === undefined) throw new AppError("bad_request", "Content-Type must be multipart/form-data");
  const declared = declaredLength(request);
  if (declared !== undefined && declared > maxFileBytes + FORM_OVERHEAD_BYTES) throw options.tooLarge();
  if (request.body === null) throw new AppError("bad_request", Detail.noFile);

  const dir = options.dir;
  const fields: Record<string, string> = {};
  // No prototype: a part named `__proto__` must stay a plain entry.
  const fieldValues: Record<string, string[]> = Object.create(null);
  const maxFiles = options.maxFiles ?? 1;
  const files: Array<{ path: string; filename: string; extension: string; bytes: number }> = [];
  let totalBytes = 0;
  let writer: ReturnType<ReturnType<typeof Bun.file>["writer"]> | undefined;
  let fieldBytes = 0;

  const fileSink = async (filename: string): Promise<PartSink> => {
    if (files.length >= maxFiles && options.tooManyFiles) throw options.tooManyFiles();
    if (files.length >= maxFiles)
      throw new AppError(
        "bad_request",
        maxFiles === 1 ? "Only one file may be uploaded" : `At most ${maxFiles} files may be uploaded`,
      );
    if (filename.trim().length === 0) throw new AppError("bad_request", Detail.noFile);
    const extension = options.extensionOf(filename);
    if (extension === undefined) throw new AppError("bad_request", Detail.invalidFileType);
    const path = join(dir, `${options.prefix}${randomBytes(16).toString("hex")}.${extension}`);
    // Created 0600 first (the writer would use the umask's mode), then written through a Bun
    // FileSink flushed per chunk: node's FileHandle.write retains each chunk until it completes,
    // which let a 100 MB upload grow the heap by about half its size.
    await writeFile(path, "", { flag: "wx", mode: 0o600 });
    const current = { path, filename, extension, bytes: 0 };
    files.push(current);
    const sink = (writer = Bun.file(path).writer({ highWaterMark: 1024 * 1024 }));
    return {
      write: async (chunk) => {
        current.bytes += chunk.byteLength;
        totalBytes += chunk.byteLength;
        if (totalBytes > maxFileBytes) throw options.tooLarge();
        sink.write(chunk);
        await sink.flush();
      },
      end: async () => {
        writer = undefined;
        await sink.end();
      },
    };
  };

  const fieldSink = (name: string): PartSink => {
    // Field values are small by nature (language, response_format, model); caps keep them so.
    const chunks: Uint8Array[] = [];
    let size = 0;
    return {
      write: (chunk) => {
        size += chunk.byteLength;
        fieldBytes += chunk.byteLength;
        if ((size > MAX_FIELD_BYTES && !listFields.includes(name)) || fieldBytes > FORM_OVERHEAD_BYTES)
          throw new AppError("payload_too_large", "A form field is too large");
        chunks.push(new Uint8Array(chunk)); // copy: the parser reuses its buffer
      },
      end: () => {
        const value = Buffer.concat(chunks).toString("utf8");
        fields[name] = value;
        (fieldValues[name] ??= []).push(value);
      },
    };
  };

  try {
    await readMultipart(
      request.body,
      boundary,
      (part) => {
        if (fileFields.includes(part.name) && part.filename !== undefined) return fileSink(part.filename);
        if (fileFields.includes(part.name)) throw new AppError("bad_request", Detail.noFile);
        // Other parts (unknown fields, other files) are kept as fields; together they are capped small.
        return fieldSink(part.name);
        // Parts beyond the files are the small form fields; many-file uploads (jobs) need room for their files.
      },
      Math.max(64, maxFiles + 32),
    );
  } catch (error) {
    try {
      await writer?.end();
    } catch {
      // the file is removed below either way
    }
    await Promise.all(files.map((f) => rm(f.path, { force: true })));
    throw error;
  }
  const first = files[0];
  if (first === undefined) throw new AppError("bad_request", Detail.noFile);
  return {
    ...first,
    files,
    fields,
    fieldValues,
    remove: async () => void (await Promise.all(files.map((f) => rm(f.path, { force: true })))),
  };
}
