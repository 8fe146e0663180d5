/**
 * The API docs: /docs/json describes every route with its errors, security and Arabic examples,
 * and /docs renders offline — checked in a real headless Chromium whose DNS resolves nothing but
 * localhost (an air-gapped box), asserting every route path appears in the rendered DOM.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startSawt, tempDir, testTool, type SawtProcess } from "../support/sawt.ts";
import { call } from "./support.ts";

const ROUTES: Record<string, string> = {
  "/health": "get",
  "/ready": "get",
  "/v1/tts/health": "get",
  "/v1/asr/health": "get",
  "/v1/tts/audio/speech": "post",
  "/v1/audio/speech": "post",
  "/v1/asr/audio/transcriptions": "post",
  "/v1/asr/transcribe": "post",
  "/v1/asr/format": "post",
  "/v1/audio/transcriptions": "post",
  "/synthesize": "post",
  "/transcribe": "post",
  "/v1/tts/voices": "get,post",
  "/v1/tts/voices/{voice_id}": "get,delete",
  "/v1/tts/analyze": "post",
  "/v1/tts/lexicon": "get,put,delete",
  "/v1/asr/jobs": "get,post",
  "/v1/asr/jobs/{id}": "get,delete",
  "/v1/asr/jobs/{id}/cancel": "post",
  "/v1/asr/jobs/{id}/deliveries": "get",
  "/v1/asr/jobs/{id}/files/{file_id}/result": "get",
  "/v1/admin/keys": "get,post",
  "/v1/admin/keys/{id}": "patch,delete",
  "/v1/admin/packs": "get,post",
  "/v1/admin/packs/{name}": "delete",
  "/v1/admin/overview": "get",
  "/v1/asr/phrases": "get,put,delete",
  "/v1/calls": "get,post",
  "/v1/calls/{id}/say": "post",
  "/v1/calls/{id}/clear": "post",
  "/v1/calls/{id}/hangup": "post",
  "/v1/calls/{id}/transcript": "get",
};
const OPEN = new Set(["/health", "/ready", "/v1/tts/health", "/v1/asr/health"]);

let sawt: SawtProcess;
let spec: any;

beforeAll(async () => {
  sawt = await startSawt();
  spec = (await call(`${sawt.baseUrl}/docs/json`)).json;
});
afterAll(() => sawt.stop());

/**
 * The committed OpenAPI document: a change to the API shows as a change to this file in review.
 * An intended change is recorded with `SAWT_UPDATE_OPENAPI=1 bun test test/rest/docs.test.ts`.
 */
const SNAPSHOT = join(import.meta.dir, "openapi.json");

