/**
 * REST requests drawn from a seed: every route of the app's route table (so new routes are fuzzed
 * without edits here) plus unknown paths, with every method, good and bad keys, odd headers, and
 * bodies that are valid, nearly valid or garbage — JSON for speech, hand-built multipart (well
 * formed, truncated, oversized part headers, wrong extensions) for uploads.
 */
import type { Random } from "./random.ts";
import { NASTY_STRINGS } from "./random.ts";

/** A route of the app (`:param` segments are filled at random). */
export interface RouteSpec {
  readonly method: string;
  readonly path: string;
}

/** One drawn request. */
export interface FuzzRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: Uint8Array | string;
}

/** What the generator may use. */
export interface RestFuzzInputs {
  readonly routes: readonly RouteSpec[];
  readonly key: string;
  /** A short real WAV, for uploads that should succeed. */
  readonly wav: Uint8Array;
}

const METHODS = ["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD"];
// Mostly formats Sawt encodes itself: each other one costs an ffmpeg run, and CI time is the budget.
const FORMATS = [
  "pcm",
  "pcm",
  "pcm",
  "wav",
  "wav",
  "wav",
  "ulaw",
  "alaw",
  "mp3",
  "opus",
  "aac",
  "flac",
  "ogg",
  "",
  "WAV",
];
const EXTENSIONS = ["wav", "mp3", "flac", "ogg", "webm", "m4a", "mp4", "mpeg", "mpga", "txt", "exe", "", "wav.php"];

/** Draws one request. */
export function drawRestRequest(random: Random, inputs: RestFuzzInputs): FuzzRequest {
  let route = random.chance(0.08) ? { method: "GET", path: randomPath(random) } : random.pick(inputs.routes);
  // An upload that passes the checks costs an ffmpeg run; the hostile media table covers decoding,
  // so uploads are drawn at half weight to keep the campaign fast.
  if (/transcri|voices$/.test(route.path) && route.method === "POST" && random.chance(0.5))
    route = random.pick(inputs.routes);
  const method =
    route.method === "WS" ? random.pick(["GET", "POST"]) : random.chance(0.85) ? route.method : random.pick(METHODS);
  const path = route.path.replace(/:[^/]+/g, () =>
    random.pick(["vc_0123456789abcdef", "x", "..", "%2e%2e", "a".repeat(200)]),
  );
  const headers: Record<string, string> = { ...authHeaders(random, inputs.key) };
  if (random.chance(0.2))
    headers["x-request-id"] = random.pick(["abc-123", "x".repeat(300), "bad id with spaces", "ü", ""]);
  if (random.chance(0.1)) headers["x-tts-dialect"] = random.pick(NASTY_STRINGS);
  if (route.method === "WS" && random.chance(0.5)) Object.assign(headers, brokenUpgrade(random));
  if (method === "GET" || method === "HEAD" || method === "OPTIONS") return { method, path, headers };
  const body = drawBody(random, route.path, inputs, headers);
  return {
    method,
    path: random.chance(0.05) ? `${path}?${percent(random.text(5))}=${percent(random.text(5))}` : path,
    headers,
    body,
  };
}

function randomPath(random: Random): string {
  return (
    random.pick(["/", "/v1", "/v1/tts", "/v1/asr/", "/v2/audio/speech", "/health/", "//health", "/v1/tts/voices/"]) +
    (random.chance(0.5) ? percent(random.text(random.int(1, 8))) : "")
  );
}

/** Every UTF-8 byte percent-encoded (lone surrogates become U+FFFD, as any client would send). */
function percent(text: string): string {
  return [...Buffer.from(text, "utf8")].map((b) => `%${b.toString(16).padStart(2, "0")}`).join("");
}

function authHeaders(random: Random, key: string): Record<string, string> {
  const roll = random.next();
  if (roll < 0.7) return { "x-api-key": key };
  if (roll < 0.78) return { authorization: `Bearer ${key}` };
  if (roll < 0.86) return {};
  if (roll < 0.93) return { "x-api-key": random.pick(["sawt_x_y", key.slice(0, -2), `${key}x`, "", "Bearer"]) };
  return { authorization: random.pick(["Bearer", "Basic abc", `Bearer ${key.toUpperCase()}`]) };
}

