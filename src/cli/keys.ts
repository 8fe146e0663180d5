/** `sawt keys create|list|revoke`: API key administration against the local database. */
import { loadConfig } from "../config/config.ts";
import { closeDatabase, openDatabase } from "../store/database.ts";
import { KeyStore } from "../store/keys.ts";
import { intFlag, parseArgs, stringFlag, UsageError } from "./args.ts";
import type { Command } from "./command.ts";

const flags = { config: "value", name: "value", rpm: "value", admin: "boolean", json: "boolean" } as const;

function withKeys<T>(configFile: string | undefined, fn: (keys: KeyStore, defaultRpm: number) => T): T {
  const config = loadConfig({ file: configFile });
  const db = openDatabase(config.paths.data_dir);
  try {
    return fn(new KeyStore(db), config.auth.default_rpm);
  } finally {
    closeDatabase(db);
  }
}

function when(ms: number | null): string {
  return ms === null ? "-" : new Date(ms).toISOString();
}

/** The keys command. */
export const keysCommand: Command = {
  name: "keys",
  summary: "create, list and revoke API keys",
  usage: `Usage:
  sawt keys create --name NAME [--rpm N] [--admin] [--json]
  sawt keys list [--json]
  sawt keys revoke ID

create   prints the new key once (it is stored only as a SHA-256 digest); --json prints
         {"id","name","key","rpm"}. --rpm sets requests per minute (default auth.default_rpm);
         --admin allows /metrics.
list     shows id, name, rpm, admin, created, last used, revoked; never secrets.
revoke   refuses the key from now on.

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
        if (args.flags.json) process.stdout.write(JSON.stringify({ id: created.id, name: created.name, key: created.key, rpm: created.rpm }) + "\n");
        else {
          process.stdout.write(`${created.key}\n`);
          process.stderr.write(`created key ${created.id} (${created.name}, ${created.rpm} rpm${created.admin ? ", admin" : ""}); it is shown only once\n`);
        }
        return 0;
      }
      case "list": {
        const list = withKeys(configFile, (keys) => keys.list());
        if (args.flags.json) process.stdout.write(JSON.stringify(list) + "\n");
        else {
          process.stdout.write(["id", "name", "rpm", "admin", "created", "last_used", "revoked"].join("\t") + "\n");
          for (const k of list) {
            process.stdout.write([k.id, k.name, k.rpm, k.admin ? "yes" : "no", when(k.createdAt), when(k.lastUsedAt), when(k.revokedAt)].join("\t") + "\n");
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
      default:
        throw new UsageError(action ? `unknown keys action ${JSON.stringify(action)}` : "keys needs an action: create, list or revoke");
    }
  },
};
