/**
 * Helpers for the REST tests: a fetch that asserts every response carries a well-formed
 * `X-Request-ID` (D9), assertions for the spec's three error shapes, multipart bodies, and an
 * in-process app whose engines were never started (the real "before engines are wired" state).
 */
import { expect } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { createAppContext, type AppContext } from "../../src/app/context.ts";
import { loadConfig } from "../../src/config/config.ts";
import { createHttpApp, httpListenOptions } from "../../src/app/http-app.ts";
import { httpPlugins } from "../../src/app/http-plugins.ts";
import { setLogSink } from "../../src/log/logger.ts";
import { closeDatabase } from "../../src/store/database.ts";
import { tempDir } from "../support/sawt.ts";

/** A finished request: the response and its body, read once. */
export interface Reply {
  readonly res: Response;
  readonly status: number;
  readonly text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  readonly json: any;
  header(name: string): string | null;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** fetch + read the body + assert the response has an X-Request-ID. */
export async function call(url: string, init: RequestInit = {}): Promise<Reply> {
  const res = await fetch(url, init);
  const text = await res.text();
  expect(
    res.headers.get("x-request-id"),
    `${init.method ?? "GET"} ${url} → ${res.status} without X-Request-ID`,
  ).toMatch(REQUEST_ID);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { res, status: res.status, text, json, header: (name) => res.headers.get(name) };
}

/** JSON POST with optional headers. */
export function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  return call(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** A multipart form with an optional file and fields, sent the way clients send it. */
export function uploadForm(
  file: { name: string; data?: Uint8Array | string } | undefined,
  fields: Record<string, string> = {},
): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  if (file) form.append("file", new Blob([file.data ?? new Uint8Array(64)]), file.name);
  return form;
}

/** Asserts a standard-shape error (`{error, detail, code}`). */
export function expectStandard(reply: Reply, status: number, detail: string | RegExp): void {
  expect(reply.status).toBe(status);
  expect(reply.header("content-type")).toStartWith("application/json");
  expect(Object.keys(reply.json).sort()).toEqual(["code", "detail", "error"]);
  expect(reply.json.error).toBe(status === 500 ? "internal_error" : "http_error");
  expect(reply.json.code).toBe(status === 500 ? "INTERNAL_ERROR" : `HTTP_${status}`);
  if (typeof detail === "string") expect(reply.json.detail).toBe(detail);
  else expect(reply.json.detail).toMatch(detail);
}

/** Asserts an auth-shape error (`{error, detail}`) with its headers. */
export function expectAuth(reply: Reply, status: 401 | 429, detail: string): void {
  expect(reply.status).toBe(status);
  expect(reply.json).toEqual({ error: status === 401 ? "unauthorized" : "rate_limit_exceeded", detail });
  if (status === 401) expect(reply.header("www-authenticate")).toBe("Bearer");
  if (status === 429) expect(Number(reply.header("retry-after"))).toBeGreaterThan(0);
}

/** Asserts a validation-shape error listing exactly `fields`. */
export function expectValidation(reply: Reply, fields: string[]): void {
  expect(reply.status).toBe(422);
  expect(reply.json.error).toBe("validation_error");
  expect(reply.json.detail).toBe("Request validation failed");
  expect(reply.json.errors.map((e: { field: string }) => e.field).sort()).toEqual([...fields].sort());
  for (const e of reply.json.errors) expect(typeof e.message).toBe("string");
}

/** Asserts the X-RateLimit-* headers of an authenticated response. */
export function expectRateHeaders(reply: Reply, limit: number): void {
  expect(reply.header("x-ratelimit-limit")).toBe(String(limit));
  expect(Number(reply.header("x-ratelimit-remaining"))).toBeGreaterThanOrEqual(0);
  expect(Number(reply.header("x-ratelimit-reset"))).toBeGreaterThan(0);
}

/** Files left in a data dir's upload directory. */
export function leftoverUploads(dataDir: string): string[] {
  try {
    return readdirSync(join(dataDir, "tmp"));
  } catch {
    return [];
  }
}

/** The real HTTP app on an ephemeral port, in-process, with its engines never started. */
export interface UnwiredApp {
  readonly ctx: AppContext;
  readonly baseUrl: string;
  readonly logs: string[];
  stop(): Promise<void>;
}

/** Builds and binds the HTTP app without calling startEngines: ctx.tts and ctx.asr stay unset. */
export function startUnwired(env: Record<string, string> = {}): UnwiredApp {
  const dir = tempDir("sawt-unwired-");
  const config = loadConfig({ env: { SAWT_HTTP_PORT: "0", SAWT_DATA_DIR: dir.path, ...env } });
  const ctx = createAppContext(config);
  const logs: string[] = [];
  const previous = setLogSink((line) => logs.push(line));
  const app = createHttpApp(ctx, httpPlugins);
  app.listen(httpListenOptions(config));
  return {
    ctx,
    baseUrl: `http://127.0.0.1:${app.server!.port}`,
    logs,
    async stop() {
      await app.stop(true);
      await Bun.sleep(50); // let after-response hooks of the last requests log into the test's sink
      setLogSink(previous);
      closeDatabase(ctx.db);
      dir.remove();
    },
  };
}
