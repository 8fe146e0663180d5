/**
 * Reading request bodies at the HTTP edge without trusting their size. Every route reads its own
 * body (`parse: "none"`), so nothing is buffered before a limit has been applied: a declared
 * `Content-Length` over the limit is refused before a byte is read, and a body that turns out
 * longer is refused as soon as it crosses the limit (the rest is never read).
 */
import { AppError } from "../errors/taxonomy.ts";

/** Deepest JSON nesting accepted; speech bodies are flat, so anything deeper is hostile or a bug. */
export const MAX_JSON_DEPTH = 32;

/** Formats a byte count the way detail texts show numbers (`1,048,576`). */
export function formatCount(n: number): string {
  return n.toLocaleString("en-US");
}

/** The 413 for a body over `maxBytes`. */
export function bodyTooLarge(maxBytes: number): AppError {
  return new AppError("payload_too_large", `Request body exceeds maximum size of ${formatCount(maxBytes)} bytes`);
}

/** The declared `Content-Length`, or undefined when absent or not a number. */
export function declaredLength(request: Request): number | undefined {
  const raw = request.headers.get("content-length");
  if (raw === null || !/^\d+$/.test(raw.trim())) return undefined;
  return Number(raw.trim());
}

/** Reads the whole body, refusing it (413) once it exceeds `maxBytes`. */
export async function readBodyCapped(
  request: Request,
  maxBytes: number,
  tooLarge: () => AppError = () => bodyTooLarge(maxBytes),
): Promise<Uint8Array> {
  const declared = declaredLength(request);
  if (declared !== undefined && declared > maxBytes) throw tooLarge();
  if (request.body === null) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) throw tooLarge();
      chunks.push(value);
    }
  } catch (error) {
    await reader.cancel().catch(() => undefined);
    throw error;
  }
  return Buffer.concat(chunks, total);
}

/** Nesting depth of JSON text (brackets outside strings); stops counting once over `limit`. */
export function jsonDepth(text: string, limit = MAX_JSON_DEPTH): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) max = depth;
      if (max > limit) return max;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return max;
}

/**
 * Reads a JSON body of at most `maxBytes`. An empty body reads as `undefined` (the schema then
 * reports what is missing); invalid UTF-8, invalid JSON or nesting deeper than
 * {@link MAX_JSON_DEPTH} are 400.
 */
export async function readJsonBody(request: Request, maxBytes: number): Promise<unknown> {
  const bytes = await readBodyCapped(request, maxBytes);
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new AppError("bad_request", "Malformed JSON body: not valid UTF-8");
  }
  if (text.trim().length === 0) return undefined;
  if (jsonDepth(text) > MAX_JSON_DEPTH)
    throw new AppError("bad_request", `Malformed JSON body: nested deeper than ${MAX_JSON_DEPTH} levels`);
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError("bad_request", "Malformed JSON body");
  }
}
