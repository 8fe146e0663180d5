/**
 * The release bundle (installer/bundle.ts) and the systemd units it ships: contents, checksums,
 * manifest, config template, Debian dependency resolution, and systemd-analyze's verdict on the
 * units as install.sh lays them out.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../src/config/config.ts";
import { SETTINGS } from "../../src/config/settings.ts";
import { configTemplate, PRODUCTION_VALUES } from "../../installer/config-template.ts";
import { debClosure, firstChoices } from "../../installer/debs.ts";
import { ROOT, tempDir, testTool } from "../support/sawt.ts";
import { buildTestBundle, runInstaller } from "./bundle-support.ts";

const work = tempDir("sawt-bundle-");
let bundle = "";
let manifest: Record<string, any> = {};

beforeAll(() => {
  bundle = buildTestBundle(join(work.path, "out"), { tarball: true });
  manifest = JSON.parse(readFileSync(join(bundle, "manifest.json"), "utf8"));
}, 180_000);

afterAll(() => work.remove());

function sh(argv: string[], cwd = ROOT): { code: number; stdout: string; stderr: string } {
  const proc = Bun.spawnSync(argv, { cwd, stdout: "pipe", stderr: "pipe" });
  return { code: proc.exitCode ?? -1, stdout: proc.stdout.toString(), stderr: proc.stderr.toString() };
}

describe("bun run bundle", () => {
  test("does pack every file into one tarball whose SHA256SUMS covers each of them", () => {
    const name = `sawt-${manifest.version}-linux-x64`;
    const tarball = join(work.path, "out", `${name}.tar.gz`);
    const listing = sh(["tar", "-tzf", tarball])
      .stdout.split("\n")
      .filter((l) => l && !l.endsWith("/"));
    const summed = readFileSync(join(bundle, "SHA256SUMS"), "utf8")
      .trim()
      .split("\n")
      .map((l) => `${name}/${l.slice(66)}`);
    expect(listing.sort()).toEqual([...summed, `${name}/SHA256SUMS`].sort());
    for (const file of [
      "sawt",
      "install.sh",
      "sawt.toml.example",
      "manifest.json",
      "VERSION",
      "systemd/sawt.service",
      "systemd/sawt-healthcheck.service",
      "systemd/sawt-healthcheck.timer",
      "libexec/sawt-healthcheck",
      "libexec/sawt-cli",
    ]) {
      expect(listing).toContain(`${name}/${file}`);
    }
    expect(sh(["sha256sum", "--check", "--strict", "--quiet", "SHA256SUMS"], bundle).code).toBe(0);
    expect(sh(["sha256sum", "--check", "--strict", `${name}.tar.gz.sha256`], join(work.path, "out")).code).toBe(0);
    // The bundled binary is the real thing.
    expect(sh([join(bundle, "sawt"), "--version"], "/").stdout.trim()).toBe(`sawt ${manifest.version}`);
  });

  test("does say in manifest.json what it holds and what it leaves out, and why", () => {
    expect(manifest.version).toBe(JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version);
    expect(manifest.git_commit).toBe(sh(["git", "rev-parse", "HEAD"]).stdout.trim());
    expect(manifest.bun_version).toBe(Bun.version);
    expect(manifest.onnxruntime_version).toBe(
      JSON.parse(readFileSync(join(ROOT, "node_modules/onnxruntime-node/package.json"), "utf8")).version,
    );
    expect(Date.parse(manifest.built_at)).not.toBeNaN();
    const omitted = (what: RegExp) =>
      (manifest.omitted as Array<{ what: string; why: string; fix: string }>).find((o) => what.test(o.what));
    const ortDir = join(ROOT, "node_modules/onnxruntime-node/bin/napi-v6/linux/x64");
    if (!existsSync(join(ortDir, "libonnxruntime_providers_cuda.so"))) {
      expect(omitted(/CUDA provider/)?.why).toContain("absent");
      expect(readdirSync(join(bundle, "lib"))).toEqual([]);
    } else expect(readdirSync(join(bundle, "lib"))).toContain("libonnxruntime_providers_cuda.so");
    if (!existsSync(join(ROOT, "node_modules/ffmpeg-static/ffmpeg"))) {
      expect(omitted(/^ffmpeg$/)?.fix).toContain("apt-get install ffmpeg");
      expect(existsSync(join(bundle, "ffmpeg"))).toBe(false);
    }
    expect(omitted(/espeak-ng \.deb/)?.why).toContain("--skip-debs");
  });

  test("does ship a config template that documents every setting and loads as the production config", () => {
    const text = readFileSync(join(bundle, "sawt.toml.example"), "utf8");
    expect(text).toBe(configTemplate(manifest.version));
    for (const spec of SETTINGS) {
      const section = text.slice(text.indexOf(`[${spec.section}]`));
      expect(section, `${spec.section}.${spec.key}`).toMatch(new RegExp(`^(# )?${spec.key} = `, "m"));
      expect(text).toContain(spec.doc);
    }
    const models = tempDir("sawt-models-");
    const config = loadConfig({ file: join(bundle, "sawt.toml.example"), env: { SAWT_MODELS_DIR: models.path } });
    expect(config.paths.data_dir).toBe("/var/lib/sawt");
    expect(config.server.host).toBe("0.0.0.0");

    // Uncommenting every documented default must give a valid config with exactly those defaults.
    const file = join(models.path, "all.toml");
    writeFileSync(file, text.replace(/^# (\w+ = .*)$/gm, "$1"));
    const all = loadConfig({ file, env: { SAWT_MODELS_DIR: models.path } }) as unknown as Record<
      string,
      Record<string, unknown>
    >;
    for (const spec of SETTINGS) {
      const production = PRODUCTION_VALUES[`${spec.section}.${spec.key}`];
      if (spec.section === "paths" && spec.key === "models_dir") continue;
      expect(all[spec.section]![spec.key], `${spec.section}.${spec.key}`).toEqual(
        production ? production.value : spec.default,
      );
    }
    models.remove();
  });

  test("does pick the first alternative and providers of virtual packages from apt-cache depends", () => {
    const output =
      "libpulse0\n  Depends: libc6\n  |Depends: libsystemd0\n  Depends: libelogind0\n  PreDepends: <debconf-2.0>\n    debconf\n    cdebconf\n  Depends: <nothing-provides>\nlibc6\n  Depends: libgcc-s1\n";
    expect([...firstChoices(output).entries()]).toEqual([
      ["libpulse0", ["libc6", "libsystemd0", "debconf"]],
      ["libc6", ["libgcc-s1"]],
    ]);
  });

  // Reported as skipped where apt has no package lists (not Debian, or never `apt-get update`d).
  const aptKnowsEspeak = sh(["sh", "-c", "apt-cache show libespeak-ng1 >/dev/null 2>&1"]).code === 0;
  test.skipIf(!aptKnowsEspeak)(
    "does resolve espeak-ng's Debian dependencies, its libraries included",
    () => {
      const closure = debClosure(["libespeak-ng1", "espeak-ng-data"]);
      for (const name of ["libespeak-ng1", "espeak-ng-data", "libpcaudio0", "libsonic0"])
        expect(closure).toContain(name);
      expect(closure).not.toContain("libelogind0"); // an alternative to libsystemd0, which conflicts with it
    },
    60_000,
  );
});

describe("shell scripts", () => {
  const scripts = [
    "installer/install.sh",
    "installer/sawt-cli.sh",
    "systemd/sawt-healthcheck",
    "installer/try-in-nspawn.sh",
  ];

  test("does parse under a strict POSIX shell (dash)", () => {
    const dash = testTool("dash", "dash");
    for (const script of scripts) expect(sh([dash, "-n", script]), script).toMatchObject({ code: 0, stderr: "" });
  });

  test("does pass shellcheck as POSIX sh", () => {
    const shellcheck = testTool("shellcheck", "shellcheck");
    const result = sh([shellcheck, "--shell=sh", ...scripts]);
    expect(result.stdout).toBe("");
    expect(result.code).toBe(0);
  });
});

describe("systemd units", () => {
  let analyze: string;
  const stage = tempDir("sawt-units-");
  afterAll(() => stage.remove());

  beforeAll(async () => {
    analyze = testTool("systemd-analyze", "systemd");
    // The units as install.sh lays them out, with the binaries their ExecStart= lines name.
    const result = await runInstaller(bundle, ["--root", stage.path, "--no-key"]);
    if (result.code !== 0) throw new Error(`install.sh --root failed: ${result.stderr}`);
    // systemd-analyze --root resolves dependencies (sysinit.target, …) inside the root.
    for (const dir of ["/usr/lib/systemd/system", "/lib/systemd/system"]) {
      if (existsSync(dir)) {
        mkdirSync(join(stage.path, "usr/lib/systemd"), { recursive: true });
        cpSync(dir, join(stage.path, "usr/lib/systemd/system"), { recursive: true, dereference: false });
        break;
      }
    }
  }, 120_000);

  test("does pass systemd-analyze verify without a warning", () => {
    const result = sh(
      [analyze, "verify", `--root=${stage.path}`, "sawt.service", "sawt-healthcheck.service", "sawt-healthcheck.timer"],
      stage.path,
    );
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
  });

  test("does rate sawt.service at exposure 2.5 or better while granting the NVIDIA device nodes", () => {
    const result = sh(
      [analyze, "security", "--offline=true", `--root=${stage.path}`, "--no-pager", "sawt.service"],
      stage.path,
    );
    const score = Number(/Overall exposure level for sawt\.service: ([\d.]+)/.exec(result.stdout)?.[1]);
    console.info(`sawt.service exposure: ${score}`);
    expect(score).toBeLessThanOrEqual(2.5);
    const deviceLine = result.stdout.split("\n").find((l) => l.includes("DeviceAllow=")) ?? "";
    for (const node of ["/dev/nvidiactl:rw", "/dev/nvidia-uvm:rw", "/dev/nvidia0:rw", "/dev/nvidia7:rw"])
      expect(deviceLine).toContain(node);
    const unit = readFileSync(join(stage.path, "etc/systemd/system/sawt.service"), "utf8");
    expect(unit).toMatch(/^DevicePolicy=closed$/m);
    expect(unit).not.toMatch(/^PrivateDevices=/m);
    expect(unit).not.toMatch(/^MemoryDenyWriteExecute=/m);
    expect(unit).not.toMatch(/^DeviceAllow=.*\*/m);
  });

  test("does rate the health check service at exposure 2.5 or better", () => {
    const result = sh(
      [analyze, "security", "--offline=true", `--root=${stage.path}`, "--no-pager", "sawt-healthcheck.service"],
      stage.path,
    );
    const score = Number(/Overall exposure level for sawt-healthcheck\.service: ([\d.]+)/.exec(result.stdout)?.[1]);
    console.info(`sawt-healthcheck.service exposure: ${score}`);
    expect(score).toBeLessThanOrEqual(2.5);
  });

  test("does stop later than the drain deadline and ask for notify and a watchdog", () => {
    const unit = readFileSync(join(ROOT, "systemd/sawt.service"), "utf8");
    const drainMs = SETTINGS.find((s) => s.section === "server" && s.key === "drain_timeout_ms")!.default as number;
    expect(Number(/^TimeoutStopSec=(\d+)$/m.exec(unit)?.[1]) * 1000).toBeGreaterThan(drainMs);
    for (const line of [
      "Type=notify",
      "NotifyAccess=main",
      "WatchdogSec=30",
      "Restart=on-failure",
      "KillMode=mixed",
      "User=sawt",
      "UMask=0027",
      "Environment=SAWT_CONFIG=/etc/sawt/sawt.toml",
    ]) {
      expect(unit).toMatch(new RegExp(`^${line.replace(/[.]/g, "\\.")}$`, "m"));
    }
  });
});
