/**
 * Loads Sawt's configuration: built-in defaults, then a TOML file (`--config`, else `SAWT_CONFIG`),
 * then `SAWT_*` env overrides. Anything wrong fails fast with {@link ConfigError}, whose message
 * names the setting, where it came from and why.
 */
import { accessSync, constants, existsSync, readFileSync, statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { checkSetting } from "./setting.ts";
import { envName, SETTINGS, type SettingSpec, type Settings } from "./settings.ts";

/**
 * Typed configuration after validation: the settings table's types ({@link Settings}), plus what
 * the loader adds (whether the models folder was configured, the file read).
 */
export type SawtConfig = Omit<Settings, "paths"> & {
  readonly paths: Settings["paths"] & { models_dir_explicit: boolean };
  /** The file the config was read from, if any. */
  readonly source: string | undefined;
};

/** An invalid configuration; `message` is one line naming the setting and the reason. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

type Raw = Record<string, Record<string, unknown>>;

function describe(value: unknown): string {
  return typeof value === "string" ? JSON.stringify(value) : String(value);
}

/** An env variable's text as the value its setting's schema checks (TOML values arrive typed). */
function fromEnv(spec: SettingSpec, text: string): unknown {
  switch (spec.type) {
    case "bool":
      return /^(true|1)$/i.test(text) ? true : /^(false|0)$/i.test(text) ? false : text;
    case "int":
    case "port":
      return text.trim() === "" ? text : Number(text);
    case "string[]":
      return text === "" ? [] : text.split("\n");
    case "string":
      return text;
  }
}

/** `value` checked by its setting's schema; `given` is what the operator wrote, for the message. */
function checked(spec: SettingSpec, value: unknown, given: unknown, origin: string): unknown {
  const result = checkSetting(spec, value);
  if (result.ok) return result.value;
  throw new ConfigError(`config: ${spec.section}.${spec.key} (${origin}): ${result.problem}, got ${describe(given)}`);
}

function readToml(path: string): Raw {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new ConfigError(`config: cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? "unreadable"}`);
  }
  let parsed: unknown;
  try {
    parsed = Bun.TOML.parse(text);
  } catch (error) {
    throw new ConfigError(`config: ${path} is not valid TOML: ${(error as Error).message.split("\n")[0]}`);
  }
  const raw = parsed as Record<string, unknown>;
  for (const [section, body] of Object.entries(raw)) {
    const known = SETTINGS.filter((s) => s.section === section);
    if (known.length === 0) throw new ConfigError(`config: unknown section [${section}] in ${path}`);
    if (typeof body !== "object" || body === null || Array.isArray(body))
      throw new ConfigError(`config: [${section}] in ${path} must be a table`);
    for (const key of Object.keys(body)) {
      if (!known.some((s) => s.key === key)) throw new ConfigError(`config: unknown key ${section}.${key} in ${path}`);
    }
  }
  return raw as Raw;
}

/** Where to look for the config file: explicit flag, then `SAWT_CONFIG`. */
export function configPath(
  flag: string | undefined,
  env: Record<string, string | undefined> = process.env,
): string | undefined {
  return flag ?? (env.SAWT_CONFIG || undefined);
}

/** Loads, merges and validates the configuration. Throws ConfigError. */
export function loadConfig(
  options: { file?: string; env?: Record<string, string | undefined>; cwd?: string } = {},
): SawtConfig {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const file = configPath(options.file, env);
  const raw = file ? readToml(file) : {};
  const out: Record<string, Record<string, unknown>> = {};
  let modelsExplicit = false;
  for (const spec of SETTINGS) {
    const section = (out[spec.section] ??= {});
    const variable = envName(spec);
    let value: unknown = spec.default;
    let given: unknown = value;
    let origin = "default";
    if (raw[spec.section]?.[spec.key] !== undefined) {
      value = given = raw[spec.section]![spec.key];
      origin = `in ${file}`;
    }
    const text = env[variable];
    if (text !== undefined) {
      value = fromEnv(spec, text);
      given = text;
      origin = `env ${variable}`;
    }
    if (spec.section === "paths" && spec.key === "models_dir") modelsExplicit = origin !== "default";
    section[spec.key] = checked(spec, value, given, origin);
  }
  if (
    out.server!.http_port !== 0 &&
    (out.server!.http_port === out.server!.grpc_asr_port || out.server!.http_port === out.server!.grpc_tts_port)
  ) {
    throw new ConfigError(`config: server.http_port: must differ from the gRPC ports, got ${out.server!.http_port}`);
  }
  if (out.server!.grpc_asr_port !== 0 && out.server!.grpc_asr_port === out.server!.grpc_tts_port) {
    throw new ConfigError(
      `config: server.grpc_asr_port: must differ from server.grpc_tts_port, got ${out.server!.grpc_asr_port}`,
    );
  }
  const asr = out.asr!;
  if ((asr.request_pcm_s as number) * 16000 * 4 > (asr.pcm_budget_mb as number) * 1024 * 1024) {
    throw new ConfigError(
      `config: asr.pcm_budget_mb: must hold at least one request (asr.request_pcm_s), got ${asr.pcm_budget_mb}`,
    );
  }
  const paths = out.paths!;
  paths.data_dir = isAbsolute(paths.data_dir as string) ? paths.data_dir : resolve(cwd, paths.data_dir as string);
  paths.models_dir = isAbsolute(paths.models_dir as string)
    ? paths.models_dir
    : resolve(cwd, paths.models_dir as string);
  paths.models_dir_explicit = modelsExplicit;
  checkModelsDir(paths.models_dir as string, modelsExplicit);
  return { ...(out as unknown as Omit<SawtConfig, "source">), source: file };
}

function checkModelsDir(dir: string, explicit: boolean): void {
  // The default ./models may be absent (a fresh install speaks with espeak-ng); a configured one may not.
  if (!explicit && !existsSync(dir)) return;
  try {
    if (!statSync(dir).isDirectory()) throw new Error("not a directory");
    accessSync(dir, constants.R_OK | constants.X_OK);
  } catch {
    throw new ConfigError(`config: paths.models_dir: ${dir} is not a readable directory`);
  }
}

/** Where a local client reaches a server bound to `host`: loopback for a wildcard, IPv6 in brackets. */
export function localHost(host: string): string {
  const reach = host === "0.0.0.0" ? "127.0.0.1" : host === "::" ? "::1" : host;
  return reach.includes(":") && !reach.startsWith("[") ? `[${reach}]` : reach;
}

/** The running service's base URL from the config (the host it binds, loopback for a wildcard). */
export function localServiceUrl(config: Pick<SawtConfig, "server">): string {
  return `http://${localHost(config.server.host)}:${config.server.http_port}`;
}
