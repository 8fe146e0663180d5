/** `sawt keys create|list|revoke|export|import`: API key administration against the local database. */
import type { Database } from "bun:sqlite";
import { loadConfig, type SawtConfig } from "../config/config.ts";
import { clusterSecret } from "../store/cluster-file.ts";
import { closeDatabase, openDatabase } from "../store/database.ts";
import { exportKeys, haproxyRpmMap, importKeys } from "../store/key-export.ts";
import { KeyStore } from "../store/keys.ts";
import { intFlag, parseArgs, stringFlag, UsageError, type ParsedArgs } from "./args.ts";
import { readClusterFile, writeOutput } from "./cluster-io.ts";
import type { Command } from "./command.ts";

const flags = {
  config: "value",
  name: "value",
  rpm: "value",
  admin: "boolean",
  json: "boolean",
  out: "value",
  "haproxy-map": "value",
} as const;

/** Opens the configured database for `fn` and closes it afterwards. */
export function withDatabase<T>(configFile: string | undefined, fn: (db: Database, config: SawtConfig) => T): T {
  const config = loadConfig({ file: configFile });
  const db = openDatabase(config.paths.data_dir);
  try {
    return fn(db, config);
  } finally {
    closeDatabase(db);
  }
}

function withKeys<T>(configFile: string | undefined, fn: (keys: KeyStore, defaultRpm: number) => T): T {
  return withDatabase(configFile, (db, config) => fn(new KeyStore(db), config.auth.default_rpm));
}

function exportAction(args: ParsedArgs, configFile: string | undefined): number {
  const file = withDatabase(configFile, (db, config) => exportKeys(db, clusterSecret(config)));
  writeOutput(stringFlag(args, "out"), JSON.stringify(file, null, 1) + "\n");
  const map = stringFlag(args, "haproxy-map");
  if (map) writeOutput(map, haproxyRpmMap(file));
  process.stderr.write(`exported ${file.items.length} keys as digests, generation ${file.generation}\n`);
  return 0;
}

function importAction(path: string | undefined, configFile: string | undefined): number {
  const result = withDatabase(configFile, (db, config) => {
    const secret = clusterSecret(config);
    return importKeys(db, readClusterFile(path), secret);
  });
  process.stderr.write(
    `imported keys generation ${result.generation}: ${result.added} added, ${result.updated} updated, ` +
      `${result.revoked} revoked, ${result.unchanged} unchanged\n`,
  );
  return 0;
}

function when(ms: number | null): string {
  return ms === null ? "-" : new Date(ms).toISOString();
}

/** The keys command. */
export const keysCommand: Command = {
  name: "keys",
  usage: `Usage:
  sawt keys create --name NAME [--rpm N] [--admin] [--json]
  sawt keys list [--json]
  sawt keys revoke ID
  sawt keys export [--out FILE] [--haproxy-map FILE]
  sawt keys import FILE|-

create   prints the new key once (it is stored only as a SHA-256 digest); --json prints
         {"id","name","key","rpm"}. --rpm sets requests per minute (default auth.default_rpm);
         --admin allows /metrics.
list     shows id, name, rpm, admin, created, last used, revoked; never secrets.
revoke   refuses the key from now on.
export   writes every key (digests only, never secrets) as a file signed with cluster.secret
         (HMAC-SHA256) and a new generation number, to stdout or --out; --haproxy-map also
         writes "<id> <rpm>" lines for the balancer's per-key limit (deploy/haproxy/).
import   adds or updates the keys of an export on this box, so the same keys work on every box
         without re-issuing them; refuses a bad signature, a file older than the last import, and
         a key id known here with another secret. Revocations are copied and never undone.

Options:
  --config FILE   TOML config (the database lives in paths.data_dir)`,
  flags,
  async run(argv) {
    const args = parseArgs(argv, flags);
    const [action, ...rest] = args.positional;
    const configFile = stringFlag(args, "config");
    switch (action) {
      case "create": {
        const name = stringFlag(args, "name");
        if (!name || name.trim() === "") throw new UsageError("keys create needs --name NAME");
        const created = withKeys(configFile, (keys, defaultRpm) =>
          keys.create({ name, rpm: intFlag(args, "rpm", defaultRpm), admin: args.flags.admin === true }),
        );
        if (args.flags.json)
          process.stdout.write(
            JSON.stringify({ id: created.id, name: created.name, key: created.key, rpm: created.rpm }) + "\n",
          );
        else {
          process.stdout.write(`${created.key}\n`);
          process.stderr.write(
            `created key ${created.id} (${created.name}, ${created.rpm} rpm${created.admin ? ", admin" : ""}); it is shown only once\n`,
          );
        }
        return 0;
      }
      case "list": {
        const list = withKeys(configFile, (keys) => keys.list());
        if (args.flags.json) process.stdout.write(JSON.stringify(list) + "\n");
        else {
          process.stdout.write(["id", "name", "rpm", "admin", "created", "last_used", "revoked"].join("\t") + "\n");
          for (const k of list) {
            process.stdout.write(
              [
                k.id,
                k.name,
                k.rpm,
                k.admin ? "yes" : "no",
                when(k.createdAt),
                when(k.lastUsedAt),
                when(k.revokedAt),
              ].join("\t") + "\n",
            );
          }
        }
        return 0;
      }
      case "revoke": {
        const id = rest[0];
        if (!id) throw new UsageError("keys revoke needs an ID (see sawt keys list)");
        const done = withKeys(configFile, (keys) => keys.revoke(id));
        if (!done) {
          process.stderr.write(`sawt: no active key with id ${id}\n`);
          return 1;
        }
        process.stderr.write(`revoked key ${id}\n`);
        return 0;
      }
      case "export":
        return exportAction(args, configFile);
      case "import":
        return importAction(rest[0], configFile);
      default:
        throw new UsageError(
          action
            ? `unknown keys action ${JSON.stringify(action)}`
            : "keys needs an action: create, list, revoke, export or import",
        );
    }
  },
};