function brokenUpgrade(random: Random): Record<string, string> {
  const headers: Record<string, string> = { upgrade: random.pick(["websocket", "h2c", "WebSocket"]) };
  if (random.chance(0.5)) headers.connection = "Upgrade";
  if (random.chance(0.5)) headers["sec-websocket-version"] = random.pick(["13", "8", ""]);
  if (random.chance(0.5)) headers["sec-websocket-key"] = random.pick(["abc", "dGhlIHNhbXBsZSBub25jZQ", "!!!!"]);
  return headers;
}

function drawBody(
  random: Random,
  path: string,
  inputs: RestFuzzInputs,
  headers: Record<string, string>,
): Uint8Array | string {
  if (/speech|synthesize/.test(path) || random.chance(0.1)) {
    headers["content-type"] = random.chance(0.9)
      ? "application/json"
      : random.pick(["text/plain", "application/x-www-form-urlencoded", ""]);
    return random.chance(0.85)
      ? JSON.stringify(speechObject(random))
      : random.pick(["{", "[]", "null", "1", '{"input":', random.text(20)]);
  }
  return multipart(random, inputs, headers);
}

function speechObject(random: Random): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (random.chance(0.9)) body.input = random.chance(0.4) ? random.pick(NASTY_STRINGS) : random.text(random.int(0, 40));
  if (random.chance(0.4)) body.voice = random.pick([...NASTY_STRINGS, "yara", "tone"]);
  if (random.chance(0.3)) body.dialect = random.pick(NASTY_STRINGS);
  if (random.chance(0.95)) body.response_format = random.pick(FORMATS);
  if (random.chance(0.2)) body.speed = random.pick([0, 0.25, 1, 4, 5, -1, "fast", null, 1e9]);
  if (random.chance(0.2)) body.sample_rate = random.pick([8000, 16000, 22050, 1, 0, -5, "x", 96000]);
  if (random.chance(0.15)) body.stream = random.pick([true, false, "yes", 1]);
  if (random.chance(0.1)) body.stream_format = random.pick(["sse", "audio", "x"]);
  if (random.chance(0.1)) body[random.text(4)] = random.text(4);
  return body;
}

function multipart(random: Random, inputs: RestFuzzInputs, headers: Record<string, string>): Uint8Array {
  const boundary = random.chance(0.9) ? `fz${random.int(0, 1e9)}` : random.pick(["", "a b", "x".repeat(80)]);
  headers["content-type"] = random.chance(0.9)
    ? `multipart/form-data; boundary=${boundary}`
    : random.pick(["multipart/form-data", "application/json"]);
  const parts: Array<string | Uint8Array> = [];
  const field = (name: string, value: string) =>
    parts.push(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`);
  if (random.chance(0.3)) field("language", random.pick(["ar", "en", "", "xx", ...NASTY_STRINGS]));
  if (random.chance(0.3)) field("response_format", random.pick(["json", "text", "srt", "vtt", "verbose_json", "x"]));
  if (random.chance(0.15)) field("name", random.pick(NASTY_STRINGS));
  if (random.chance(0.7)) {
    const extension = random.pick(EXTENSIONS);
    const pad = random.chance(0.05) ? `\r\nX-Pad: ${"p".repeat(20 * 1024)}` : "";
    const name = random.pick(["file", "file", "audio", "sample", "x"]);
    parts.push(
      `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="a.${extension}"\r\nContent-Type: audio/wav${pad}\r\n\r\n`,
    );
    parts.push(random.chance(0.4) ? inputs.wav : random.bytes(random.int(0, 2048)));
    parts.push("\r\n");
  }
  if (random.chance(0.9)) parts.push(`--${boundary}--\r\n`);
  const encoded = parts.map((p) => (typeof p === "string" ? new TextEncoder().encode(p) : p));
  const all = Buffer.concat(encoded);
  return random.chance(0.05) ? all.subarray(0, random.int(0, all.length)) : all;
}
