import { expect, test } from "bun:test";
import { join } from "node:path";
import { ROOT } from "./support/sawt.ts";

test("tsc --noEmit in strict mode reports no errors", async () => {
  const proc = Bun.spawn([join(ROOT, "node_modules", ".bin", "tsc"), "--noEmit", "-p", join(ROOT, "tsconfig.json")], {
    cwd: ROOT,
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  expect(out + err).toBe("");
  expect(code).toBe(0);
}, 120_000);
