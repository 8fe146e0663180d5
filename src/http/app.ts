/**
 * The Elysia application: request ids, error mapping, request logging and the feature plugins.
 * Each feature contributes a plugin (`src/<feature>/http.ts`); this file only composes them and
 * owns what is shared by every route.
 */
import { Elysia } from "elysia";
import type { AppContext } from "../app/context.ts";
import { AppError } from "../errors/taxonomy.ts";
import { errorBody, errorHeaders } from "./errors.ts";
import { healthRoutes } from "./health.ts";
import { requestIdFor } from "./request-id.ts";

/** A feature plugin factory: gets the shared context, returns an Elysia instance with routes. */
export type FeaturePlugin = (ctx: AppContext) => Elysia<any, any, any, any, any, any, any>;

/** Observes each finished request (metrics). */
export type RequestObserver = (info: { method: string; route: string; status: number; seconds: number }) => void;

const started = new WeakMap<Request, number>();

/** Builds the HTTP app from the shared context and feature plugins. */
export function createHttpApp(ctx: AppContext, plugins: readonly FeaturePlugin[] = [], observe?: RequestObserver) {
  const routeTable: Array<{ method: string; pattern: RegExp }> = [];
  const app = new Elysia({ name: "sawt" })
    .onRequest(({ request, set }) => {
      started.set(request, performance.now());
      set.headers["x-request-id"] = requestIdFor(request);
    })
    .onError(({ code, error, request, set, path }) => {
      let appError: AppError;
      if (error instanceof AppError) appError = error;
      else if (code === "NOT_FOUND") {
        const other = routeTable.some((r) => r.method !== request.method && r.pattern.test(path));
        appError = other ? new AppError("method_not_allowed", "Method Not Allowed") : new AppError("not_found", "Not Found");
      } else if (code === "PARSE") appError = new AppError("bad_request", "Malformed request body");
      else if (request.signal.aborted) appError = new AppError("client_closed", "Client closed request");
      else if (code === "VALIDATION") appError = new AppError("validation", "Request validation failed", { fields: [{ field: "body", message: "invalid request" }] });
      else {
        ctx.log.error("unhandled error", { request_id: set.headers["x-request-id"], error: error instanceof Error ? error : String(error) });
        appError = new AppError("internal", "Internal server error");
      }
      set.status = appError.status;
      Object.assign(set.headers, errorHeaders(appError), { "content-type": "application/json" });
      return errorBody(appError);
    })
    .onAfterResponse(({ request, set, path, route, responseValue }) => {
      const begin = started.get(request);
      const seconds = begin === undefined ? 0 : (performance.now() - begin) / 1000;
      // A handler that returns a Response sets its status there, not in `set`.
      const status = responseValue instanceof Response ? responseValue.status : typeof set.status === "number" ? set.status : 200;
      const routeName = typeof route === "string" && route.length > 0 ? route : "unmatched";
      observe?.({ method: request.method, route: routeName, status, seconds });
      ctx.log.info("request", {
        request_id: set.headers["x-request-id"],
        method: request.method,
        route: routeName,
        path: routeName === "unmatched" ? undefined : path,
        status,
        ms: Math.round(seconds * 1000),
      });
    })
    .use(healthRoutes(ctx));
  for (const plugin of plugins) app.use(plugin(ctx));
  for (const route of app.routes) {
    const pattern = new RegExp(`^${route.path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/:[^/]+/g, "[^/]+")}$`);
    routeTable.push({ method: route.method, pattern });
  }
  return app;
}