describe("OpenAPI document", () => {
  test("does equal the committed document (test/rest/openapi.json) unless a change is intended", () => {
    if (process.env.SAWT_UPDATE_OPENAPI === "1") {
      // Rewriting the snapshot makes the comparison below pass by construction: never in CI.
      expect(process.env.CI ?? "").toBe("");
      writeFileSync(SNAPSHOT, `${JSON.stringify(spec, null, 2)}\n`);
    }
    expect(spec).toEqual(JSON.parse(readFileSync(SNAPSHOT, "utf8")));
  });

  test("does list exactly the served routes", () => {
    expect(spec.openapi).toStartWith("3.");
    expect(Object.keys(spec.paths).sort()).toEqual(Object.keys(ROUTES).sort());
    for (const [path, methods] of Object.entries(ROUTES))
      expect(Object.keys(spec.paths[path]).sort()).toEqual(methods.split(",").sort());
  });

  test("does document the key schemes and every error an authenticated route can answer", () => {
    expect(spec.components.securitySchemes.ApiKeyHeader).toEqual(
      expect.objectContaining({ type: "apiKey", in: "header", name: "X-API-Key" }),
    );
    expect(spec.components.securitySchemes.BearerAuth).toEqual(
      expect.objectContaining({ type: "http", scheme: "bearer" }),
    );
    for (const [path, methods] of Object.entries(ROUTES)) {
      for (const method of methods.split(",")) {
        const op = spec.paths[path][method];
        if (OPEN.has(path)) {
          expect(op.security).toEqual([]);
          continue;
        }
        expect(op.security).toEqual([{ ApiKeyHeader: [] }, { BearerAuth: [] }]);
        if (path === "/v1/tts/lexicon" || path === "/v1/asr/phrases") {
          // The lexicon and the phrase list are stored data, not synthesis: no engine gate (503/504); PUT validates a body.
          for (const status of ["200", "401", "429", "500"])
            expect(op.responses[status], `${path} ${method} ${status}`).toBeDefined();
          if (method === "put")
            for (const status of ["400", "413", "422"])
              expect(op.responses[status], `${path} put ${status}`).toBeDefined();
          continue;
        }
        if (path.startsWith("/v1/asr/jobs")) {
          // Jobs are stored work, not a call waiting on the engine: no 503/504; 404 for another key's job.
          for (const status of ["401", "429", "500"])
            expect(op.responses[status], `${path} ${method} ${status}`).toBeDefined();
          if (path.includes("{id}")) expect(op.responses["404"]).toBeDefined();
          if (method === "post" && path === "/v1/asr/jobs") {
            for (const status of ["202", "400", "413", "422"]) expect(op.responses[status]).toBeDefined();
            expect(Object.keys(op.requestBody.content).sort()).toEqual(["application/json", "multipart/form-data"]);
          }
          continue;
        }
        if (path === "/v1/asr/format") {
          // Text in, text out: no model, so no engine gate (503/504); the body is validated.
          for (const status of ["200", "400", "401", "413", "422", "429", "500"])
            expect(op.responses[status], `${path} ${status}`).toBeDefined();
          expect(op.requestBody).toBeDefined();
          continue;
        }
        if (path.startsWith("/v1/calls")) {
          // Calls: 503 while calls.enabled is off, 404 for a call another key's or ended; no queue (504).
          for (const status of ["401", "429", "500", "503"])
            expect(op.responses[status], `${path} ${method} ${status}`).toBeDefined();
          if (path.includes("{id}")) expect(op.responses["404"], `${path} 404`).toBeDefined();
          expect(op.tags).toEqual(["Calls"]);
          continue;
        }
        if (path.startsWith("/v1/admin/")) {
          // Operator routes: an admin key (403 for another key), never rate limited (no 429), no engine gate.
          for (const status of ["401", "403", "500"])
            expect(op.responses[status], `${path} ${method} ${status}`).toBeDefined();
          expect(op.responses["429"], `${path} ${method} 429`).toBeUndefined();
          expect(op.tags).toEqual(["Admin"]);
          continue;
        }
        if (path.startsWith("/v1/tts/voices")) {
          // The voice library answers its own set: no 422/503/504, 404 for another key's voice.
          for (const status of ["401", "429", "500"])
            expect(op.responses[status], `${path} ${method} ${status}`).toBeDefined();
          if (path.endsWith("}")) expect(op.responses["404"]).toBeDefined();
          if (method === "post") expect(op.responses["501"]).toBeDefined();
          continue;
        }
        for (const status of ["200", "400", "401", "413", "422", "429", "500", "503", "504"])
          expect(op.responses[status], `${path} ${status}`).toBeDefined();
        expect(op.requestBody).toBeDefined();
      }
    }
    for (const shape of ["StandardError", "AuthError", "ValidationError"])
      expect(spec.components.schemas[shape]).toBeDefined();
    expect(spec.components.responses.Unauthorized.headers["WWW-Authenticate"]).toBeDefined();
    expect(spec.components.responses.RateLimited.headers["Retry-After"]).toBeDefined();
  });

  test("does derive the speech body from the validation schema and show Arabic examples", () => {
    const body = spec.components.schemas.SpeechRequest;
    expect(body.required).toEqual(["input"]);
    expect(body.properties.response_format.enum).toEqual(["aac", "flac", "mp3", "opus", "pcm", "wav"]);
    expect(body.properties.sample_rate).toEqual(
      expect.objectContaining({ type: "integer", minimum: 8000, maximum: 48000 }),
    );
    expect(spec.components.schemas.TranscriptionRequest.properties.language.enum).toEqual(["ar", "en"]);
    const examples =
      JSON.stringify(spec.paths["/v1/tts/audio/speech"].post.requestBody) +
      JSON.stringify(spec.components.schemas.Transcription);
    expect(examples).toMatch(/[\u0600-\u06ff]{3,}/);
  });

  test("does describe the transcription bodies from the schemas the renderer is typed by", () => {
    const verbose = spec.components.schemas.VerboseTranscription;
    expect(verbose.required).toEqual(["task", "text", "language", "dialect", "duration"]);
    expect(verbose.properties.segments.items.properties.avg_logprob.type).toBe("number");
    expect(spec.components.schemas.Transcription.properties.dialect.nullable).toBe(true);
  });

  test("does use only OpenAPI 3.0 schema keywords (no JSON Schema spellings)", () => {
    const wrong: string[] = [];
    const walk = (node: unknown, path: string): void => {
      if (Array.isArray(node)) return node.forEach((item, i) => walk(item, `${path}[${i}]`));
      if (typeof node !== "object" || node === null) return;
      const schema = node as Record<string, unknown>;
      // 3.0 schemas say example (one), nullable and a required list; 3.1/JSON Schema's forms are not read.
      // (Media types and parameters have an examples map and a required flag; a schema has neither.)
      const isSchema = "type" in schema || "properties" in schema;
      if (Array.isArray(schema.examples)) wrong.push(`${path}.examples`);
      if (isSchema && typeof schema.required === "boolean") wrong.push(`${path}.required`);
      for (const key of ["$schema", "const"]) if (key in schema) wrong.push(`${path}.${key}`);
      if (Array.isArray(schema.type)) wrong.push(`${path}.type`);
      for (const [key, value] of Object.entries(schema))
        walk(value, key === "schema" ? `${path}.schema` : `${path}.${key}`);
    };
    walk(spec.components.schemas, "components.schemas");
    walk(spec.paths, "paths");
    expect(wrong).toEqual([]);
  });

  test("does reference no asset outside the box", async () => {
    const page = await call(`${sawt.baseUrl}/docs`);
    expect(page.header("content-type")).toStartWith("text/html");
    const viewer = await call(`${sawt.baseUrl}/docs/viewer.js`);
    expect(viewer.status).toBe(200);
    for (const text of [page.text, viewer.text]) expect(text).not.toMatch(/(?:src|href)\s*=\s*["']?(?:https?:)?\/\//i);
    expect(page.text).toContain('src="/docs/viewer.js"');
  });
});

describe("rendered docs page", () => {
  async function chrome(args: string[]): Promise<string> {
    const chromium = testTool(["chromium", "chromium-browser"], "chromium");
    const profile = tempDir("sawt-chromium-");
    try {
      const proc = Bun.spawn(
        [
          chromium,
          "--headless",
          "--no-sandbox",
          "--disable-gpu",
          "--disable-background-networking",
          "--disable-component-update",
          "--disable-sync",
          "--no-first-run",
          // Air gap: no name resolves except localhost, so any CDN fetch would fail.
          "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
          `--user-data-dir=${profile.path}`,
          "--virtual-time-budget=5000",
          ...args,
          `${sawt.baseUrl}/docs`,
        ],
        { stdout: "pipe", stderr: "ignore" },
      );
      const [out] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
      return out;
    } finally {
      profile.remove();
    }
  }

  test("does render every route path offline", async () => {
    const dom = await chrome(["--dump-dom"]);
    expect(dom).not.toContain("sawt-docs-error");
    const rendered = [...dom.matchAll(/<code class="path">([^<]+)<\/code>/g)].map((m) => m[1]);
    // One row per operation: a path with two methods appears twice.
    const operations = Object.entries(ROUTES).flatMap(([path, methods]) => methods.split(",").map(() => path));
    expect(rendered.sort()).toEqual(operations.sort());
    expect(dom).toContain("X-API-Key");
    expect(dom).toMatch(/[\u0600-\u06ff]{3,}/);
  }, 60_000);

  test("does produce a screenshot of the page", async () => {
    const shot = join(tmpdir(), `sawt-docs-${process.pid}.png`);
    await chrome([`--screenshot=${shot}`, "--window-size=1280,2000"]);
    try {
      expect(statSync(shot).size).toBeGreaterThan(20_000);
    } finally {
      rmSync(shot, { force: true });
    }
  }, 60_000);
});
