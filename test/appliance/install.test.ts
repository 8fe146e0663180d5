/**
 * installer/install.sh in a staging root (--root), through a whole life: fresh install, no-op
 * rerun, refused bundles, upgrade, rollback of a broken build, pruning, uninstall and purge. The
 * bundles are real (bun compile); the staged health checks start the staged binary for real. Both
 * databases — the keys' sawt.db and the transcription jobs' jobs.db — are backed up on upgrade and
 * restored on rollback.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, lstatSync, readFileSync, readlinkSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../src/config/config.ts";
import { installChecks } from "../../src/doctor/install-checks.ts";
import { tempDir } from "../support/sawt.ts";
import { buildTestBundle, bundleVariant, replaceFile, runInstaller, snapshot } from "./bundle-support.ts";

const work = tempDir("sawt-install-");
const root = join(work.path, "root");
let v1 = "";
let v1Bundle = "";
const bundles: Record<string, string> = {};

beforeAll(() => {
  v1Bundle = buildTestBundle(join(work.path, "out"));
  v1 = readFileSync(join(v1Bundle, "VERSION"), "utf8").trim();
  const variants = join(work.path, "variants");
  Bun.spawnSync(["mkdir", "-p", variants]);
  bundles.upgrade = bundleVariant(v1Bundle, join(variants, "good-9.0.1"), "9.0.1");
  bundles.broken = bundleVariant(v1Bundle, join(variants, "broken-9.0.2"), "9.0.2", {
    // A release that cannot start, after wrecking both databases the way a failed migration would.
    sawt: {
      content:
        '#!/bin/sh\n: > "$SAWT_DATA_DIR/sawt.db"\n: > "$SAWT_DATA_DIR/jobs.db"\necho "sawt (broken build): cannot start the engines" >&2\nexit 1\n',
      mode: 0o755,
    },
  });
  bundles.corrupted = bundleVariant(
    v1Bundle,
    join(variants, "corrupted-9.0.3"),
    "9.0.3",
    { "sawt.toml.example": { content: "# tampered\n" } },
    true,
  );
  bundles.extra = bundleVariant(v1Bundle, join(variants, "extra-9.0.4"), "9.0.4", {}, false);
  writeFileSync(join(bundles.extra, "unlisted.sh"), "#!/bin/sh\n");
  bundles.later = bundleVariant(v1Bundle, join(variants, "good-9.0.5"), "9.0.5");
}, 180_000);

afterAll(() => work.remove());

const path = (p: string) => join(root, p);
const mode = (p: string) => (lstatSync(path(p)).mode & 0o7777).toString(8).padStart(4, "0");
const current = () => readlinkSync(path("opt/sawt/current"));

// Read-write connections: closing the last one removes SQLite's -wal/-shm files, as the service does.
function keyIds(): string[] {
  const db = new Database(path("var/lib/sawt/sawt.db"));
  try {
    return (db.query("SELECT id FROM api_keys ORDER BY id").all() as Array<{ id: string }>).map((r) => r.id);
  } finally {
    db.close();
  }
}

/** Job ids in the jobs database at `p` (the installed one by default). */
function jobIds(p = "var/lib/sawt/jobs.db"): string[] {
  const db = new Database(path(p));
  try {
    return (db.query("SELECT id FROM jobs ORDER BY id").all() as Array<{ id: string }>).map((r) => r.id);
  } finally {
    db.close();
  }
}

function clonedVoices(): Array<{ id: string; name: string }> {
  const db = new Database(path("var/lib/sawt/sawt.db"));
  try {
    return db.query("SELECT id, name FROM cloned_voices").all() as Array<{ id: string; name: string }>;
  } finally {
    db.close();
  }
}

