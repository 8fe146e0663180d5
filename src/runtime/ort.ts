/**
 * Loads onnxruntime-node so that it works both in a checkout and inside the single
 * `bun build --compile` executable.
 *
 * The compiled binary embeds the `.node` addon but not `libonnxruntime.so.1`, which the addon links
 * dynamically. We embed that library as a file asset, copy it to a private directory at start-up
 * and `dlopen` it before the addon is imported: the dynamic linker then finds the soname already
 * resident and the addon's own lookup succeeds. Every other module imports onnxruntime types only
 * (`import type`) and gets the runtime through {@link loadOrt}.
 */
import { dlopen, FFIType } from "bun:ffi";
import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
// The path resolves to node_modules in a checkout and to the embedded copy (/$bunfs/…) when compiled.
import embeddedOrtLibrary from "../../node_modules/onnxruntime-node/bin/napi-v6/linux/x64/libonnxruntime.so.1" with { type: "file" };

/** The onnxruntime-node module type. */
export type Ort = typeof import("onnxruntime-node");

let loading: Promise<Ort> | undefined;
let residentLibrary: { close(): void } | undefined;

/** True when running inside a `bun build --compile` executable. */
export function isCompiledBinary(): boolean {
  return embeddedOrtLibrary.startsWith("/$bunfs/") || embeddedOrtLibrary.startsWith("B:/~BUN/");
}

/** Directory the embedded native library is written to (private, per user and version). */
function privateLibraryDir(): string {
  const base = process.env.SAWT_RUNTIME_DIR ?? join(tmpdir(), `sawt-runtime-${process.getuid?.() ?? 0}`);
  const dir = join(base, `ort-${Bun.hash(embeddedOrtLibrary).toString(16)}`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

async function materializeEmbeddedLibrary(): Promise<string> {
  const target = join(privateLibraryDir(), "libonnxruntime.so.1");
  const bytes = new Uint8Array(await Bun.file(embeddedOrtLibrary).arrayBuffer());
  if (!existsSync(target) || Bun.file(target).size !== bytes.byteLength) {
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

/** Loads (once) and returns onnxruntime-node, preloading the embedded native library when compiled. */
export function loadOrt(): Promise<Ort> {
  loading ??= (async () => {
    if (isCompiledBinary()) {
      const libraryPath = await materializeEmbeddedLibrary();
      // Any real exported symbol will do: the point is to make the soname resident.
      residentLibrary = dlopen(libraryPath, { OrtGetApiBase: { args: [], returns: FFIType.ptr } });
    }
    return await import("onnxruntime-node");
  })();
  return loading;
}

/** Version of the onnxruntime library in use. */
export async function ortVersion(): Promise<string> {
  const ort = await loadOrt();
  return ort.env.versions.node ?? ort.env.versions.common ?? "unknown";
}

/** Keeps the preloaded library handle reachable for the life of the process. */
export function ortResidentLibrary(): unknown {
  return residentLibrary;
}
