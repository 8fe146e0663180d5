/**
 * `sawt doctor` checks of an appliance install (installer/install.sh): the sawt user, the modes and
 * owners of /etc/sawt/sawt.toml and /var/lib/sawt, the systemd units, and the NVIDIA driver nodes
 * the unit's DeviceAllow= list grants. Every path is taken under `root` so the same checks run
 * against a staging root (`install.sh --root DIR`) in tests.
 */
import { existsSync, lstatSync, readdirSync, readFileSync, readlinkSync, statSync, type Stats } from "node:fs";
import { join } from "node:path";
import type { SawtConfig } from "../config/config.ts";
import type { CheckResult, DoctorCheck } from "./check.ts";

const USER = "sawt";
/** GPUs the shipped unit grants (DeviceAllow=/dev/nvidia0 … /dev/nvidia7). */
const GRANTED_GPUS = 8;

/** Where an appliance install lives, under `root` ("" for this machine). */
export function installPaths(root = "") {
  return {
    root,
    current: join(root, "/opt/sawt/current"),
    cli: join(root, "/usr/local/bin/sawt"),
    config: join(root, "/etc/sawt/sawt.toml"),
    state: join(root, "/var/lib/sawt"),
    units: join(root, "/etc/systemd/system"),
    passwd: join(root, "/etc/passwd"),
    group: join(root, "/etc/group"),
  };
}

/** True when this machine has an appliance install (or this binary runs from one). */
export function isApplianceInstall(root = ""): boolean {
  return existsSync(installPaths(root).current) || process.execPath.startsWith("/opt/sawt/");
}

/** uid/gid of a name in a passwd- or group-format file, if listed. */
function lookupId(file: string, name: string): number | undefined {
  try {
    const line = readFileSync(file, "utf8")
      .split("\n")
      .find((l) => l.split(":")[0] === name);
    return line === undefined ? undefined : Number(line.split(":")[2]);
  } catch {
    return undefined;
  }
}

function octal(mode: number): string {
  return (mode & 0o7777).toString(8).padStart(4, "0");
}

/** Describes how `stats` differs from the wanted mode and owners; empty when it matches. */
function ownershipProblems(
  stats: Stats,
  want: { mode: number; uid?: number; gid?: number; uidName: string; gidName: string },
): string[] {
  const problems: string[] = [];
  if ((stats.mode & 0o7777) !== want.mode) problems.push(`mode ${octal(stats.mode)}, expected ${octal(want.mode)}`);
  if (want.uid === undefined || stats.uid !== want.uid)
    problems.push(`owner uid ${stats.uid}, expected ${want.uidName}`);
  if (want.gid === undefined || stats.gid !== want.gid)
    problems.push(`group gid ${stats.gid}, expected ${want.gidName}`);
  return problems;
}

function installCheck(root: string): DoctorCheck {
  return async () => {
    const p = installPaths(root);
    let version: string;
    try {
      version = readlinkSync(p.current);
    } catch {
      return {
        name: "install",
        status: "fail",
        detail: `${p.current} is missing`,
        fix: "run install.sh from the bundle again",
      };
    }
    const binary = join(p.current, "sawt");
    const problems: string[] = [];
    if (!existsSync(binary) || (statSync(binary).mode & 0o111) === 0)
      problems.push(`${binary} is missing or not executable`);
    let cli: string | undefined;
    try {
      cli = readlinkSync(p.cli);
    } catch {
      problems.push(`${p.cli} is missing`);
    }
    return problems.length === 0
      ? {
          name: "install",
          status: "ok",
          detail: `sawt ${version} in ${p.current}; ${p.cli} → ${cli}`,
          data: { version },
        }
      : {
          name: "install",
          status: "fail",
          detail: problems.join("; "),
          fix: "run install.sh from the bundle again (it repairs a damaged install)",
          data: { version },
        };
  };
}

function userCheck(root: string): DoctorCheck {
  return async () => {
    const p = installPaths(root);
    const uid = lookupId(p.passwd, USER);
    const gid = lookupId(p.group, USER);
    if (uid !== undefined && gid !== undefined)
      return { name: "user", status: "ok", detail: `system user ${USER} (uid ${uid}, gid ${gid})`, data: { uid, gid } };
    return {
      name: "user",
      status: "fail",
      detail: `${uid === undefined ? `no user ${USER} in ${p.passwd}` : ""}${uid === undefined && gid === undefined ? "; " : ""}${gid === undefined ? `no group ${USER} in ${p.group}` : ""}`,
      fix: `useradd --system --user-group --home-dir /var/lib/sawt --no-create-home --shell /usr/sbin/nologin ${USER} (install.sh does this)`,
    };
  };
}

function configFileCheck(root: string): DoctorCheck {
  return async () => {
    const p = installPaths(root);
    let stats: Stats;
    try {
      stats = statSync(p.config);
    } catch {
      return {
        name: "config-file",
        status: "fail",
        detail: `${p.config} is missing`,
        fix: `cp /opt/sawt/current/sawt.toml.example ${p.config}; chown root:${USER} ${p.config}; chmod 0640 ${p.config}`,
      };
    }
    const problems = ownershipProblems(stats, {
      mode: 0o640,
      uid: 0,
      gid: lookupId(p.group, USER),
      uidName: "root",
      gidName: USER,
    });
    if (problems.length === 0) return { name: "config-file", status: "ok", detail: `${p.config} is 0640 root:${USER}` };
    return {
      name: "config-file",
      status: (stats.mode & 0o007) !== 0 ? "fail" : "warn",
      detail: `${p.config}: ${problems.join(", ")}`,
      fix: `chown root:${USER} ${p.config} && chmod 0640 ${p.config} (readable by the service, not by other users)`,
    };
  };
}

