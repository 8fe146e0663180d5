/**
 * Model packs over the admin API (the console's Operations page; `sawt models` does the same on
 * the box): `GET /v1/admin/packs` lists what is installed and what each folder serves,
 * `POST /v1/admin/packs` installs an uploaded archive (the raw bytes as the body, streamed to a
 * private staging file under a size cap, then the one install path of src/models/install.ts:
 * recognise, validate and warm up, checksums, rename in) and reloads the engines, and
 * `DELETE /v1/admin/packs/{name}` removes a pack and reloads. Admin keys only; never rate limited.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { open } from "node:fs/promises";
import { join } from "node:path";
import { Elysia } from "elysia";
import type { AppContext } from "../../core/context.ts";
import { authenticateAdmin } from "../../edge/auth.ts";
import { AppError } from "../../errors/taxonomy.ts";
import { DEFAULT_LIMITS } from "../../models/archive-limits.ts";
import { describeModels } from "../../models/catalog.ts";
import { PackError } from "../../models/errors.ts";
import { installPack, removePack } from "../../models/install.ts";
import { adminOperation } from "./openapi.ts";
import type { EngineReloader } from "../../core/engines.ts";

/** What an upload's file name may be (it only tells the archive's kind and a default pack name). */
const FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** Streams the request body into `path`, refusing more than `max` bytes (413). */
async function saveBody(request: Request, path: string, max: number): Promise<number> {
  if (!request.body) throw new AppError("bad_request", "The pack archive is the request body; it was empty");
  const file = await open(path, "wx", 0o600);
  let size = 0;
  try {
    for await (const chunk of request.body as unknown as AsyncIterable<Uint8Array>) {
      size += chunk.byteLength;
      if (size > max) throw new AppError("payload_too_large", `Pack archive exceeds ${max} bytes`);
      await file.write(chunk);
    }
  } finally {
    await file.close();
  }
  if (size === 0) throw new AppError("bad_request", "The pack archive is the request body; it was empty");
  return size;
}

function packProblem(error: unknown): never {
  if (error instanceof PackError) throw new AppError("bad_request", `Pack refused: ${error.message}`);
  throw error;
}

/** The pack admin routes plugin. */
export function adminPackRoutes(ctx: AppContext, reload: EngineReloader) {
  const modelsDir = () => ctx.config.paths.models_dir;
  const admin = {
    beforeHandle({ request }: { request: Request }) {
      authenticateAdmin(ctx, request.headers, false);
    },
  };
  return new Elysia({ name: "admin-packs" })
    .get(
      "/v1/admin/packs",
      () => ({
        packs: describeModels(modelsDir()).map((p) => ({
          name: p.name,
          family: p.family,
          serves: p.serves ?? null,
          problems: p.problems,
          size_bytes: p.size_bytes,
          provider: p.provider,
          warm_up_ms: p.warm_up_ms,
          installed_at: p.installed_at,
        })),
      }),
      {
        ...admin,
        detail: adminOperation(
          "listPacks",
          "List model packs",
          "Every folder under paths.models_dir: what it serves or why not.",
          [],
        ),
      },
    )
    .post(
      "/v1/admin/packs",
      async ({ request, query, set }) => {
        const filename = typeof query.filename === "string" ? query.filename : "pack.tar.gz";
        if (!FILE_NAME.test(filename)) throw new AppError("bad_request", "filename: letters, digits, . _ - only");
        const as = typeof query.name === "string" && query.name !== "" ? query.name : undefined;
        const staging = mkdtempSync(join(ctx.config.paths.data_dir, ".pack-upload-"));
        try {
          const source = join(staging, filename);
          await saveBody(request, source, DEFAULT_LIMITS.maxTotalBytes);
          const installed = await installPack(source, { modelsDir: modelsDir(), ...(as ? { as } : {}) }).catch(
            packProblem,
          );
          const engines = await reload("admin API (pack install)");
          set.status = 201;
          return {
            pack: {
              name: installed.name,
              family: installed.family,
              serves: installed.serves,
              replaced: installed.replaced,
            },
            engines,
          };
        } finally {
          rmSync(staging, { recursive: true, force: true });
        }
      },
      {
        ...admin,
        parse: "none",
        detail: adminOperation(
          "installPack",
          "Install a model pack",
          "The body is the pack archive (tar, tar.gz, tar.bz2 or zip). `?filename=` tells its kind, `?name=` the pack folder (a voice pack is named after its voice). " +
            "The pack is recognised, loaded and warmed up before it replaces anything; then the engines reload. 400 names why a pack was refused.",
          [400, 413],
          [
            { name: "filename", in: "query", required: false, schema: { type: "string" }, example: "tone-ctc.tar.gz" },
            { name: "name", in: "query", required: false, schema: { type: "string" }, example: "Sherine" },
          ],
          { required: true, content: { "application/octet-stream": { schema: { type: "string", format: "binary" } } } },
        ),
      },
    )
    .delete(
      "/v1/admin/packs/:name",
      async ({ params }) => {
        try {
          removePack(modelsDir(), params.name);
        } catch (error) {
          if (error instanceof PackError) throw new AppError("not_found", `No pack ${params.name}`);
          throw error;
        }
        const engines = await reload("admin API (pack remove)");
        return { removed: params.name, engines };
      },
      {
        ...admin,
        detail: adminOperation(
          "removePack",
          "Remove a model pack",
          "Removes the folder, then the engines reload.",
          [404],
          [{ name: "name", in: "path", required: true, schema: { type: "string" } }],
        ),
      },
    );
}
