/** `sawt voices export|import`: cloned voices shared between the boxes of a cluster. */
import { clusterSecret } from "../store/cluster-file.ts";
import { exportVoices, importVoices } from "../voices/export.ts";
import { parseArgs, stringFlag, UsageError } from "./args.ts";
import { readClusterFile, writeOutput } from "./cluster-io.ts";
import type { Command } from "./command.ts";
import { withDatabase } from "./keys.ts";

const flags = { config: "value", out: "value", prune: "boolean" } as const;

/** The voices command. */
export const voicesCommand: Command = {
  name: "voices",
  usage: `Usage:
  sawt voices export [--out FILE]
  sawt voices import [--prune] FILE|-

export   writes every finished cloned voice (owner key id, name, state, speaker embedding) as a
         file signed with cluster.secret (HMAC-SHA256) and a new generation number, to stdout
         or --out. Training voices are left out; samples are never kept (D18).
import   adds or refreshes the voices of an export on this box. Their keys must be here first
         (sawt keys import). Refuses a bad signature, a file older than the last import, and a
         voice id owned by another key here. --prune also deletes finished voices that are not
         in the file (voices deleted on the source box).

Options:
  --config FILE   TOML config (the database lives in paths.data_dir; cluster.secret signs)`,
  flags,
  async run(argv) {
    const args = parseArgs(argv, flags);
    const [action, ...rest] = args.positional;
    const configFile = stringFlag(args, "config");
    switch (action) {
      case "export": {
        const file = withDatabase(configFile, (db, config) => exportVoices(db, clusterSecret(config)));
        writeOutput(stringFlag(args, "out"), JSON.stringify(file, null, 1) + "\n");
        process.stderr.write(`exported ${file.items.length} voices, generation ${file.generation}\n`);
        return 0;
      }
      case "import": {
        const prune = args.flags.prune === true;
        const result = withDatabase(configFile, (db, config) => {
          const secret = clusterSecret(config);
          return importVoices(db, readClusterFile(rest[0]), secret, { prune });
        });
        process.stderr.write(
          `imported voices generation ${result.generation}: ${result.added} added, ${result.updated} updated, ` +
            `${result.unchanged} unchanged${prune ? `, ${result.removed} removed` : ""}\n`,
        );
        return 0;
      }
      default:
        throw new UsageError(
          action ? `unknown voices action ${JSON.stringify(action)}` : "voices needs an action: export or import",
        );
    }
  },
};
