/**
 * `POST /v1/admin/models/reload`: the running service loads the packs now in `paths.models_dir`
 * (docs/models.md), as SIGHUP does. Needs an admin key always — unlike /metrics,
 * `runtime.metrics_open` does not open it: a reload costs every engine a load and warm-up. It
 * answers once the new generations serve (or why an engine could not), with each engine's state;
 * the old generations drain and are released afterwards. `sawt models install|remove` call it.
 */
import { Elysia } from "elysia";
import type { AppContext } from "../../core/context.ts";
import { authenticateAdmin } from "../../edge/auth.ts";
import type { EngineReloader } from "../../core/engines.ts";

/** The path of the reload route (the CLI calls it). */
export const MODELS_RELOAD_PATH = "/v1/admin/models/reload";

/** The admin routes plugin. */
export function adminReloadRoutes(ctx: AppContext, reload: EngineReloader) {
  return new Elysia({ name: "admin" }).post(
    MODELS_RELOAD_PATH,
    async () => {
      const engines = await reload("admin API");
      return { status: "reloaded", engines };
    },
    {
      beforeHandle({ request }) {
        authenticateAdmin(ctx, request.headers, false);
      },
      // An operator endpoint (README "Model packs"), not part of the client API reference.
      detail: { hide: true },
    },
  );
}
