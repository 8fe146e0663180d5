/**
 * Structured JSON logs, one object per line on stderr (stdout carries only the `listening`
 * line and command output). Privacy (D18): callers pass ids, counts and timings, never input
 * text, transcripts, audio or keys; `redact` strips fields that must never be written even if a
 * caller slips.
 */
import { writeSync } from "node:fs";

/** Log levels in increasing severity. */
export type LogLevel = "debug" | "info" | "warn" | "error";

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** Field names that are never written, whatever a caller passes. */
const FORBIDDEN_FIELDS = new Set([
  "key",
  "api_key",
  "apiKey",
  "secret",
  "input",
  "text",
  "transcript",
  "authorization",
  "audio",
]);

/** A logger bound to fixed context fields. */
export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  /** A logger that adds `fields` to every line. */
  child(fields: Record<string, unknown>): Logger;
}

let threshold: LogLevel = parseLevel(process.env.SAWT_LOG_LEVEL) ?? "info";
// Synchronous writes: a line logged just before process.exit (the last request before SIGTERM,
// the shutdown line) must not be lost in a pipe buffer, and lines never interleave.
let sink: (line: string) => void = (line) => {
  try {
    writeSync(2, line + "\n");
  } catch {
    // stderr closed: nowhere left to report
  }
};

/** Parses a level name; undefined when it is not one. */
export function parseLevel(value: string | undefined): LogLevel | undefined {
  return value !== undefined && value in ORDER ? (value as LogLevel) : undefined;
}

/** Sets the minimum level written. */
export function setLogLevel(level: LogLevel): void {
  threshold = level;
}

/** Redirects log lines (tests). Returns the previous sink. */
export function setLogSink(next: (line: string) => void): (line: string) => void {
  const previous = sink;
  sink = next;
  return previous;
}

function redact(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(fields)) {
    if (FORBIDDEN_FIELDS.has(name)) continue;
    out[name] = value instanceof Error ? { name: value.name, message: value.message } : value;
  }
  return out;
}

function write(level: LogLevel, context: Record<string, unknown>, msg: string, fields?: Record<string, unknown>): void {
  if (ORDER[level] < ORDER[threshold]) return;
  const record = { time: new Date().toISOString(), level, msg, ...redact(context), ...(fields ? redact(fields) : {}) };
  sink(JSON.stringify(record));
}

/** Creates a logger with fixed context fields (e.g. `{ component: "tts" }`). */
export function createLogger(context: Record<string, unknown> = {}): Logger {
  return {
    debug: (msg, fields) => write("debug", context, msg, fields),
    info: (msg, fields) => write("info", context, msg, fields),
    warn: (msg, fields) => write("warn", context, msg, fields),
    error: (msg, fields) => write("error", context, msg, fields),
    child: (fields) => createLogger({ ...context, ...fields }),
  };
}

/** The process-wide root logger. */
export const log: Logger = createLogger();
