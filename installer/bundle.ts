/**
 * `bun run bundle`: the offline release, dist/sawt-<version>-linux-x64.tar.gz (+ .sha256), holding
 * everything an air-gapped Debian server needs: the compiled `sawt`, CUDA provider libraries when
 * available, ffmpeg when available, the .deb files for espeak-ng, model packs, a commented config
 * template, the systemd units, the installer, SHA256SUMS of every file and manifest.json saying what
 * is included, what is omitted and why.
 *
 * Options: --out DIR (default dist), --models DIR (default: the configured models dir; each pack
 * folder or published archive in it is validated as `sawt models install` does, bundlePacks),
 * --skip-debs (tests; the manifest then says so), --no-tarball (leave only the staged directory).
 */
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, relative, resolve } from "node:path";
import pkg from "../package.json" with { type: "json" };
import { loadConfig } from "../src/config/config.ts";
import "../src/app/families.ts"; // the built-in model families install recognises packs with
import { PackError } from "../src/models/errors.ts";
import { installPack } from "../src/models/install.ts";
import { CUDA_PROVIDER_LIBRARIES } from "../src/onnx/devices.ts";
import { configTemplate } from "./config-template.ts";
import { BUNDLED_PACKAGES, debClosure, downloadDebs, type DebFile } from "./debs.ts";

const ROOT = join(import.meta.dir, "..");
const PLATFORM = "linux-x64";
const ORT_LIB_DIR = join(ROOT, "node_modules", "onnxruntime-node", "bin", "napi-v6", "linux", "x64");
/** Debian packages that provide ffmpeg on the target when the bundle carries none. */
const FFMPEG_DEBIAN_PACKAGES = ["ffmpeg"];

interface Options {
  out: string;
  models: string | undefined;
  skipDebs: boolean;
  tarball: boolean;
}

interface Omission {
  readonly what: string;
  readonly why: string;
  readonly fix: string;
}

function parseOptions(argv: readonly string[]): Options {
  const options: Options = { out: join(ROOT, "dist"), models: undefined, skipDebs: false, tarball: true };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--out") options.out = resolve(argv[++i] ?? "");
    else if (arg === "--models") options.models = resolve(argv[++i] ?? "");
    else if (arg === "--skip-debs") options.skipDebs = true;
    else if (arg === "--no-tarball") options.tarball = false;
    else throw new Error(`unknown option ${arg} (see the header of installer/bundle.ts)`);
  }
  return options;
}

/**
 * Puts every pack of `from` into the bundle's `to` through the installer the appliance runs
 * (src/models/install.ts): a pack folder, or an archive as published (`.tar.bz2`, `.tar.gz`,
 * `.zip`), is recognised, validated with a warm-up run and given SHA256SUMS, so an air-gapped
 * install comes up with voices that are known to load. A refused pack fails the build.
 */
async function bundlePacks(from: string, to: string): Promise<string[]> {
  if (!existsSync(from)) return [];
  const names: string[] = [];
  for (const entry of readdirSync(from, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (entry.name.startsWith(".")) continue;
    const archive = entry.isFile() && /\.(tar\.bz2|tar\.gz|tgz|zip)$/i.test(entry.name);
    if (!entry.isDirectory() && !archive) continue;
    try {
      names.push((await installPack(join(from, entry.name), { modelsDir: to })).name);
    } catch (error) {
      if (!(error instanceof PackError)) throw error;
      throw new Error(`model pack ${entry.name} refused: ${error.reason}`);
    }
  }
  return names;
}

function sh(argv: string[], cwd = ROOT): string {
  const proc = Bun.spawnSync(argv, { cwd, stdout: "pipe", stderr: "pipe" });
  if (proc.exitCode !== 0) throw new Error(`${argv.join(" ")}: ${proc.stderr.toString().trim()}`);
  return proc.stdout.toString().trim();
}

function gitCommit(): { commit: string | null; dirty: boolean | null } {
  try {
    return {
      commit: sh(["git", "rev-parse", "HEAD"]),
      dirty: sh(["git", "status", "--porcelain", "--untracked-files=no"]) !== "",
    };
  } catch {
    return { commit: null, dirty: null };
  }
}

function listFiles(dir: string, base = dir): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listFiles(path, base));
    else if (entry.isFile()) out.push(relative(base, path));
  }
  return out.sort();
}

async function sha256(path: string): Promise<string> {
  const hasher = new Bun.CryptoHasher("sha256");
  for await (const chunk of Bun.file(path).stream()) hasher.update(chunk);
  return hasher.digest("hex");
}

function ffmpegStaticPath(): string | undefined {
  try {
    const path = createRequire(join(ROOT, "package.json"))("ffmpeg-static") as string | null;
    return path && existsSync(path) ? path : undefined;
  } catch {
    return undefined;
  }
}

