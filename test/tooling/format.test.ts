/**
 * The tree is as Biome formats it (biome.json: 2 spaces, 120 columns, double quotes); `bun run
 * format` rewrites it so.
 */
import { expect, test } from "bun:test";
import { join } from "node:path";
import { ROOT } from "../support/sawt.ts";

test("does list no file when biome checks the tree's formatting", async () => {
  const biome = join(ROOT, "node_modules", ".bin", "biome");
  const proc = Bun.spawn([biome, "format", "--reporter=concise", "--max-diagnostics=none", "--colors=off"], {
    cwd: ROOT,
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  const unformatted = [...`${out}\n${err}`.matchAll(/^\S+ (\S+?): format\b/gm)].map((m) => m[1]);
  if (unformatted.length > 0) console.error(`not formatted (run \`bun run format\`):\n  ${unformatted.join("\n  ")}`);
  expect(unformatted).toEqual([]);
  // A failure that names no file (a bad biome.json, say) still fails, with biome's own words.
  expect(code === 0 ? "" : out + err).toBe("");
}, 60_000);
