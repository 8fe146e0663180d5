/**
 * Audio uploads on the REST side: the REST toolkit's streaming multipart reader
 * (src/http/upload.ts) writing into the audio staging directory with its limits and accepted
 * extensions (src/audio/upload.ts). The transcription and voice-cloning routes read their files here.
 */
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
