/**
 * Loads Sawt's configuration: built-in defaults, then a TOML file (`--config`, else `SAWT_CONFIG`),
 * then `SAWT_*` env overrides. Anything wrong fails fast with {@link ConfigError}, whose message
 * names the setting, where it came from and why.
 */
import { accessSync, constants, existsSync, readFileSync, statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { envName, SETTINGS, type SettingSpec } from "./settings.ts";

/** Typed configuration after validation. */
export interface SawtConfig {
  readonly server: {
    host: string;
    http_port: number;
    grpc_asr_port: number;
    grpc_tts_port: number;
    drain_timeout_ms: number;
    drain_grace_ms: number;
    max_json_bytes: number;
  };
  readonly paths: { data_dir: string; models_dir: string; models_dir_explicit: boolean };
  readonly log: { level: "debug" | "info" | "warn" | "error" };
  readonly auth: { default_rpm: number };
  readonly runtime: {
    provider: "auto" | "cpu" | "cuda";
    intra_op_threads: number;
    pack_sessions: string[];
    lift_convolutions: boolean;
    metrics_open: boolean;
  };
  readonly tts: {
    strict_voices: boolean;
    tashkeel: "auto" | "off";
    concurrency: number;
    max_queue: number;
    queue_timeout_ms: number;
    max_input_chars: number;
    blocked_patterns: string[];
  };
  readonly asr: {
    concurrency: number;
    max_queue: number;
    queue_timeout_ms: number;
    max_upload_mb: number;
    max_duration_s: number;
    request_pcm_s: number;
    pcm_budget_mb: number;
    ffmpeg_timeout_ms: number;
    ffmpeg_concurrency: number;
    pack: string;
    dialect_packs: string[];
    dialect_seconds: number;
  };
  readonly streaming: {
    max_session_s: number;
    idle_timeout_s: number;
    max_streams: number;
    partial_interval_ms: number;
    max_buffer_s: number;
  };
  /** MRCPv2 door (issue 26). */
  readonly mrcp: {
    enabled: boolean;
    sip_port: number;
    mrcp_port: number;
    allowed_networks: string[];
    peers: string[];
    rtp_port_min: number;
    rtp_port_max: number;
    max_sessions: number;
    session_timeout_s: number;
    idle_timeout_s: number;
    max_grammar_bytes: number;
  };
  readonly cluster: { secret: string };
  /** The file the config was read from, if any. */
  readonly source: string | undefined;
}

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

function coerce(spec: SettingSpec, value: unknown, origin: string): unknown {
  const name = `${spec.section}.${spec.key}`;
  const fail = (why: string): never => {
    throw new ConfigError(`config: ${name} (${origin}): ${why}, got ${describe(value)}`);
  };
  const fromEnv = origin.startsWith("env ");
  switch (spec.type) {
    case "string": {
      if (typeof value !== "string") fail("must be a string");
      if (spec.oneOf && !spec.oneOf.includes(value as string)) fail(`must be one of ${spec.oneOf.join(", ")}`);
      return value;
    }
    case "bool": {
      if (typeof value === "boolean") return value;
      if (fromEnv && typeof value === "string" && /^(true|false|1|0)$/i.test(value)) return /^(true|1)$/i.test(value);
      return fail("must be true or false");
    }
    case "int":
    case "port":
    case "number": {
      const n =
        typeof value === "number"
          ? value
          : fromEnv && typeof value === "string" && value.trim() !== ""
            ? Number(value)
            : NaN;
      if (!Number.isFinite(n)) fail("must be a number");
      if (spec.type !== "number" && !Number.isInteger(n)) fail("must be an integer");
      const [min, max] = spec.type === "port" ? [0, 65535] : [spec.min ?? -Infinity, spec.max ?? Infinity];
      if (n < min || n > max) fail(`must be between ${min} and ${max}`);
      return n;
    }
    case "string[]": {
      const list = fromEnv && typeof value === "string" ? (value === "" ? [] : value.split("\n")) : value;
      if (!Array.isArray(list) || !list.every((item) => typeof item === "string")) fail("must be a list of strings");
      for (const pattern of list as string[]) {
        if (spec.itemPattern) {
          if (!spec.itemPattern.regex.test(pattern))
            fail(`item ${JSON.stringify(pattern)} must look like ${spec.itemPattern.hint}`);
          continue;
        }
        try {
          new RegExp(pattern, "iu");
        } catch {
          fail(`contains an invalid regular expression ${JSON.stringify(pattern)}`);
        }
      }
      return list;
    }
  }
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
    let origin = "default";
    if (raw[spec.section]?.[spec.key] !== undefined) {
      value = raw[spec.section]![spec.key];
      origin = `in ${file}`;
    }
    if (env[variable] !== undefined) {
      value = env[variable];
      origin = `env ${variable}`;
    }
    if (spec.section === "paths" && spec.key === "models_dir") modelsExplicit = origin !== "default";
    section[spec.key] = coerce(spec, value, origin);
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
