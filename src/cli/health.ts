/** `sawt health`: exit 0 when the running service is ready, 1 otherwise (systemd, monitoring). */
import { loadConfig, localServiceUrl } from "../config/config.ts";
import { parseArgs, stringFlag } from "./args.ts";
import type { Command } from "./command.ts";

const flags = { config: "value", url: "value", timeout: "value", quiet: "boolean" } as const;

/** The health command. */
export const healthCommand: Command = {
  name: "health",
  usage: `Usage: sawt health [--url URL] [--timeout MS] [--quiet] [--config FILE]

Asks the running service's GET /ready (every enabled engine ready). Exit 0 when it answers 200,
1 otherwise (down, unreachable, draining, engine failed). The URL defaults to
http://<server.host>:<server.http_port> from the config.`,
  flags,
  async run(argv) {
    const args = parseArgs(argv, flags);
    let base = stringFlag(args, "url");
    if (!base) {
      base = localServiceUrl(loadConfig({ file: stringFlag(args, "config") }));
    }
    const url = new URL("/ready", base).toString();
    const timeout = Number(stringFlag(args, "timeout") ?? 5000);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(timeout) });
      const body = await response.text();
      if (!args.flags.quiet) process.stdout.write(`${response.status} ${body}\n`);
      return response.status === 200 ? 0 : 1;
    } catch (error) {
      if (!args.flags.quiet) process.stderr.write(`sawt health: ${url} unreachable: ${(error as Error).message}\n`);
      return 1;
    }
  },
};
