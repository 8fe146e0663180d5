/**
 * Generates `sawt.toml.example`, the production config the installer puts at /etc/sawt/sawt.toml on
 * a fresh install. It lists every setting of src/config/settings.ts with its meaning, env override
 * and built-in default, commented out, so an operator sees the whole surface in one file. Only the
 * values an appliance needs to differ from the checkout defaults are active.
 */
import { envName, SETTINGS, type SettingSpec } from "../src/config/settings.ts";

/** Values an appliance install sets (section.key → value), each with the reason shown in the file. */
export const PRODUCTION_VALUES: Readonly<Record<string, { value: string | number | boolean; why: string }>> = {
  "server.host": {
    value: "0.0.0.0",
    why: "appliance: serve the LAN (every speech endpoint needs an API key); use one interface address to narrow it",
  },
  "paths.data_dir": {
    value: "/var/lib/sawt",
    why: "appliance: systemd's StateDirectory; the unit may write only here",
  },
  "paths.models_dir": { value: "/var/lib/sawt/models", why: "appliance: packs from the bundle are copied here" },
};

function tomlValue(value: SettingSpec["default"]): string {
  if (Array.isArray(value)) return `[${value.map((v) => JSON.stringify(v)).join(", ")}]`;
  return typeof value === "string" ? JSON.stringify(value) : String(value);
}

function describe(spec: SettingSpec): string[] {
  const lines = [`# ${spec.doc}${spec.see ? ` See ${spec.see.href}.` : ""}`];
  const facts = [`env ${envName(spec)}`, `default ${tomlValue(spec.default)}`];
  if (spec.oneOf) facts.push(`one of ${spec.oneOf.join(", ")}`);
  if (spec.type === "port") facts.push("0 to 65535");
  else if (spec.min !== undefined || spec.max !== undefined) facts.push(`${spec.min ?? "…"} to ${spec.max ?? "…"}`);
  lines.push(`# (${facts.join("; ")})`);
  return lines;
}

/** The full template text for `version`. */
export function configTemplate(version: string): string {
  const out = [
    `# Sawt ${version} configuration (TOML). Production path: /etc/sawt/sawt.toml`,
    "#",
    "# Every setting is listed below with its meaning, its environment override and its built-in",
    "# default. Lines starting with `# key =` are defaults: remove the `#` to change one. Restart",
    "# after editing: systemctl restart sawt. Check with: sudo sawt doctor",
    "#",
    "# The installer never overwrites this file; each release puts its own template beside it as",
    "# sawt.toml.example, so `diff sawt.toml sawt.toml.example` shows new settings after an upgrade.",
  ];
  let section = "";
  for (const spec of SETTINGS) {
    if (spec.section !== section) {
      section = spec.section;
      out.push("", `[${section}]`);
    }
    out.push("", ...describe(spec));
    const production = PRODUCTION_VALUES[`${spec.section}.${spec.key}`];
    if (production) {
      out.push(`# ${production.why}`, `${spec.key} = ${tomlValue(production.value)}`);
    } else {
      out.push(`# ${spec.key} = ${tomlValue(spec.default)}`);
    }
  }
  return out.join("\n") + "\n";
}

if (import.meta.main) process.stdout.write(configTemplate(process.argv[2] ?? "dev"));
