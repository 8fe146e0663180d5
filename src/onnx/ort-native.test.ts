import { afterEach, describe, expect, test } from "bun:test";
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { linkBundleLibraries } from "./ort-native.ts";

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

function layout() {
  const root = mkdtempSync(join(tmpdir(), "sawt-link-"));
  dirs.push(root);
  const lib = join(root, "bundle", "lib");
  const priv = join(root, "private");
  mkdirSync(lib, { recursive: true });
  mkdirSync(priv);
  for (const name of [
    "libonnxruntime_providers_shared.so",
    "libonnxruntime_providers_cuda.so",
    "libcudart.so.12",
    "libonnxruntime.so.1",
    "README",
  ])
    writeFileSync(join(lib, name), name);
  return { root, lib, priv };
}

describe("linkBundleLibraries", () => {
  test("does make the bundle's provider and CUDA libraries visible beside the private libonnxruntime", () => {
    const { lib, priv } = layout();
    const linked = linkBundleLibraries(priv, lib);
    expect(linked).toEqual([
      "libcudart.so.12",
      "libonnxruntime_providers_cuda.so",
      "libonnxruntime_providers_shared.so",
    ]);
    for (const name of linked) {
      expect(lstatSync(join(priv, name)).isSymbolicLink()).toBe(true);
      expect(readFileSync(join(priv, name), "utf8")).toBe(name);
    }
    // The embedded libonnxruntime stays the one in use; non-libraries are ignored.
    expect(readdirSync(priv).sort()).toEqual(linked);
  });

  test("does repoint links when the bundle moved and leave no temporary entries", () => {
    const { root, lib, priv } = layout();
    symlinkSync(join(root, "old-place", "libcudart.so.12"), join(priv, "libcudart.so.12"));
    linkBundleLibraries(priv, lib);
    linkBundleLibraries(priv, lib); // idempotent
    expect(readlinkSync(join(priv, "libcudart.so.12"))).toBe(join(lib, "libcudart.so.12"));
    expect(readdirSync(priv).some((n) => n.endsWith(".link"))).toBe(false);
  });

  test("does nothing when the bundle has no lib directory", () => {
    const { root, priv } = layout();
    expect(linkBundleLibraries(priv, join(root, "nowhere"))).toEqual([]);
  });
});
