#!/usr/bin/env bun
/** The `sawt` command line: dispatches to a command, maps failures to exit codes and one-line errors. */
import { ConfigError } from "./config/config.ts";
import { UsageError } from "./cli/args.ts";
import { COMMANDS } from "./cli/commands.ts";
import { VERSION } from "./version.ts";
import { JOBS_WORKER_COMMAND } from "./asr/jobs/worker/protocol.ts";

function mainHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return `sawt ${VERSION} — on-prem Arabic-first text-to-speech and speech recognition

Usage: sawt <command> [options]   (sawt <command> --help for details)

Commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join("\n")}

  --version    print the version
  --help       this help

Config: --config FILE or SAWT_CONFIG (TOML); every setting has a SAWT_* env override.`;
}

/** Runs the CLI with `argv` (without the executable) and returns the exit code. */
export async function runCli(argv: readonly string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    process.stdout.write(mainHelp() + "\n");
    return name === undefined ? 2 : 0;
  }
  if (name === "--version" || name === "-v" || name === "version") {
    process.stdout.write(`sawt ${VERSION}\n`);
    return 0;
  }
  // The jobs worker process the service starts (not listed: it is not a command for people).
  if (name === JOBS_WORKER_COMMAND) return (await import("./app/jobs-worker.ts")).runJobsWorker();
  const entry = COMMANDS.find((c) => c.name === name);
  if (!entry) {
    process.stderr.write(`sawt: unknown command ${JSON.stringify(name)}\n\n${mainHelp()}\n`);
    return 2;
  }
  const command = await entry.load();
  if (rest.includes("--help") || rest.includes("-h")) {
    process.stdout.write(command.usage + "\n");
    return 0;
  }
  try {
    return await command.run(rest);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`sawt ${command.name}: ${error.message}\n\n${command.usage}\n`);
      return 2;
    }
    if (error instanceof ConfigError) {
      process.stderr.write(`sawt: ${error.message}\n`);
      return 78; // EX_CONFIG: systemd shows it as a configuration error
    }
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EADDRINUSE") {
      process.stderr.write(`sawt: a port is already in use (${(error as Error).message.split("\n")[0]})\n`);
      return 1;
    }
    process.stderr.write(`sawt ${command.name}: ${(error as Error).message?.split("\n")[0] ?? String(error)}\n`);
    return 1;
  }
}

if (import.meta.main) {
  const code = await runCli(process.argv.slice(2));
  process.exit(code);
}
