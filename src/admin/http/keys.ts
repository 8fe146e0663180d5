/**
 * Keys and the box's state over the admin API (the console's Operations page; `sawt keys` does
 * the same on the box): list, create (the plaintext is in the answer once and nowhere else),
 * change the per-minute limit, revoke; and `GET /v1/admin/overview`: each engine's state, how
 * many lexicon entries and cloned voices each key has (counts only: their text is the key
 * owner's), and the recent errors by kind (./recent-errors.ts). Admin keys only.
 */
import { Elysia } from "elysia";
import type { AppContext } from "../../core/context.ts";
import { authenticateAdmin } from "../../edge/auth.ts";
import { AppError, Detail } from "../../errors/taxonomy.ts";
import { readJsonBody } from "../../http/body.ts";
import type { ApiKeyRecord } from "../../store/keys.ts";
import { adminOperation } from "./openapi.ts";
import { recentErrors } from "../recent-errors.ts";

/** A key as the API shows it (snake case, never its secret). */
function keyView(key: ApiKeyRecord) {
  return {
    id: key.id,
    name: key.name,
    rpm: key.rpm,
    admin: key.admin,
    created_at: new Date(key.createdAt).toISOString(),
    last_used_at: key.lastUsedAt === null ? null : new Date(key.lastUsedAt).toISOString(),
    revoked_at: key.revokedAt === null ? null : new Date(key.revokedAt).toISOString(),
  };
}

function invalid(field: string, message: string): AppError {
  return new AppError("validation", Detail.validationFailed, { fields: [{ field, message }] });
}

function rpmOf(value: unknown): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > 1_000_000)
    throw invalid("body.rpm", "Expected an integer from 1 to 1000000");
  return value;
}

function objectBody(body: unknown): Record<string, unknown> {
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw invalid("body", "Expected an object");
  return body as Record<string, unknown>;
}

/** Counts per key in one table (`lexicon_entries`, `cloned_voices`). */
function countsByKey(ctx: AppContext, table: "lexicon_entries" | "cloned_voices"): Record<string, number> {
  const rows = ctx.db.query(`SELECT key_id, COUNT(*) AS n FROM ${table} GROUP BY key_id`).all() as {
    key_id: string;
    n: number;
  }[];
  return Object.fromEntries(rows.map((r) => [r.key_id, r.n]));
}

const KEY_PARAM = { name: "id", in: "path" as const, required: true, schema: { type: "string" as const } };
const JSON_BODY = (example: Record<string, unknown>) => ({
  required: true,
  content: { "application/json": { schema: { type: "object" as const }, example } },
});

/** The key and overview admin routes plugin. */
export function adminKeyRoutes(ctx: AppContext) {
  const admin = {
    beforeHandle({ request }: { request: Request }) {
      authenticateAdmin(ctx, request.headers, false);
    },
  };
  const max = ctx.config.server.max_json_bytes;
  return new Elysia({ name: "admin-keys" })
    .get("/v1/admin/keys", () => ({ keys: ctx.keys.list().map(keyView) }), {
      ...admin,
      detail: adminOperation("listKeys", "List API keys", "Every key, newest first, without secrets.", []),
    })
    .post(
      "/v1/admin/keys",
      async ({ request, set }) => {
        const body = objectBody(await readJsonBody(request, max));
        const name = typeof body.name === "string" ? body.name.trim() : "";
        if (name.length < 1 || name.length > 100) throw invalid("body.name", "Expected 1 to 100 characters");
        const rpm = body.rpm === undefined ? ctx.config.auth.default_rpm : rpmOf(body.rpm);
        if (body.admin !== undefined && typeof body.admin !== "boolean")
          throw invalid("body.admin", "Expected a boolean");
        const created = ctx.keys.create({ name, rpm, admin: body.admin === true });
        set.status = 201;
        return { ...keyView(created), key: created.key };
      },
      {
        ...admin,
        parse: "none",
        detail: adminOperation(
          "createKey",
          "Create an API key",
          "Answers the key's record with its plaintext `key`, shown this once (only its digest is stored).",
          [413, 422],
          [],
          JSON_BODY({ name: "ivr-designer", rpm: 60, admin: false }),
          "201",
        ),
      },
    )
    .patch(
      "/v1/admin/keys/:id",
      async ({ request, params }) => {
        const rpm = rpmOf(objectBody(await readJsonBody(request, max)).rpm);
        if (!ctx.keys.setRpm(params.id, rpm)) throw new AppError("not_found", `No key ${params.id}`);
        return keyView(ctx.keys.get(params.id)!);
      },
      {
        ...admin,
        parse: "none",
        detail: adminOperation(
          "updateKey",
          "Change a key's limit",
          "Sets `rpm`, the key's requests per minute.",
          [404, 413, 422],
          [KEY_PARAM],
          JSON_BODY({ rpm: 120 }),
        ),
      },
    )
    .delete(
      "/v1/admin/keys/:id",
      ({ params }) => {
        if (!ctx.keys.revoke(params.id)) throw new AppError("not_found", `No active key ${params.id}`);
        return keyView(ctx.keys.get(params.id)!);
      },
      {
        ...admin,
        detail: adminOperation(
          "revokeKey",
          "Revoke an API key",
          "The key is refused from its next request on.",
          [404],
          [KEY_PARAM],
        ),
      },
    )
    .get(
      "/v1/admin/overview",
      () => ({
        engines: [ctx.engines.tts, ctx.engines.asr].map((e) => e.snapshot()),
        lexicon_entries: countsByKey(ctx, "lexicon_entries"),
        cloned_voices: countsByKey(ctx, "cloned_voices"),
        errors: recentErrors(ctx),
      }),
      {
        ...admin,
        detail: adminOperation(
          "adminOverview",
          "The box at a glance",
          "Engine states, lexicon entries and cloned voices counted per key id, and recent failed requests by error kind " +
            "(time, method, route pattern, status: never user text or keys).",
          [],
        ),
      },
    );
}
