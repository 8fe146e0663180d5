import { expect, test } from "bun:test";
import { join } from "node:path";
import { envName, SETTINGS } from "../../src/config/settings.ts";
import { ROOT } from "../support/sawt.ts";

test("does document every setting with its env variable and default in the README", async () => {
  const readme = await Bun.file(join(ROOT, "README.md")).text();
  for (const spec of SETTINGS) {
    const row = readme.split("\n").find((line) => line.startsWith(`| \`${spec.section}.${spec.key}\` |`));
    expect(row, `${spec.section}.${spec.key} missing from README`).toBeDefined();
    expect(row).toContain(`\`${envName(spec)}\``);
    expect(row).toContain(Array.isArray(spec.default) ? "`[]`" : `\`${JSON.stringify(spec.default)}\``);
  }
});
