/**
 * The native half of loading onnxruntime, shared by the main thread ({@link ./ort.ts}) and the
 * session workers ({@link ./session-worker.ts}): make a materialised `libonnxruntime.so.1`
 * resident with `dlopen`, then import the addon. This file embeds nothing, so the worker entry of
 * the compiled binary does not carry a second copy of the library.
 */
import { CString, dlopen, FFIType } from "bun:ffi";
import { existsSync, lstatSync, readdirSync, readlinkSync, renameSync, symlinkSync, unlinkSync } from "node:fs";
import { join } from "node:path";

/** The onnxruntime-node module type. */
export type Ort = typeof import("onnxruntime-node");

const resident: Array<{ close(): void }> = [];
let importing: Promise<Ort> | undefined;

/**
 * ONNX Runtime 1.29 and later send telemetry from Linux too (1DS events to
 * mobile.events.data.microsoft.com: the door fuzz's socket watch caught the DNS lookups, issue 39),
 * which an air-gapped appliance must never do. `ORT_DISABLE_TELEMETRY=1` turns it off for good
 * when it is in the environment before the library initialises: no uploader, no events, no device
 * id, no offline cache. Bun's `process.env` does not reach the C environment the library reads
 * with getenv, so it is set with libc's setenv too (and in `process.env`, which children inherit).
 * The main thread does it before any session worker starts (./ort.ts); a worker finds it set and
 * only reads it, since setenv beside another thread's getenv is not safe.
 */
export function disableOrtTelemetry(): void {
  process.env.ORT_DISABLE_TELEMETRY = "1";
  const libc = dlopen("libc.so.6", {
    getenv: { args: [FFIType.cstring], returns: FFIType.ptr },
    setenv: { args: [FFIType.cstring, FFIType.cstring, FFIType.i32], returns: FFIType.i32 },
  });
  try {
    const name = Buffer.from("ORT_DISABLE_TELEMETRY\0");
    const current = libc.symbols.getenv(name);
    if (current === null || new CString(current).toString() !== "1") libc.symbols.setenv(name, Buffer.from("1\0"), 1);
  } finally {
    libc.close();
  }
}

/**
 * Makes `libraryPath` resident (when given) and imports onnxruntime-node, once per thread. The
 * addon links `libonnxruntime.so.1` by soname; a resident library of that soname satisfies it.
 * Telemetry is switched off first ({@link disableOrtTelemetry}).
 */
export function importOrt(libraryPath: string | undefined): Promise<Ort> {
  importing ??= (async () => {
    disableOrtTelemetry();
    // Any real exported symbol will do: the point is to make the soname resident.
    if (libraryPath !== undefined)
      resident.push(dlopen(libraryPath, { OrtGetApiBase: { args: [], returns: FFIType.ptr } }));
    return await import("onnxruntime-node");
  })();
  return importing;
}

/**
 * Makes every shared library of the bundle's `lib/` directory visible in `privateDir`, next to
 * the materialised `libonnxruntime.so.1`, as symlinks; returns the names linked.
 *
 * Why: onnxruntime loads its execution providers (`libonnxruntime_providers_shared.so`,
 * `libonnxruntime_providers_cuda.so`) from the directory of the loaded libonnxruntime — found
 * with dladdr — which in the compiled binary is the private directory, not the bundle. The CUDA
 * provider in turn finds the CUDA/cuDNN runtime libraries through `$ORIGIN`, so those shipped in
 * `lib/` are linked too. Links (not copies) keep multi-GB cuDNN files in one place; each link is
 * created under a temporary name and renamed over the old one, so concurrent starts (serve and
 * doctor) and a bundle moved to a new path never leave a dangling or half-made entry.
 */
export function linkBundleLibraries(privateDir: string, bundleLibDir: string): string[] {
  if (!existsSync(bundleLibDir)) return [];
  const linked: string[] = [];
  for (const name of readdirSync(bundleLibDir).sort()) {
    // The embedded libonnxruntime is the one in use; a copy in lib/ must not shadow it.
    if (!/\.so(\.\d+)*$/.test(name) || name.startsWith("libonnxruntime.so")) continue;
    const source = join(bundleLibDir, name);
    const target = join(privateDir, name);
    if (isLinkTo(target, source)) {
      linked.push(name);
      continue;
    }
    const temporary = `${target}.${process.pid}.${Math.random().toString(36).slice(2)}.link`;
    try {
      symlinkSync(source, temporary);
      renameSync(temporary, target);
      linked.push(name);
    } catch {
      if (existsSync(temporary)) unlinkSync(temporary);
    }
  }
  return linked;
}

function isLinkTo(path: string, source: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink() && readlinkSync(path) === source;
  } catch {
    return false;
  }
}
