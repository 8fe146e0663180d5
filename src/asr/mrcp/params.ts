/**
 * speechrecog header fields (RFC 6787 §9.4) a RECOGNIZE reads, its own headers over the channel's
 * SET-PARAMS, with the RFC's or Sawt's defaults (docs/mrcp.md lists them), and the grammar
 * references of its body.
 */

/** Header names SET-PARAMS may set on a recogniser channel. */
export const RECOG_PARAMETERS: ReadonlySet<string> = new Set([
  "confidence-threshold",
  "sensitivity-level",
  "speed-vs-accuracy",
  "n-best-list-length",
  "no-input-timeout",
  "recognition-timeout",
  "speech-complete-timeout",
  "speech-incomplete-timeout",
  "dtmf-interdigit-timeout",
  "dtmf-term-timeout",
  "dtmf-term-char",
  "start-input-timers",
  "speech-language",
  "recognition-mode",
  "save-waveform",
  "media-type",
  "logging-tag",
  "vendor-specific-parameters",
  "hotword-max-duration",
  "hotword-min-duration",
  "interpret-text",
  "early-no-match",
  "cancel-if-queue",
]);

/** The settings of one RECOGNIZE. */
export interface RecognizeSettings {
  readonly noInputMs: number;
  readonly recognitionMs: number;
  readonly speechCompleteMs: number;
  readonly speechIncompleteMs: number;
  readonly interdigitMs: number;
  readonly termMs: number;
  readonly termChar: string | undefined;
  readonly startTimers: boolean;
  readonly confidenceThreshold: number;
  readonly nBest: number;
}

/** A header value out of range: answered 404 (illegal value) naming it. */
export class IllegalValue extends Error {}

function int(value: string | undefined, name: string, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  if (!/^\d{1,9}$/.test(value.trim()) || Number(value) > max) throw new IllegalValue(name);
  return Number(value);
}

/** Reads the settings; throws {@link IllegalValue}. */
export function recognizeSettings(
  headers: ReadonlyMap<string, string>,
  params: ReadonlyMap<string, string>,
): RecognizeSettings {
  const get = (name: string) => headers.get(name) ?? params.get(name);
  const threshold = get("confidence-threshold");
  const confidence = threshold === undefined ? 0.5 : Number(threshold);
  if (!Number.isFinite(confidence) || confidence < 0 || confidence > 1) throw new IllegalValue("Confidence-Threshold");
  const startTimers = (get("start-input-timers") ?? "true").trim().toLowerCase();
  if (startTimers !== "true" && startTimers !== "false") throw new IllegalValue("Start-Input-Timers");
  const termChar = get("dtmf-term-char")?.trim();
  if (termChar !== undefined && !/^[0-9*#A-D]?$/.test(termChar)) throw new IllegalValue("DTMF-Term-Char");
  const hour = 3_600_000;
  return {
    noInputMs: int(get("no-input-timeout"), "No-Input-Timeout", 5000, hour),
    recognitionMs: int(get("recognition-timeout"), "Recognition-Timeout", 10000, hour),
    speechCompleteMs: int(get("speech-complete-timeout"), "Speech-Complete-Timeout", 800, 60000),
    speechIncompleteMs: int(get("speech-incomplete-timeout"), "Speech-Incomplete-Timeout", 1500, 60000),
    interdigitMs: int(get("dtmf-interdigit-timeout"), "DTMF-Interdigit-Timeout", 5000, hour),
    termMs: int(get("dtmf-term-timeout"), "DTMF-Term-Timeout", 10000, hour),
    termChar: termChar || undefined,
    startTimers: startTimers === "true",
    confidenceThreshold: confidence,
    nBest: Math.max(1, int(get("n-best-list-length"), "N-Best-List-Length", 1, 100)),
  };
}

/** One grammar a RECOGNIZE names: a URI (`builtin:…`, `session:<id>`) or an inline document. */
export type GrammarRef =
  | { readonly uri: string }
  | { readonly contentType: string; readonly body: string; readonly id?: string };

/** The grammars of a RECOGNIZE body: `text/uri-list` lines or one inline SRGS document. */
export function grammarRefs(headers: ReadonlyMap<string, string>, body: string): GrammarRef[] {
  const type = headers.get("content-type")?.split(";")[0]?.trim().toLowerCase();
  if (!type || body.trim() === "") return [];
  if (type === "text/uri-list" || type === "text/grammar-ref-list") {
    return body
      .split(/\r?\n/)
      .map((line) => line.trim().replace(/^<(.*)>(?:;.*)?$/, "$1"))
      .filter((line) => line.length > 0 && !line.startsWith("#"))
      .map((uri) => ({ uri }));
  }
  return [{ contentType: type, body, id: headers.get("content-id")?.replace(/^<(.*)>$/, "$1") }];
}
