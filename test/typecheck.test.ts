import { expect, test } from "bun:test";
import { join } from "node:path";
import { ROOT } from "./support/sawt.ts";

// The console's browser code has its own project (DOM types, no Bun types): src/console/ui/tsconfig.json.
test.each(["tsconfig.json", "src/console/ui/tsconfig.json"])(
  "tsc --noEmit -p %s in strict mode reports no errors",
  async (project) => {
    const proc = Bun.spawn([join(ROOT, "node_modules", ".bin", "tsc"), "--noEmit", "-p", join(ROOT, project)], {
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
  },
  120_000,
);
