/**
 * The size rule (issue 37): no source file in src/ (`.ts`, `.js`, tests beside their modules
 * included) is over 400 lines, with no list of exceptions. A file that grows past it is split by
 * responsibility (docs/architecture.md, "Files"), never trimmed to fit. The check is proved on a
 * throwaway tree first: a 401-line file fails it, a 400-line one passes.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { ROOT, tempDir } from "../support/sawt.ts";

/** Most lines a source file may have. */
const MAX_LINES = 400;

/** The source files under `dir` over {@link MAX_LINES}, as `path: lines`. */
function oversized(dir: string): string[] {
  const found: string[] = [];
  for (const path of new Bun.Glob("**/*.{ts,js}").scanSync({ cwd: dir, absolute: true })) {
    const text = readFileSync(path, "utf8");
    const lines = text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
    if (lines > MAX_LINES) found.push(`${relative(dir, path)}: ${lines}`);
  }
  return found.sort();
}

describe("the size rule", () => {
  test("does fail a 401-line file and pass a 400-line one in a throwaway tree", () => {
    const tree = tempDir("sawt-size-");
    try {
      mkdirSync(join(tree.path, "src", "feature"), { recursive: true });
      const lines = (n: number) =>
        `${Array.from({ length: n }, (_, i) => `export const line${i} = ${i};`).join("\n")}\n`;
      writeFileSync(join(tree.path, "src", "feature", "long.ts"), lines(401));
      writeFileSync(join(tree.path, "src", "feature", "fits.ts"), lines(400));
      writeFileSync(join(tree.path, "src", "feature", "old.js"), lines(500));
      expect(oversized(join(tree.path, "src"))).toEqual(["feature/long.ts: 401", "feature/old.js: 500"]);
    } finally {
      tree.remove();
    }
  });

  test("does find no source file in src/ over 400 lines", () => {
    expect(oversized(join(ROOT, "src"))).toEqual([]);
  });
});