function ortVersion(): string {
  return (createRequire(join(ROOT, "package.json"))("onnxruntime-node/package.json") as { version: string }).version;
}

/** Builds the bundle; resolves to the staged directory and the tarball (when made). */
export async function buildBundle(options: Options): Promise<{ dir: string; tarball: string | undefined }> {
  const version = pkg.version;
  const name = `sawt-${version}-${PLATFORM}`;
  const stageRoot = join(options.out, "bundle");
  const dir = join(stageRoot, name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const included: Array<{ path: string; what: string }> = [];
  const omitted: Omission[] = [];

  const build = Bun.spawnSync([process.execPath, join(ROOT, "installer", "build.ts"), "--outfile", join(dir, "sawt")], {
    cwd: ROOT,
    stdout: "pipe",
    stderr: "pipe",
  });
  if (build.exitCode !== 0) throw new Error(`bun build --compile failed: ${build.stderr.toString()}`);
  included.push({
    path: "sawt",
    what: `the compiled service and CLI (bun ${Bun.version}, onnxruntime ${ortVersion()} embedded)`,
  });
  // The built-in diacritiser is embedded in the binary; its licence and provenance travel beside it.
  mkdirSync(join(dir, "licenses", "libtashkeel"), { recursive: true });
  for (const file of ["LICENSE", "PROVENANCE.md"])
    copyFileSync(join(ROOT, "src", "tts", "tashkeel", "builtin", file), join(dir, "licenses", "libtashkeel", file));
  included.push({
    path: "licenses/libtashkeel/",
    what: "licence (MIT) and provenance of the libtashkeel diacritiser embedded in sawt (the default; a tashkeel/ pack overrides it)",
  });

  mkdirSync(join(dir, "lib"));
  const cudaLibs = readdirSync(ORT_LIB_DIR).filter((f) => /^libonnxruntime_providers_.*\.so/.test(f));
  if (CUDA_PROVIDER_LIBRARIES.every((lib) => cudaLibs.includes(lib))) {
    for (const lib of cudaLibs) copyFileSync(join(ORT_LIB_DIR, lib), join(dir, "lib", lib));
    included.push({ path: "lib/", what: `onnxruntime CUDA execution provider: ${cudaLibs.join(", ")}` });
  } else {
    omitted.push({
      what: `onnxruntime CUDA provider libraries (${CUDA_PROVIDER_LIBRARIES.join(", ")})`,
      why: `absent from ${relative(ROOT, ORT_LIB_DIR)} on the build machine (onnxruntime-node's CUDA download never runs offline)`,
      fix: "rebuild the bundle where node_modules holds them, or copy them into /opt/sawt/<version>/lib on the target; without them Sawt runs on the CPU",
    });
  }

  const ffmpeg = ffmpegStaticPath();
  const envLines = ["# Environment for sawt.service and the sawt CLI wrapper; written by installer/bundle.ts."];
  if (ffmpeg) {
    copyFileSync(ffmpeg, join(dir, "ffmpeg"));
    chmodSync(join(dir, "ffmpeg"), 0o755);
    envLines.push("FFMPEG_BIN=/opt/sawt/current/ffmpeg");
    included.push({ path: "ffmpeg", what: "static ffmpeg from ffmpeg-static" });
  } else {
    omitted.push({
      what: "ffmpeg",
      why: "ffmpeg-static's binary is not on the build machine (its download step cannot run offline)",
      fix: `the target must provide ffmpeg: Debian package(s) ${FFMPEG_DEBIAN_PACKAGES.join(", ")} (apt-get install ${FFMPEG_DEBIAN_PACKAGES.join(" ")}) or a static build with FFMPEG_BIN set in /etc/sawt/sawt.env`,
    });
  }
  writeFileSync(join(dir, "sawt.env"), envLines.join("\n") + "\n");
  included.push({ path: "sawt.env", what: "environment read by the unit and the CLI wrapper" });

  let debs: DebFile[] = [];
  if (options.skipDebs) {
    omitted.push({
      what: "espeak-ng .deb files and those of the codec libraries",
      why: "bundle built with --skip-debs",
      fix: `the target must have ${BUNDLED_PACKAGES.join(", ")} installed`,
    });
  } else {
    const closure = debClosure(BUNDLED_PACKAGES);
    debs = downloadDebs(closure, join(dir, "debs"), join(options.out, "deb-cache"));
    included.push({
      path: "debs/",
      what: `Debian 12 packages for espeak-ng, libmp3lame, libopus, libFLAC and their dependencies (install.sh installs only the missing ones): ${closure.join(", ")}`,
    });
  }

  const modelsDir = options.models ?? loadConfig().paths.models_dir;
  mkdirSync(join(dir, "models"));
  const packs = await bundlePacks(modelsDir, join(dir, "models"));
  if (packs.length > 0)
    included.push({
      path: "models/",
      what: `model packs, validated as \`sawt models install\` does, copied to /var/lib/sawt/models when absent there: ${packs.join(", ")}`,
    });
  else
    omitted.push({
      what: "model packs",
      why: `the build's models directory (${relative(ROOT, modelsDir) || "."}) holds none`,
      fix: "TTS speaks with the built-in espeak-ng engine; add packs later with `sawt models install` (docs/models.md)",
    });

  writeFileSync(join(dir, "sawt.toml.example"), configTemplate(version));
  mkdirSync(join(dir, "systemd"));
  for (const unit of ["sawt.service", "sawt-healthcheck.service", "sawt-healthcheck.timer"])
    copyFileSync(join(ROOT, "systemd", unit), join(dir, "systemd", unit));
  mkdirSync(join(dir, "libexec"));
  copyFileSync(join(ROOT, "systemd", "sawt-healthcheck"), join(dir, "libexec", "sawt-healthcheck"));
  copyFileSync(join(ROOT, "installer", "sawt-cli.sh"), join(dir, "libexec", "sawt-cli"));
  copyFileSync(join(ROOT, "installer", "install.sh"), join(dir, "install.sh"));
  for (const script of ["libexec/sawt-healthcheck", "libexec/sawt-cli", "install.sh"])
    chmodSync(join(dir, script), 0o755);
  copyFileSync(join(ROOT, "README.md"), join(dir, "README.md"));
  // Scale-out kit for the balancer host and the operator (docs/scale-out.md): no network needed either.
  mkdirSync(join(dir, "cluster"));
  for (const [from, to] of [
    ["deploy/haproxy/haproxy.cfg.in", "haproxy.cfg.in"],
    ["deploy/haproxy/render.sh", "render.sh"],
    ["installer/rolling-upgrade.sh", "rolling-upgrade.sh"],
    ["installer/rolling-upgrade.md", "rolling-upgrade.md"],
    ["docs/scale-out.md", "scale-out.md"],
  ] as const)
    copyFileSync(join(ROOT, from), join(dir, "cluster", to));
  for (const script of ["cluster/render.sh", "cluster/rolling-upgrade.sh"]) chmodSync(join(dir, script), 0o755);
  writeFileSync(join(dir, "VERSION"), `${version}\n`);
  included.push(
    {
      path: "sawt.toml.example",
      what: "every setting with its meaning and default; installed as /etc/sawt/sawt.toml on a fresh install",
    },
    { path: "systemd/", what: "sawt.service (Type=notify, watchdog, hardened), sawt-healthcheck.service and .timer" },
    { path: "libexec/", what: "sawt-healthcheck (run by the timer), sawt-cli (/usr/local/bin/sawt)" },
    { path: "install.sh", what: "installer: install, upgrade with rollback, --uninstall [--purge], --root DIR" },
    {
      path: "cluster/",
      what: "several boxes behind HAProxy: config template and render.sh, rolling-upgrade.sh, scale-out.md",
    },
  );

  const commit = gitCommit();
  const manifest = {
    name: "sawt",
    version,
    platform: PLATFORM,
    built_at: new Date().toISOString(),
    git_commit: commit.commit,
    git_dirty: commit.dirty,
    bun_version: Bun.version,
    onnxruntime_version: ortVersion(),
    target:
      "Debian 12 (bookworm) x86_64 with systemd; other glibc 2.36+ systemd distributions work when espeak-ng and ffmpeg come from their own packages",
    included,
    omitted,
    debs,
    model_packs: packs,
  };
  writeFileSync(join(dir, "manifest.json"), JSON.stringify(manifest, null, 2) + "\n");

  const sums: string[] = [];
  for (const file of listFiles(dir)) sums.push(`${await sha256(join(dir, file))}  ${file}`);
  writeFileSync(join(dir, "SHA256SUMS"), sums.join("\n") + "\n");

  let tarball: string | undefined;
  if (options.tarball) {
    tarball = join(options.out, `${name}.tar.gz`);
    sh(["tar", "--sort=name", "--owner=0", "--group=0", "--numeric-owner", "-C", stageRoot, "-czf", tarball, name]);
    writeFileSync(`${tarball}.sha256`, `${await sha256(tarball)}  ${name}.tar.gz\n`);
  }
  return { dir, tarball };
}

if (import.meta.main) {
  try {
    const options = parseOptions(process.argv.slice(2));
    const { dir, tarball } = await buildBundle(options);
    const size = (path: string) => `${Math.round(statSync(path).size / 1024 / 1024)} MB`;
    console.error(`sawt bundle: staged ${dir}`);
    if (tarball) console.error(`sawt bundle: wrote ${tarball} (${size(tarball)}) and ${tarball}.sha256`);
  } catch (error) {
    console.error(`sawt bundle: ${(error as Error).message}`);
    process.exit(1);
  }
}
