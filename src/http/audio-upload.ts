/**
 * Audio uploads on the REST side: the REST toolkit's streaming multipart reader
 * (src/http/upload.ts) writing into the audio staging directory with its limits and accepted
 * extensions (src/audio/upload.ts). The transcription and voice-cloning routes read their files here;
 * a door whose protocol sends the recording as the whole body (Deepgram's `POST /v1/listen`)
 * stages it with {@link receiveAudioBody}.
 */
import { createHash, randomBytes } from "node:crypto";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { AppError } from "../errors/taxonomy.ts";
import { declaredLength } from "./body.ts";
import { receiveUpload, type Upload } from "./upload.ts";
import { allowedExtension, UPLOAD_PREFIX, uploadDir, uploadTooLarge } from "../audio/upload.ts";

export type { Upload, UploadedFile } from "./upload.ts";

/** How a route receives audio. */
export interface AudioUploadOptions {
  /** Sawt's data directory; files go to `<dataDir>/tmp/`. */
  readonly dataDir: string;
  readonly maxUploadMb: number;
  /** Names of the file part, first preferred (legacy v1 also accepted `audio`). */
  readonly fileFields?: readonly string[];
  /** How many audio files are accepted (voice cloning takes several samples); default 1. */
  readonly maxFiles?: number;
  /** Form fields holding lists, allowed the whole form allowance (see ./upload.ts). */
  readonly listFields?: readonly string[];
}

/** Streams the request's audio upload to staged temp files. Throws AppError 400/413 (files removed). */
export function receiveAudioUpload(request: Request, options: AudioUploadOptions): Promise<Upload> {
  return receiveUpload(request, {
    dir: uploadDir(options.dataDir),
    prefix: UPLOAD_PREFIX,
    maxBytes: options.maxUploadMb * 1024 * 1024,
    tooLarge: () => uploadTooLarge(options.maxUploadMb),
    extensionOf: allowedExtension,
    fileFields: options.fileFields,
    maxFiles: options.maxFiles,
    listFields: options.listFields,
  });
}

/** A request body staged as a private temp file; `remove()` must be called in every outcome. */
export interface StagedBody {
  readonly path: string;
  readonly bytes: number;
  /** SHA-256 of the body, hex (Deepgram's metadata names the audio by it). */
  readonly sha256: string;
  remove(): Promise<void>;
}

/**
 * Streams a request body that is the recording itself to a staged temp file (0600, the upload
 * prefix, so a crash's leftover is swept), under the upload limit: a declared length over it is
 * refused before reading, a longer body as soon as it crosses it (413, file removed). An empty body
 * is 400.
 */
export async function receiveAudioBody(
  request: Request,
  options: Pick<AudioUploadOptions, "dataDir" | "maxUploadMb">,
): Promise<StagedBody> {
  const maxBytes = options.maxUploadMb * 1024 * 1024;
  const declared = declaredLength(request);
  if (declared !== undefined && declared > maxBytes) throw uploadTooLarge(options.maxUploadMb);
  const path = join(uploadDir(options.dataDir), `${UPLOAD_PREFIX}body-${randomBytes(16).toString("hex")}.bin`);
  const remove = async () => void (await rm(path, { force: true }));
  await writeFile(path, "", { flag: "wx", mode: 0o600 });
  const sink = Bun.file(path).writer({ highWaterMark: 1024 * 1024 });
  const hash = createHash("sha256");
  let bytes = 0;
  try {
    if (request.body !== null)
      for await (const chunk of request.body) {
        bytes += chunk.byteLength;
        if (bytes > maxBytes) throw uploadTooLarge(options.maxUploadMb);
        hash.update(chunk);
        sink.write(chunk);
        await sink.flush();
      }
    await sink.end();
    if (bytes === 0) throw new AppError("bad_request", "No audio: send the recording as the request body");
  } catch (error) {
    await Promise.resolve(sink.end()).catch(() => undefined);
    await remove();
    throw error;
  }
  return { path, bytes, sha256: hash.digest("hex"), remove };
}
