/**
 * The Debian packages an air-gapped target may lack for espeak-ng (libespeak-ng1, espeak-ng-data
 * and what they depend on) and for the in-process mp3/opus/flac encoders (libmp3lame0, libopus0, libflac12), resolved with apt-cache and fetched with `apt-get download` so that
 * install.sh can `dpkg -i` the missing ones offline. Packages the target already has are skipped
 * there, so the closure may safely include common libraries (libc6, …).
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync } from "node:fs";
import { basename, join } from "node:path";

/** The packages espeak-ng needs on the target (D5: the built-in voice engine). */
export const ESPEAK_PACKAGES = ["libespeak-ng1", "espeak-ng-data"] as const;

/**
 * The codec libraries TTS output is encoded with in-process (mp3, Ogg Opus, FLAC; src/audio/encoders).
 * A Debian ffmpeg pulls them in too, but a target using a static FFMPEG_BIN may lack them.
 */
export const CODEC_PACKAGES = ["libmp3lame0", "libopus0", "libflac12"] as const;

/** Every Debian package the bundle carries for the target, with its dependency closure. */
export const BUNDLED_PACKAGES = [...ESPEAK_PACKAGES, ...CODEC_PACKAGES] as const;

/** One downloaded package. */
export interface DebFile {
  readonly package: string;
  readonly version: string;
  readonly file: string;
}

function run(argv: string[], cwd?: string): string {
  const proc = Bun.spawnSync(argv, { cwd, stdout: "pipe", stderr: "pipe", env: { ...process.env, LC_ALL: "C" } });
  if (proc.exitCode !== 0)
    throw new Error(`${argv.join(" ")} failed: ${proc.stderr.toString().trim().split("\n").slice(-3).join(" / ")}`);
  return proc.stdout.toString();
}

/**
 * Parses `apt-cache depends` output into each package's dependency groups' first choices.
 * Lines: `pkg` (a package starts), `  Depends: dep`, `  |Depends: dep` (an alternative follows),
 * `  PreDepends: <virtual>` followed by indented provider names.
 */
export function firstChoices(output: string): Map<string, string[]> {
  const lines = output.split("\n");
  const result = new Map<string, string[]>();
  let chosen: string[] = [];
  let inAlternativeGroup = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^\S/.test(line)) {
      chosen = [];
      result.set(line.trim(), chosen);
      inAlternativeGroup = false;
      continue;
    }
    const match = /^ {2}(\|)?(Pre)?Depends: (.+)$/.exec(line);
    if (!match) continue;
    if (!inAlternativeGroup) {
      let name = match[3]!.trim();
      if (name.startsWith("<")) {
        // A virtual package: take its first provider (the indented line after it), if any.
        const provider = /^ {4}(\S+)$/.exec(lines[i + 1] ?? "");
        name = provider ? provider[1]! : "";
      }
      if (name) chosen.push(name);
    }
    inAlternativeGroup = match[1] === "|";
  }
  return result;
}

/** The dependency closure of `roots` (first alternative of each group), roots included, sorted. */
export function debClosure(roots: readonly string[]): string[] {
  const seen = new Set<string>(roots);
  let frontier = [...roots];
  while (frontier.length > 0) {
    const output = run([
      "apt-cache",
      "depends",
      "--no-recommends",
      "--no-suggests",
      "--no-conflicts",
      "--no-breaks",
      "--no-replaces",
      "--no-enhances",
      ...frontier,
    ]);
    const next: string[] = [];
    for (const deps of firstChoices(output).values()) {
      for (const dep of deps) if (!seen.has(dep)) seen.add(dep), next.push(dep);
    }
    frontier = next;
  }
  return [...seen].sort();
}

/** A package's candidate version, the name `apt-get download` gives its file (epoch colon
 * URL-encoded) and the archive's own file name (no epoch), which the bundle uses. */
export interface Candidate {
  readonly name: string;
  readonly version: string;
  readonly downloaded: string;
  readonly file: string;
}

/** Candidates of `names`, from one `apt-cache show` run. */
export function candidates(names: readonly string[]): Candidate[] {
  const records = run(["apt-cache", "show", "--no-all-versions", ...names]).split(/\n\n+/);
  return names.map((name) => {
    const record = records.find((r) => new RegExp(`^Package: ${name.replace(/[.+]/g, "\\$&")}$`, "m").test(r)) ?? "";
    const version = /^Version: (.+)$/m.exec(record)?.[1];
    const architecture = /^Architecture: (.+)$/m.exec(record)?.[1];
    const filename = /^Filename: (.+)$/m.exec(record)?.[1];
    if (!version || !architecture || !filename) throw new Error(`apt-cache show ${name}: no candidate version`);
    return {
      name,
      version,
      downloaded: `${name}_${version.replace(":", "%3a")}_${architecture}.deb`,
      file: basename(filename),
    };
  });
}

/**
 * Downloads every package of the closure into `outDir`, reusing files already in `cacheDir` (a
 * rebuild does not fetch again). Needs apt-get and a reachable Debian mirror.
 */
export function downloadDebs(packages: readonly string[], outDir: string, cacheDir: string): DebFile[] {
  mkdirSync(outDir, { recursive: true });
  mkdirSync(cacheDir, { recursive: true });
  const files: DebFile[] = [];
  const wanted = candidates(packages);
  const missing = wanted.filter((w) => !existsSync(join(cacheDir, w.downloaded)));
  if (missing.length > 0) run(["apt-get", "download", "-q", ...missing.map((m) => `${m.name}=${m.version}`)], cacheDir);
  const present = new Set(readdirSync(cacheDir));
  for (const w of wanted) {
    if (!present.has(w.downloaded)) throw new Error(`apt-get download did not produce ${w.downloaded}`);
    copyFileSync(join(cacheDir, w.downloaded), join(outDir, w.file));
    files.push({ package: w.name, version: w.version, file: `debs/${w.file}` });
  }
  return files;
}