describe("install.sh --root", () => {
  let adminKey = "";

  test("does lay out a fresh install with the documented modes and print one admin key", async () => {
    const result = await runInstaller(v1Bundle, ["--root", root]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("every file matches SHA256SUMS");
    expect(result.stdout).toContain("healthy");
    adminKey = /admin API key: (\S+)/.exec(result.stdout)?.[1] ?? "";
    expect(adminKey).toMatch(/^sawt_/);
    expect(result.stdout.split(adminKey).length).toBe(2);

    expect(current()).toBe(v1);
    expect(readlinkSync(path("usr/local/bin/sawt"))).toBe("/opt/sawt/current/libexec/sawt-cli");
    expect(mode(`opt/sawt/${v1}/sawt`)).toBe("0755");
    expect(mode(`opt/sawt/${v1}/libexec/sawt-healthcheck`)).toBe("0755");
    expect(mode(`opt/sawt/${v1}/manifest.json`)).toBe("0644");
    expect(mode("etc/sawt")).toBe("0750");
    expect(mode("etc/sawt/sawt.toml")).toBe("0640");
    expect(mode("var/lib/sawt")).toBe("0750");
    expect(mode("var/lib/sawt/models")).toBe("0750");
    expect(mode("var/lib/sawt/sawt.db")).toBe("0640");
    // The staged health check started the service, which opened its jobs store.
    expect(mode("var/lib/sawt/jobs.db")).toBe("0640");
    for (const unit of ["sawt.service", "sawt-healthcheck.service", "sawt-healthcheck.timer"])
      expect(mode(`etc/systemd/system/${unit}`)).toBe("0644");
    expect(readlinkSync(path("etc/systemd/system/multi-user.target.wants/sawt.service"))).toBe(
      "/etc/systemd/system/sawt.service",
    );
    expect(readlinkSync(path("etc/systemd/system/timers.target.wants/sawt-healthcheck.timer"))).toBe(
      "/etc/systemd/system/sawt-healthcheck.timer",
    );
    // Payload without the bundle-only parts, and a SHA256SUMS that verifies it.
    expect(existsSync(path(`opt/sawt/${v1}/debs`))).toBe(false);
    expect(
      Bun.spawnSync(["sha256sum", "--check", "--strict", "--quiet", "SHA256SUMS"], { cwd: path(`opt/sawt/${v1}`) })
        .exitCode,
    ).toBe(0);

    // The config is the template, with the production paths.
    expect(readFileSync(path("etc/sawt/sawt.toml"), "utf8")).toBe(
      readFileSync(join(v1Bundle, "sawt.toml.example"), "utf8"),
    );
    const config = loadConfig({
      file: path("etc/sawt/sawt.toml"),
      env: { SAWT_MODELS_DIR: path("var/lib/sawt/models") },
    });
    expect(config.paths.data_dir).toBe("/var/lib/sawt");
    expect(config.server.host).toBe("0.0.0.0");

    expect(keyIds()).toHaveLength(1);
    const db = new Database(path("var/lib/sawt/sawt.db"));
    expect(db.query("SELECT name, admin FROM api_keys").get()).toEqual({ name: "admin", admin: 1 });
    db.close();
  }, 120_000);

  test("does report modes as right and owners as not applied when doctor looks at the staging root", async () => {
    const config = loadConfig({ env: {} });
    const results = Object.fromEntries(
      await Promise.all(
        installChecks(root).map(async (check) => {
          const r = await check(config);
          return [r.name, r];
        }),
      ),
    );
    expect(results.install!.status).toBe("ok");
    expect(results.units!.status).toBe("ok");
    // --root never creates the user or chowns: doctor says so, each with its fix.
    expect(results.user!.status).toBe("fail");
    expect(results["config-file"]!.detail).not.toContain("mode");
    expect(results["config-file"]!.fix).toContain("chown root:sawt");
    expect(results["state-dir"]!.detail).not.toContain("mode");
  });

  test("does change nothing when the same bundle is installed again", async () => {
    const before = snapshot(root);
    const result = await runInstaller(v1Bundle, ["--root", root]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("nothing else to do");
    expect(result.stdout).not.toContain("admin API key");
    expect(snapshot(root)).toEqual(before);
  }, 60_000);

  test("does refuse a bundle whose files do not match SHA256SUMS and change nothing", async () => {
    const before = snapshot(root);
    const result = await runInstaller(bundles.corrupted!, ["--root", root]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("sawt.toml.example: FAILED");
    expect(result.stderr).toContain("checksum mismatch");
    expect(result.stderr).toContain("Nothing was changed");
    expect(snapshot(root)).toEqual(before);
  }, 60_000);

  test("does refuse a bundle holding files SHA256SUMS does not list and change nothing", async () => {
    const before = snapshot(root);
    const result = await runInstaller(bundles.extra!, ["--root", root]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("unlisted.sh");
    expect(snapshot(root)).toEqual(before);
  }, 60_000);

  test("does refuse runtime.provider = cuda on a machine that cannot run it and change nothing", async () => {
    const original = readFileSync(path("etc/sawt/sawt.toml"), "utf8");
    expect(original).toContain('# provider = "auto"');
    replaceFile(path("etc/sawt/sawt.toml"), original.replace('# provider = "auto"', 'provider = "cuda"'), 0o640);
    const before = snapshot(root);
    const result = await runInstaller(bundles.upgrade!, ["--root", root]);
    expect(result.code).toBe(1);
    // No driver here, or (on a GPU machine) a bundle built without the CUDA provider libraries.
    expect(result.stderr).toMatch(/no NVIDIA driver is present|carries no CUDA provider libraries/);
    expect(result.stderr).toContain("nothing was changed");
    expect(snapshot(root)).toEqual(before);
    replaceFile(path("etc/sawt/sawt.toml"), original, 0o640);
  }, 60_000);

  test("does upgrade keeping the config, the keys, cloned voices and jobs, with a backup of both databases", async () => {
    // The operator edited the config; a user cloned a voice.
    const edited = readFileSync(path("etc/sawt/sawt.toml"), "utf8").replace(
      "[tts]\n",
      "[tts]\nconcurrency = 3 # edited by the operator\n",
    );
    replaceFile(path("etc/sawt/sawt.toml"), edited, 0o640);
    const keys = keyIds();
    const db = new Database(path("var/lib/sawt/sawt.db"));
    db.query(
      "INSERT INTO cloned_voices (id, key_id, name, status, created_at, updated_at) VALUES ('cv_1', ?, 'Noura (cloned)', 'ready', 1, 1)",
    ).run(keys[0]!);
    db.close();
    // A finished job, inside its retention (the sweeper at the next start keeps it).
    const jobs = new Database(path("var/lib/sawt/jobs.db"));
    jobs
      .query(
        "INSERT INTO jobs (id, key_id, status, options, created_at, completed_at) VALUES ('job_box1_kept', ?, 'completed', '{}', ?, ?)",
      )
      .run(keys[0]!, Date.now(), Date.now());
    jobs.close();

    const result = await runInstaller(bundles.upgrade!, ["--root", root]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`upgrading sawt ${v1} to 9.0.1`);
    expect(result.stdout).not.toContain("admin API key");
    expect(current()).toBe("9.0.1");
    expect(existsSync(path(`opt/sawt/${v1}/sawt`))).toBe(true);
    expect(readFileSync(path("etc/sawt/sawt.toml"), "utf8")).toBe(edited);
    expect(keyIds()).toEqual(keys);
    expect(clonedVoices()).toEqual([{ id: "cv_1", name: "Noura (cloned)" }]);
    expect(jobIds()).toEqual(["job_box1_kept"]);
    expect(existsSync(path("var/lib/sawt/backup/pre-9.0.1/sawt.db"))).toBe(true);
    expect(jobIds("var/lib/sawt/backup/pre-9.0.1/jobs.db")).toEqual(["job_box1_kept"]);
  }, 120_000);

  test("does roll back to the previous version and exit 3 when the new build fails its health check", async () => {
    const config = readFileSync(path("etc/sawt/sawt.toml"), "utf8");
    const keys = keyIds();
    const result = await runInstaller(bundles.broken!, ["--root", root]);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain("sawt 9.0.2 is not healthy");
    expect(result.stderr).toContain("cannot start the engines");
    expect(result.stderr).toContain("rolled back");
    expect(result.stderr).toContain("sawt 9.0.1 is running and healthy");
    expect(current()).toBe("9.0.1");
    expect(readFileSync(path("etc/systemd/system/sawt.service"), "utf8")).toBe(
      readFileSync(path("opt/sawt/9.0.1/systemd/sawt.service"), "utf8"),
    );
    expect(readFileSync(path("etc/sawt/sawt.toml"), "utf8")).toBe(config);
    // The databases the broken build emptied were restored from the pre-upgrade backup.
    expect(result.stdout).toContain("databases restored");
    expect(keyIds()).toEqual(keys);
    expect(clonedVoices()).toHaveLength(1);
    expect(jobIds()).toEqual(["job_box1_kept"]);
  }, 120_000);

  test("does keep only the current and the previous version after another upgrade", async () => {
    const result = await runInstaller(bundles.later!, ["--root", root]);
    expect(result.code).toBe(0);
    expect(current()).toBe("9.0.5");
    expect(existsSync(path("opt/sawt/9.0.1"))).toBe(true);
    expect(existsSync(path(`opt/sawt/${v1}`))).toBe(false);
    expect(existsSync(path("opt/sawt/9.0.2"))).toBe(false);
  }, 120_000);

  test("does keep config and data on --uninstall", async () => {
    const result = await runInstaller(bundles.later!, ["--root", root, "--uninstall"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("kept /etc/sawt");
    for (const gone of [
      "opt/sawt",
      "usr/local/bin/sawt",
      "etc/systemd/system/sawt.service",
      "etc/systemd/system/sawt-healthcheck.timer",
      "etc/systemd/system/multi-user.target.wants/sawt.service",
    ]) {
      expect(existsSync(path(gone))).toBe(false);
    }
    expect(statSync(path("etc/sawt/sawt.toml")).isFile()).toBe(true);
    expect(clonedVoices()).toHaveLength(1);
  }, 60_000);

  test("does remove config and data with --uninstall --purge", async () => {
    const result = await runInstaller(bundles.later!, ["--root", root, "--uninstall", "--purge"]);
    expect(result.code).toBe(0);
    expect(existsSync(path("etc/sawt"))).toBe(false);
    expect(existsSync(path("var/lib/sawt"))).toBe(false);
  }, 60_000);

  test("does refuse unknown options with usage and exit 2", async () => {
    const result = await runInstaller(v1Bundle, ["--frobnicate"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("unknown option --frobnicate");
    expect(result.stderr).toContain("--uninstall");
  });
});

describe("install.sh on a box without libespeak-ng", () => {
  test("does stop as soon as the new version's TTS engine reports failed, naming libespeak-ng", async () => {
    const bare = join(work.path, "bare-root");
    const started = performance.now();
    // SAWT_ESPEAK_LIB pointing nowhere is what a box without the library looks like to the engine;
    // the health timeout stays long, so only the engine's failed state can end the wait early.
    const result = await runInstaller(v1Bundle, ["--root", bare], {
      SAWT_ESPEAK_LIB: join(work.path, "missing", "libespeak-ng.so.1"),
      SAWT_INSTALL_HEALTH_TIMEOUT: "180",
    });
    const seconds = (performance.now() - started) / 1000;
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("the tts engine failed");
    expect(result.stderr).toContain("libespeak-ng");
    expect(seconds).toBeLessThan(10);
  }, 60_000);
});
