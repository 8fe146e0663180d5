/**
 * The Elysia application: request ids, error mapping, request logging and the feature plugins.
 * Each feature contributes a plugin (`src/<feature>/http/`, listed in ./http-plugins.ts); this file composes them and
 * owns what is shared by every route: an `X-Request-ID` on every response (D9), errors rendered
 * once in the spec's shapes (404 and 405 included, D12), and one log line per request that names
 * the key by id only (D18).
 */
import { Elysia, type AnyElysia } from "elysia";
import type { SawtConfig } from "../config/config.ts";
import type { AppContext } from "../core/context.ts";
import { errorBody } from "../edge/error-body.ts";
import { requestIdFrom } from "../edge/request-id.ts";
import { AppError, Detail } from "../errors/taxonomy.ts";
import { requestKeyId } from "../http/auth.ts";
import { errorAnswer, errorHeaders } from "../http/errors.ts";
import { assertWebSocketHandshake, WEBSOCKET_ROUTE_METHOD, webSocketMiss } from "../http/ws-guard.ts";
import { healthRoutes } from "./health-routes.ts";

/** A feature plugin factory: gets the shared context, returns an Elysia instance with routes. */
export type FeaturePlugin = (ctx: AppContext) => AnyElysia;

/** Observes each finished request (metrics). */
export type RequestObserver = (info: { method: string; route: string; status: number; seconds: number }) => void;

/**
 * Options for `app.listen`. Bun's own body-size limit would answer 413 itself, without the
 * request id or the spec's body, so it is lifted: every route reads its body through a limit of
 * its own (JSON: server.max_json_bytes; uploads: asr.max_upload_mb, checked while streaming).
 * `development: false` keeps Bun from ever serving its error page with a stack trace.
 */
export function httpListenOptions(config: SawtConfig) {
  return {
    hostname: config.server.host,
    port: config.server.http_port,
    maxRequestBodySize: Number.MAX_SAFE_INTEGER,
    development: false,
  };
}

// When each request arrived. Kept beside the request, not in an Elysia derive: derive and resolve
// run only once a route matched, and 404/405/426 answers are timed and logged too.
const started = new WeakMap<Request, number>();
// Requests whose log line (onAfterResponse) has not been written yet. Bun runs that hook after the
// response is flushed, so a request answered just before SIGTERM could otherwise go unlogged.
let unloggedRequests = 0;

/** Waits (bounded) until every answered request has been logged and observed; used at shutdown. */
export async function settleRequestLogs(timeoutMs = 1000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (unloggedRequests > 0 && performance.now() < deadline) await Bun.sleep(5);
}

/** Builds the HTTP app from the shared context and feature plugins. */
export function createHttpApp(ctx: AppContext, plugins: readonly FeaturePlugin[] = [], observe?: RequestObserver) {
  const routeTable: Array<{ method: string; pattern: RegExp }> = [];
  const allowed = (path: string) => [...new Set(routeTable.filter((r) => r.pattern.test(path)).map((r) => r.method))];
  // 404, 405 (Allow lists HTTP methods only) or, on a WebSocket path, 426 / 405 (src/http/ws-guard.ts).
  const routeMiss = (request: Request, path: string, headers: Record<string, string>): AppError => {
    const methods = allowed(path);
    const httpMethods = methods.filter((m) => m !== WEBSOCKET_ROUTE_METHOD);
    if (methods.includes(WEBSOCKET_ROUTE_METHOD) && !httpMethods.includes(request.method)) {
      const miss = webSocketMiss(request.method, httpMethods);
      Object.assign(headers, miss.headers);
      return miss.error;
    }
    if (httpMethods.length === 0 || httpMethods.includes(request.method)) return new AppError("not_found", "Not Found");
    if (httpMethods.includes("GET")) httpMethods.push("HEAD");
    headers["allow"] = httpMethods.join(", ");
    return new AppError("method_not_allowed", "Method Not Allowed");
  };
  // Elysia finds the path in `request.url` by searching for a slash from a fixed offset that
  // assumes a Host of at least four characters (`standardHostname`); behind `Host: tts` it read
  // `/tts/ws` for `/v1/tts/ws`, so every WebSocket upgrade missed its route and got the 426.
  const app = new Elysia({ name: "sawt", handler: { standardHostname: false } })
    .onRequest(({ request, set }) => {
      unloggedRequests++;
      started.set(request, performance.now());
      set.headers["x-request-id"] = requestIdFrom(request.headers);
      // Every WS route, including ones whose plugin forgets the guard: Bun's own refusal is text/plain.
      if (request.headers.has("upgrade") && allowed(new URL(request.url).pathname).includes(WEBSOCKET_ROUTE_METHOD)) {
        assertWebSocketHandshake(request);
      }
    })
    .onError(({ code, error, request, path, set }) => {
      let appError: AppError;
      if (error instanceof AppError) appError = error;
      else if (code === "NOT_FOUND") appError = routeMiss(request, path, set.headers as Record<string, string>);
      else if (code === "PARSE") appError = new AppError("bad_request", "Malformed request body");
      else if (request.signal.aborted) appError = new AppError("client_closed", "Client closed request");
      else if (code === "VALIDATION")
        appError = new AppError("validation", Detail.validationFailed, {
          fields: [{ field: "body", message: "invalid request" }],
        });
      else {
        // The detail never carries the message: it may name paths or echo input. The log has it.
        ctx.log.error("unhandled error", {
          request_id: set.headers["x-request-id"],
          error: error instanceof Error ? error : String(error),
        });
        appError = new AppError("internal", Detail.internal);
      }
      set.status = appError.status;
      const requestId = String(set.headers["x-request-id"] ?? "");
      const answer = errorAnswer(appError, request, requestId, errorBody);
      Object.assign(set.headers, errorHeaders(appError), answer.headers, { "content-type": "application/json" });
      return answer.body;
    })
    .onAfterResponse(({ request, path, set, route, responseValue }) => {
      unloggedRequests = Math.max(0, unloggedRequests - 1);
      const begin = started.get(request);
      const seconds = begin === undefined ? 0 : (performance.now() - begin) / 1000;
      // A handler that returns a Response sets its status there, not in `set`.
      const status =
        responseValue instanceof Response ? responseValue.status : typeof set.status === "number" ? set.status : 200;
      const routeName = typeof route === "string" && route.length > 0 ? route : "unmatched";
      observe?.({ method: request.method, route: routeName, status, seconds });
      ctx.log.info("request", {
        request_id: set.headers["x-request-id"],
        method: request.method,
        route: routeName,
        path: routeName === "unmatched" ? undefined : path,
        status,
        key_id: requestKeyId(request),
        ms: Math.round(seconds * 1000),
      });
    })
    .use(healthRoutes(ctx));
  for (const plugin of plugins) app.use(plugin(ctx));
  for (const route of app.routes) {
    const pattern = new RegExp(`^${route.path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/:[^/]+/g, "[^/]+")}/?$`);
    routeTable.push({ method: route.method, pattern });
  }
  return app;
}
