/**
 * Loads onnxruntime-node so that it works both in a checkout and inside the single
 * `bun build --compile` executable.
 *
 * The compiled binary embeds the `.node` addon but not `libonnxruntime.so.1`, which the addon links
 * dynamically. We embed that library as a file asset, copy it to a private directory at start-up
 * and `dlopen` it before the addon is imported: the dynamic linker then finds the soname already
 * resident and the addon's own lookup succeeds. The CUDA provider libraries shipped in the
 * bundle's `<dir of executable>/lib/` are symlinked into that private directory first, because
 * onnxruntime looks for providers beside the libonnxruntime it runs from
 * (see {@link linkBundleLibraries}). Every other module imports onnxruntime types only
 * (`import type`) and gets the runtime through {@link loadOrt}; session workers get the
 * materialised path from {@link ortLibraryPath}.
 */
import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
// The path resolves to node_modules in a checkout and to the embedded copy (/$bunfs/…) when compiled.
import embeddedOrtLibrary from "../../node_modules/onnxruntime-node/bin/napi-v6/linux/x64/libonnxruntime.so.1" with {
  type: "file",
};
import { disableOrtTelemetry, importOrt, linkBundleLibraries, type Ort } from "./ort-native.ts";

export type { Ort } from "./ort-native.ts";

let preparing: Promise<string | undefined> | undefined;

/** True when running inside a `bun build --compile` executable. */
export function isCompiledBinary(): boolean {
  return embeddedOrtLibrary.startsWith("/$bunfs/") || embeddedOrtLibrary.startsWith("B:/~BUN/");
}

/** The bundle's library directory: `lib/` beside the executable (CUDA provider libraries). */
export function bundleLibDir(): string {
  return join(dirname(process.execPath), "lib");
}

/** Directory the embedded native library is written to (private, per user and library build). */
export function privateLibraryDir(): string {
  const base = process.env.SAWT_RUNTIME_DIR ?? join(tmpdir(), `sawt-runtime-${process.getuid?.() ?? 0}`);
  const dir = join(base, `ort-${Bun.hash(embeddedOrtLibrary).toString(16)}`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

async function materializeEmbeddedLibrary(dir: string): Promise<string> {
  const target = join(dir, "libonnxruntime.so.1");
  const embedded = Bun.file(embeddedOrtLibrary);
  // Sizes only: reading the 45 MB library on every start cost ~80 ms and 45 MB of RSS when the
  // copy from an earlier start is already there (its directory is per library build).
  if (!existsSync(target) || Bun.file(target).size !== embedded.size) {
    const bytes = await embedded.bytes();
    // Write under a temporary name and rename so a concurrent start never sees a half file.
    const partial = `${target}.${process.pid}.partial`;
    writeFileSync(partial, bytes, { mode: 0o500 });
    chmodSync(partial, 0o500);
    await Bun.write(target, Bun.file(partial));
    chmodSync(target, 0o500);
    await Bun.file(partial).delete();
  }
  return target;
}

/**
 * The path of the libonnxruntime to preload: the materialised copy (with the bundle's provider
 * libraries linked beside it) when compiled, undefined in a checkout (the addon finds its own).
 */
export function ortLibraryPath(): Promise<string | undefined> {
  preparing ??= (async () => {
    // On the main thread, before the session workers this path is for start (./ort-native.ts).
    disableOrtTelemetry();
    if (!isCompiledBinary()) return undefined;
    const dir = privateLibraryDir();
    linkBundleLibraries(dir, bundleLibDir());
    return await materializeEmbeddedLibrary(dir);
  })();
  return preparing;
}

/** Loads (once) and returns onnxruntime-node, preloading the embedded native library when compiled. */
export async function loadOrt(): Promise<Ort> {
  return await importOrt(await ortLibraryPath());
}

/** Version of the onnxruntime library in use. */
export async function ortVersion(): Promise<string> {
  const ort = await loadOrt();
  return ort.env.versions.node ?? ort.env.versions.common ?? "unknown";
}
