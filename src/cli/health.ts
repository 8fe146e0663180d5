/** `sawt health`: exit 0 when the running service is ready, 1 otherwise (systemd, monitoring). */
import { loadConfig, localServiceUrl } from "../config/config.ts";
import { parseArgs, stringFlag } from "./args.ts";
import type { Command } from "./command.ts";

const flags = { config: "value", url: "value", timeout: "value", quiet: "boolean" } as const;

/**
 * "the <engine> engine failed: <reason>" for every engine /ready lists as failed, the reason from
 * the engine's own health route (its 503 `detail`).
 */
async function failedEngines(base: string, readyBody: string, timeout: number): Promise<string[]> {
  let engines: Record<string, string> = {};
  try {
    engines = (JSON.parse(readyBody) as { engines?: Record<string, string> }).engines ?? {};
  } catch {
    return [];
  }
  const lines: string[] = [];
  for (const [name, status] of Object.entries(engines)) {
    if (status !== "failed") continue;
    let body: { detail?: string; enabled?: boolean } = {};
    try {
      const health = await fetch(new URL(`/v1/${name}/health`, base), { signal: AbortSignal.timeout(timeout) });
      body = (await health.json()) as typeof body;
    } catch {
      // The reason is a courtesy: the failed state alone decides the exit code.
    }
    // An engine with nothing to serve (no pack) is failed but not enabled: /ready does not wait for it.
    if (body.enabled === false) continue;
    lines.push(`the ${name} engine failed: ${body.detail ?? "no reason given"}`);
  }
  return lines;
}

/** The health command. */
export const healthCommand: Command = {
  name: "health",
  usage: `Usage: sawt health [--url URL] [--timeout MS] [--quiet] [--config FILE]

Asks the running service's GET /ready (every enabled engine ready). Exit 0 when it answers 200;
2 when an engine reports failed (it will not become ready without a change: the engine's reason
is printed); 1 otherwise (down, unreachable, draining, still starting). The URL defaults to
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
      if (response.status === 200) return 0;
      const failed = await failedEngines(base, body, timeout);
      if (failed.length === 0) return 1;
      if (!args.flags.quiet) for (const line of failed) process.stderr.write(`sawt health: ${line}\n`);
      return 2;
    } catch (error) {
      if (!args.flags.quiet) process.stderr.write(`sawt health: ${url} unreachable: ${(error as Error).message}\n`);
      return 1;
    }
  },
};
