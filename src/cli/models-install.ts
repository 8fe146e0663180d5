/**
 * `sawt models install|remove`: puts a pack in place (src/models/install.ts) and asks the running
 * service to pick it up through its admin API (`POST /v1/admin/models/reload`, an admin key from
 * `--admin-key` or `$SAWT_ADMIN_KEY`). Without a key, or with the service down, the pack is in
 * place all the same and the output says how it will be picked up (SIGHUP or the next start).
 */
import "../app/families.ts";
import { localServiceUrl, type SawtConfig } from "../config/config.ts";
import { MODELS_RELOAD_PATH } from "../admin/http/reload.ts";
import { PackError } from "../models/errors.ts";
import { installPack, removePack, type InstalledPack } from "../models/install.ts";
import { stringFlag, UsageError, type ParsedArgs } from "./args.ts";

/** The flags install and remove take (besides the models command's own). */
export const installFlags = { as: "value", "admin-key": "value", url: "value", "no-reload": "boolean" } as const;

/** Asks the service to reload; returns one line saying what happened. */
async function askReload(config: SawtConfig, args: ParsedArgs): Promise<{ ok: boolean; line: string }> {
  if (args.flags["no-reload"]) return { ok: true, line: "not reloaded (--no-reload): SIGHUP or a restart picks it up" };
  const key = stringFlag(args, "admin-key") ?? process.env.SAWT_ADMIN_KEY;
  const later =
    "the running service picks it up on SIGHUP (systemctl kill --kill-whom=main -s HUP sawt) or its next start";
  if (!key) return { ok: true, line: `no admin key (--admin-key or SAWT_ADMIN_KEY): ${later}` };
  const url = new URL(MODELS_RELOAD_PATH, stringFlag(args, "url") ?? localServiceUrl(config));
  let response: Response;
  try {
    // A reload loads and warms every pack: allow it minutes, not seconds.
    response = await fetch(url, {
      method: "POST",
      headers: { "x-api-key": key },
      signal: AbortSignal.timeout(600_000),
    });
  } catch (error) {
    return {
      ok: true,
      line: `service not reachable at ${url.origin} (${(error as Error).message}): it loads the packs when it starts`,
    };
  }
  const body = (await response.json().catch(() => ({}))) as {
    detail?: string;
    engines?: Array<Record<string, unknown>>;
  };
  if (!response.ok) return { ok: false, line: `reload refused: HTTP ${response.status} ${body.detail ?? ""}`.trim() };
  const engines = (body.engines ?? []).map(
    (e) => `${e.engine} ${e.outcome} (generation ${e.generation}${e.reason ? `: ${e.reason}` : ""})`,
  );
  return { ok: true, line: `service reloaded: ${engines.join(", ")}` };
}

function describe(pack: InstalledPack): string {
  const { record } = pack;
  const size = `${(record.size_bytes / 1024 ** 2).toFixed(1)} MiB`;
  return `installed ${pack.name}${pack.replaced ? " (replaced)" : ""}: ${pack.serves}, from a ${record.source}, ${size}, warm-up ${record.warm_up_ms} ms on ${record.provider}`;
}

/** `sawt models install PATH…`: exit 0 when every source installed, 1 when any was refused. */
export async function runInstall(config: SawtConfig, args: ParsedArgs, sources: readonly string[]): Promise<number> {
  if (sources.length === 0)
    throw new UsageError("models install needs at least one PATH (archive, folder or Piper .onnx)");
  const as = stringFlag(args, "as");
  if (as !== undefined && sources.length > 1)
    throw new UsageError("--as names one pack: install one PATH at a time with it");
  const modelsDir = config.paths.models_dir;
  const installed: InstalledPack[] = [];
  let refused = 0;
  for (const source of sources) {
    try {
      const pack = await installPack(source, { modelsDir, ...(as ? { as } : {}) });
      installed.push(pack);
      if (!args.flags.json) process.stdout.write(`${describe(pack)}\n`);
    } catch (error) {
      if (!(error instanceof PackError)) throw error;
      refused++;
      process.stderr.write(`sawt models install: ${source} refused: ${error.reason}; ${modelsDir} unchanged\n`);
    }
  }
  const reload = installed.length > 0 ? await askReload(config, args) : undefined;
  if (args.flags.json)
    process.stdout.write(`${JSON.stringify({ installed, refused, reload: reload?.line ?? null })}\n`);
  else if (reload) process.stdout.write(`${reload.line}\n`);
  return refused === 0 && (reload?.ok ?? true) ? 0 : 1;
}

/** `sawt models remove NAME…`. */
export async function runRemove(config: SawtConfig, args: ParsedArgs, names: readonly string[]): Promise<number> {
  if (names.length === 0) throw new UsageError("models remove needs a pack NAME (see sawt models list)");
  let failed = 0;
  for (const name of names) {
    try {
      removePack(config.paths.models_dir, name);
      process.stdout.write(`removed ${name}\n`);
    } catch (error) {
      if (!(error instanceof PackError)) throw error;
      failed++;
      process.stderr.write(`sawt models remove: ${error.reason}\n`);
    }
  }
  if (failed === names.length) return 1;
  const reload = await askReload(config, args);
  process.stdout.write(`${reload.line}\n`);
  return failed === 0 && reload.ok ? 0 : 1;
}
