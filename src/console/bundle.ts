/**
 * Build-time bundling of the console's browser code, run as a Bun macro (imported `with { type:
 * "macro" }` by ./http/assets.ts): the UI sources under ./ui/ are bundled and minified by Bun's
 * own bundler when the server's module is transpiled, so `bun build --compile` embeds the result
 * as a string constant and `bun src/main.ts` gets the same bundle from source, with no generated
 * file to keep in step. Bun refuses `Bun.build` inside a macro (the bundler would wait on
 * itself), so the CLI does the work in a child process.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

const UI = join(import.meta.dir, "ui");

/** The console's script: ui/main.ts and what it imports, one minified browser ES module. */
export function consoleScript(): string {
  const built = Bun.spawnSync(
    [process.execPath, "build", join(UI, "main.ts"), "--target=browser", "--format=esm", "--minify"],
    { stdout: "pipe", stderr: "pipe", env: { ...process.env, NO_COLOR: "1" } },
  );
  if (built.exitCode !== 0) throw new Error(`console bundle failed: ${built.stderr.toString()}`);
  return built.stdout.toString();
}

/** The console's stylesheet, as written. */
export function consoleStyles(): string {
  return readFileSync(join(UI, "console.css"), "utf8");
}