function stateDirCheck(root: string): DoctorCheck {
  return async () => {
    const p = installPaths(root);
    let stats: Stats;
    try {
      stats = statSync(p.state);
    } catch {
      return {
        name: "state-dir",
        status: "fail",
        detail: `${p.state} is missing`,
        fix: `install -d -m 0750 -o ${USER} -g ${USER} ${p.state}`,
      };
    }
    const uid = lookupId(p.passwd, USER);
    const gid = lookupId(p.group, USER);
    const problems = ownershipProblems(stats, { mode: 0o750, uid, gid, uidName: USER, gidName: USER });
    // A database file written by root (e.g. a CLI run as root) stops the service from opening it.
    for (const name of ["sawt.db", "sawt.db-wal", "sawt.db-shm"]) {
      const file = join(p.state, name);
      if (existsSync(file) && statSync(file).uid !== uid)
        problems.push(`${name} is owned by uid ${statSync(file).uid}, not ${USER}`);
    }
    if (problems.length === 0) return { name: "state-dir", status: "ok", detail: `${p.state} is 0750 ${USER}:${USER}` };
    return {
      name: "state-dir",
      status: "fail",
      detail: `${p.state}: ${problems.join(", ")}`,
      fix: `chown ${USER}:${USER} ${p.state} ${p.state}/sawt.db*; chmod 0750 ${p.state} (run the CLI as /usr/local/bin/sawt, which switches to the ${USER} user)`,
    };
  };
}

function unitsCheck(root: string, systemctl: string | null): DoctorCheck {
  return async () => {
    const p = installPaths(root);
    const fix = "systemctl enable --now sawt.service sawt-healthcheck.timer (install.sh installs and enables them)";
    const missing = ["sawt.service", "sawt-healthcheck.service", "sawt-healthcheck.timer"].filter(
      (u) => !existsSync(join(p.units, u)),
    );
    if (missing.length > 0)
      return { name: "units", status: "fail", detail: `not installed in ${p.units}: ${missing.join(", ")}`, fix };
    if (root === "" && systemctl) {
      const ask = (...args: string[]) =>
        Bun.spawnSync([systemctl, ...args], { stdout: "pipe", stderr: "pipe" })
          .stdout.toString()
          .trim();
      const service = ask("is-enabled", "sawt.service");
      const timer = ask("is-enabled", "sawt-healthcheck.timer");
      const active = ask("is-active", "sawt.service");
      const ok = service === "enabled" && timer === "enabled";
      return {
        name: "units",
        status: ok ? (active === "active" ? "ok" : "warn") : "fail",
        detail: `sawt.service ${service} and ${active}, sawt-healthcheck.timer ${timer}`,
        fix:
          ok && active !== "active"
            ? "systemctl start sawt; journalctl -u sawt says why it stopped"
            : ok
              ? undefined
              : fix,
        data: { service, timer, active },
      };
    }
    // A staging root, or no systemctl: the .wants links are what `systemctl enable` would create.
    const links = [
      join(p.units, "multi-user.target.wants", "sawt.service"),
      join(p.units, "timers.target.wants", "sawt-healthcheck.timer"),
    ];
    const unlinked = links.filter((l) => {
      try {
        return !lstatSync(l).isSymbolicLink();
      } catch {
        return true;
      }
    });
    return unlinked.length === 0
      ? { name: "units", status: "ok", detail: `installed and enabled in ${p.units}` }
      : { name: "units", status: "fail", detail: `not enabled: ${unlinked.join(", ")}`, fix };
  };
}

/** NVIDIA driver presence against runtime.provider, and GPUs the unit's device list leaves out. */
export function gpuDriverCheck(dev = "/dev"): DoctorCheck {
  return async (config: SawtConfig): Promise<CheckResult> => {
    let nodes: string[] = [];
    try {
      nodes = readdirSync(dev).filter((n) => /^nvidia\d+$/.test(n));
    } catch {
      // no /dev to read: treated as no driver
    }
    const smi = Bun.which("nvidia-smi");
    if (nodes.length === 0 && !smi) {
      return config.runtime.provider === "cuda"
        ? {
            name: "gpu-driver",
            status: "fail",
            detail: "runtime.provider = cuda, but no NVIDIA driver (no /dev/nvidia0, no nvidia-smi)",
            fix: 'install the NVIDIA driver, or set runtime.provider = "auto" or "cpu"',
          }
        : { name: "gpu-driver", status: "ok", detail: "no NVIDIA driver: models run on the CPU" };
    }
    const ungranted = nodes
      .filter((n) => Number(n.slice("nvidia".length)) >= GRANTED_GPUS)
      .sort((a, b) => Number(a.slice(6)) - Number(b.slice(6)));
    return ungranted.length > 0
      ? {
          name: "gpu-driver",
          status: "warn",
          detail: `${nodes.length} NVIDIA device node(s); sawt.service grants only /dev/nvidia0–${GRANTED_GPUS - 1}, not ${ungranted.join(", ")}`,
          fix: `systemctl edit sawt, add [Service] DeviceAllow=/dev/${ungranted[0]} rw (one line per GPU), then systemctl restart sawt`,
          data: { nodes, nvidia_smi: smi ?? null },
        }
      : {
          name: "gpu-driver",
          status: "ok",
          detail: `NVIDIA driver present (${nodes.length} device node(s)${smi ? ", nvidia-smi" : ""})`,
          data: { nodes, nvidia_smi: smi ?? null },
        };
  };
}

/** The install checks for the machine (root "") or a staging root, in report order. */
export function installChecks(
  root = "",
  systemctl: string | null = root === "" ? Bun.which("systemctl") : null,
): DoctorCheck[] {
  return [installCheck(root), userCheck(root), configFileCheck(root), stateDirCheck(root), unitsCheck(root, systemctl)];
}
