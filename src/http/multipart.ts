/**
 * A streaming `multipart/form-data` reader (RFC 7578) over a request body stream. Bun's
 * `request.formData()` buffers the whole body in memory; uploads here may be 100 MB, so parts are
 * handed to a sink chunk by chunk as they arrive, and each chunk is awaited before the next read:
 * the socket is read only as fast as the sink (a file on disk) takes it. Whoever throws — the
 * parser on malformed input or a sink on a limit — stops the reading and cancels the stream.
 */
import { AppError } from "../errors/taxonomy.ts";

/** What a part's headers say about it. */
export interface PartInfo {
  /** `name` of Content-Disposition. */
  readonly name: string;
  /** `filename` of Content-Disposition; undefined for plain fields, "" when a form sent no file. */
  readonly filename: string | undefined;
  readonly contentType: string | undefined;
}

/** Receives one part's bytes. */
export interface PartSink {
  write(chunk: Uint8Array): void | Promise<void>;
  end(): void | Promise<void>;
}

const MAX_HEADER_BYTES = 16 * 1024;
const MAX_PREAMBLE_BYTES = 64 * 1024;
const MAX_PARTS = 64;
const CRLF = Buffer.from("\r\n");
const HEADER_END = Buffer.from("\r\n\r\n");

function malformed(why: string): AppError {
  return new AppError("bad_request", `Malformed multipart body: ${why}`);
}

/** The boundary of a `multipart/form-data` Content-Type, or undefined when it is not one. */
export function multipartBoundary(contentType: string | null): string | undefined {
  if (contentType === null || !/^\s*multipart\/form-data\s*(;|$)/i.test(contentType)) return undefined;
  const match = /;\s*boundary\s*=\s*(?:"([^"]{1,70})"|([^\s;]{1,70}))/i.exec(contentType);
  return match?.[1] ?? match?.[2];
}

/** Parameters of a header value like `form-data; name="file"; filename="a.wav"`. */
export function headerParams(value: string): Map<string, string> {
  const params = new Map<string, string>();
  const re = /;\s*([!#$%&'*+.^_`|~0-9A-Za-z-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]*))/g;
  for (let m = re.exec(value); m !== null; m = re.exec(value)) {
    const name = m[1]!.toLowerCase();
    const raw = m[2] !== undefined ? m[2].replace(/\\(.)/g, "$1") : m[3]!;
    if (name.endsWith("*")) {
      // RFC 5987 extended value: charset'lang'percent-encoded; wins over the plain one.
      const ext = /^([^']*)'[^']*'(.*)$/.exec(raw);
      if (ext && /^utf-8$/i.test(ext[1]!)) {
        try {
          params.set(name.slice(0, -1), decodeURIComponent(ext[2]!));
        } catch {
          // leave the plain parameter in place
        }
      }
    } else if (!params.has(name)) params.set(name, raw);
  }
  return params;
}

function parsePartHeaders(block: Buffer): PartInfo {
  const headers = new Map<string, string>();
  const text = new TextDecoder().decode(block);
  for (const line of text.split("\r\n")) {
    if (line.length === 0) continue;
    const colon = line.indexOf(":");
    if (colon <= 0) throw malformed("bad part header");
    headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const disposition = headers.get("content-disposition");
  if (disposition === undefined || !/^form-data\s*(;|$)/i.test(disposition))
    throw malformed("part without form-data disposition");
  const params = headerParams(disposition);
  const name = params.get("name");
  if (name === undefined) throw malformed("part without a name");
  return { name, filename: params.get("filename"), contentType: headers.get("content-type") };
}

/**
 * Reads a multipart body, calling `openPart` for each part and feeding the returned sink. Resolves
 * after the closing boundary; throws AppError 400 on malformed input (including a truncated body),
 * or whatever a sink throws. The stream is cancelled on any failure. `maxParts` bounds the parts
 * (default 64; a transcription job takes many files).
 */
export async function readMultipart(
  body: ReadableStream<Uint8Array>,
  boundary: string,
  openPart: (part: PartInfo) => PartSink | Promise<PartSink>,
  maxParts = MAX_PARTS,
): Promise<void> {
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  const reader = body.getReader();
  // A leading CRLF lets the first boundary (at the very start of the body) match the delimiter.
  let buf: Buffer = Buffer.from(CRLF);
  let state: "preamble" | "boundary" | "headers" | "body" = "preamble";
  let finished = false;
  let preambleSeen = 0;
  let parts = 0;
  let sink: PartSink | undefined;
  let ended = false;
  try {
    for (;;) {
      // Consume as much of the buffer as the current state allows.
      for (let progressed = true; progressed && !finished; ) {
        progressed = false;
        if (state === "preamble" || state === "body") {
          const at = buf.indexOf(delimiter);
          const keep = at >= 0 ? at : Math.max(0, buf.length - (delimiter.length - 1));
          if (state === "body" && keep > 0) await sink!.write(buf.subarray(0, keep));
          if (state === "preamble" && (preambleSeen += keep) > MAX_PREAMBLE_BYTES) throw malformed("no boundary found");
          if (at < 0) {
            buf = buf.subarray(keep);
            break;
          }
          if (state === "body") await sink!.end();
          buf = buf.subarray(at + delimiter.length);
          state = "boundary";
          progressed = true;
        } else if (state === "boundary") {
          if (buf.length < 2) break;
          if (buf[0] === 0x2d && buf[1] === 0x2d) {
            finished = true; // closing delimiter; the epilogue is ignored
            break;
          }
          const eol = buf.indexOf(CRLF);
          if (eol < 0) {
            if (buf.length > 256) throw malformed("bad boundary line");
            break;
          }
          if (!/^[ \t]*$/.test(buf.subarray(0, eol).toString("latin1"))) throw malformed("bad boundary line");
          buf = buf.subarray(eol + 2);
          state = "headers";
          progressed = true;
        } else if (state === "headers") {
          const end = buf.length >= 2 && buf[0] === 0x0d && buf[1] === 0x0a ? 0 : buf.indexOf(HEADER_END);
          // The cap holds however the bytes arrive: a whole oversized block in one chunk included.
          if ((end < 0 ? buf.length : end) > MAX_HEADER_BYTES) throw malformed("part headers too long");
          if (end < 0) break;
          if (++parts > maxParts) throw malformed(`more than ${maxParts} parts`);
          const info = parsePartHeaders(buf.subarray(0, end));
          buf = buf.subarray(end === 0 ? 2 : end + HEADER_END.length);
          sink = await openPart(info);
          state = "body";
          progressed = true;
        }
      }
      if (finished) break;
      const { done, value } = await reader.read();
      if (done) throw malformed("body ended before the closing boundary");
      buf =
        buf.length === 0 ? Buffer.from(value.buffer, value.byteOffset, value.byteLength) : Buffer.concat([buf, value]);
    }
    ended = true;
  } finally {
    if (!ended) await reader.cancel().catch(() => undefined);
    else reader.releaseLock();
  }
}
