/**
 * Builds the ASR engine from the installed packs: loads and warms them (broken ones reported and
 * skipped), picks the default recogniser and the dialect routes from config, and hands
 * back the service plus the details health endpoints show. Used by the server's engine start-up
 * (through {@link asrEngineLoader}) and by the offline `sawt asr` command alike.
 */
import { tmpdir } from "node:os";
import { EngineLoadError, type EngineLoader } from "../core/engines.ts";
import { setFfmpegConcurrency } from "../audio/ffmpeg.ts";
import { PcmBudget } from "../audio/pcm-budget.ts";
import { uploadDir } from "../audio/upload.ts";
import { Detail } from "../errors/taxonomy.ts";
import type { SawtConfig } from "../config/config.ts";
import type { Logger } from "../log/logger.ts";
import { trimHeap } from "../onnx/native-heap.ts";
import { residentMbOf } from "../onnx/session-memory.ts";
import type { Admission } from "../serving/admission.ts";
import type { BrokenPack } from "../models/errors.ts";
import { firstLine } from "../models/errors.ts";
import { builtinAsrPackDir } from "./builtin/locate.ts";
import { BUILTIN_ASR_LANGUAGE } from "./builtin/pins.ts";
import { loadBuiltinRecognizer } from "./builtin/recognizer.ts";
import { ARABIC_MODELS_DOC } from "./languages.ts";
import { loadAsrPacks, type LoadedAsrPacks } from "./packs.ts";
import { AsrPolicy, asrPolicyOf } from "./policy.ts";
import type { Recognizer } from "./recognizer.ts";
import { AsrEngineService, type InferenceObserver } from "./service.ts";

const MB = 1024 * 1024;

/**
 * The detail of a disabled ASR engine: what is missing and where to find a recogniser.
 * `builtin`: off (asr.builtin = false), absent (not in this build) or why it failed to load.
 */
export function noRecognizerReason(builtinOn: boolean, builtinFailure?: string): string {
  const builtin = !builtinOn
    ? "the built-in English recogniser is off (asr.builtin = false)"
    : builtinFailure !== undefined
      ? `the built-in recogniser failed to load (${builtinFailure})`
      : "this build carries no built-in recogniser (bun run build or npm start fetches it)";
  return `no recogniser is installed: ${builtin}; install a recogniser pack with sawt models install (see ${ARABIC_MODELS_DOC})`;
}

/** The built-in English recogniser when `asr.builtin` is on and this build has it, or why it failed to load. */
async function builtinRecognizer(
  config: SawtConfig,
  log: Logger,
): Promise<{ recognizer: Recognizer | null; failure?: string }> {
  const dir = config.asr.builtin ? builtinAsrPackDir() : null;
  if (dir === null) return { recognizer: null };
  try {
    return { recognizer: await loadBuiltinRecognizer(dir, config.asr.concurrency) };
  } catch (error) {
    const failure = firstLine(error);
    log.error("built-in recogniser failed to load", { reason: failure });
    return { recognizer: null, failure };
  }
}

/** A built engine, or why none could be built. */
export type AsrEngineResult =
  | {
      readonly ok: true;
      readonly service: AsrEngineService;
      readonly details: Record<string, unknown>;
      release(): Promise<void>;
    }
  | {
      readonly ok: false;
      readonly reason: string;
      readonly details: Record<string, unknown>;
      /** Nothing to serve by configuration (no recogniser at all): the engine is disabled, not failed. */
      readonly disabled?: boolean;
    };

/** Parses `dialect=pack` entries of `asr.dialect_packs`. */
export function parseDialectPacks(entries: readonly string[]): Map<string, string> {
  const routes = new Map<string, string>();
  for (const entry of entries) {
    const [dialect, pack] = entry.split("=", 2);
    if (dialect && pack) routes.set(dialect.trim(), pack.trim());
  }
  return routes;
}

/**
 * Where decoded uploads are spooled: the private upload directory of the data dir (on disk, swept
 * at start-up). `sawt asr` may run as a user who cannot write there; it then spools to the OS
 * temporary directory, with a warning since that may be a tmpfs (memory).
 */
function spoolDir(config: SawtConfig, log: Logger): string {
  try {
    return uploadDir(config.paths.data_dir);
  } catch (error) {
    log.warn("asr: data dir not writable, decoding via the OS temporary directory", {
      code: (error as { code?: string }).code,
    });
    return tmpdir();
  }
}

/**
 * Loads packs under `config.paths.models_dir` and builds the service; `observe` hears each
 * inference's time; `policy` is the key's policy on every call (without a key store, as `sawt asr`
 * runs: the server's redaction floor only).
 */
export async function buildAsrEngine(
  config: SawtConfig,
  admission: Admission,
  log: Logger,
  observe?: InferenceObserver,
  policy: AsrPolicy = new AsrPolicy({ config: config.asr }),
): Promise<AsrEngineResult> {
  setFfmpegConcurrency(config.asr.ffmpeg_concurrency);
  const packs = await loadAsrPacks(config.paths.models_dir, {
    parallelRuns: config.asr.concurrency,
    packSessions: config.runtime.pack_sessions,
  });
  for (const broken of packs.broken)
    log.warn("asr pack unusable, skipped", { pack: broken.pack, family: broken.family, reason: broken.reason });
  const { recognizer: builtin, failure: builtinFailure } = await builtinRecognizer(config, log);
  const details: Record<string, unknown> = {
    enabled: packs.recognizers.size > 0 || builtin !== null,
    builtin_recognizer: builtin ? { name: builtin.name, family: builtin.family, language: BUILTIN_ASR_LANGUAGE } : null,
    // Health says where the Arabic recognisers are while only the built-in English one serves.
    ...(packs.recognizers.size === 0
      ? { hint: `language=ar needs an Arabic recogniser pack: see ${ARABIC_MODELS_DOC}` }
      : {}),
    packs: packs.packs.map((p) => ({ name: p.name, family: p.family, role: p.role })),
    vad: packs.vad ? `silero (${packs.vad.name})` : "energy",
    dialect_id: packs.dialect?.name ?? null,
    // What each model's sessions hold in memory now (src/onnx/session-memory.ts), the built-in recogniser's too.
    resident_mb: residentMbOf([...packs.packs.map((p) => p.name), ...(builtin ? [builtin.name] : [])]),
    broken_packs: packs.broken,
  };
  const fail = async (reason: string, disabled = false): Promise<AsrEngineResult> => {
    await Promise.all([packs.release(), builtin?.release()]);
    return { ok: false, reason, details, disabled };
  };
  if (packs.recognizers.size === 0 && builtin === null)
    return fail(noRecognizerReason(config.asr.builtin, builtinFailure), true);
  const wanted = config.asr.pack;
  const fallback = (packs.recognizers.values().next().value as Recognizer | undefined) ?? builtin!;
  const defaultRecognizer = wanted === "" ? fallback : packs.recognizers.get(wanted);
  if (defaultRecognizer === undefined)
    return fail(`asr.pack ${JSON.stringify(wanted)} is not an installed recogniser pack`);
  const dialectRoutes = new Map<string, Recognizer>();
  // Packs that declare their dialect route first; asr.dialect_packs overrides them per dialect.
  for (const [pack, dialect] of [...packs.recognizerDialects].sort(([a], [b]) => a.localeCompare(b))) {
    if (!dialectRoutes.has(dialect)) dialectRoutes.set(dialect, packs.recognizers.get(pack)!);
  }
  const ignored: string[] = [];
  for (const [dialect, pack] of parseDialectPacks(config.asr.dialect_packs)) {
    const recognizer = packs.recognizers.get(pack);
    if (recognizer) dialectRoutes.set(dialect, recognizer);
    else ignored.push(`${dialect}=${pack}`);
  }
  if (ignored.length > 0) log.warn("asr dialect routes to packs that are not installed, ignored", { routes: ignored });
  if (dialectRoutes.size > 0 && !packs.dialect)
    log.warn("asr dialect routes configured but no dialect-id pack is installed");
  Object.assign(details, {
    recognizer: defaultRecognizer.name,
    provider: defaultRecognizer.provider,
    dialect_packs: Object.fromEntries([...dialectRoutes].map(([d, r]) => [d, r.name])),
    ...(ignored.length > 0 ? { dialect_packs_ignored: ignored } : {}),
  });
  const service = new AsrEngineService({
    policy,
    packs,
    defaultRecognizer,
    builtin,
    dialectRoutes,
    admission,
    decode: {
      maxDurationSeconds: config.asr.max_duration_s,
      timeoutMs: config.asr.ffmpeg_timeout_ms,
      spoolDir: spoolDir(config, log),
    },
    dialectSeconds: config.asr.dialect_seconds,
    channels: { split: config.asr.split_channels, speakers: config.asr.speakers },
    memory: {
      budget: new PcmBudget({ totalBytes: config.asr.pcm_budget_mb * MB, busyDetail: Detail.asrBusy }),
      requestSeconds: config.asr.request_pcm_s,
    },
    ...(observe ? { observe } : {}),
  });
  // The warm-ups' working memory goes back now, not after the idle delay (src/onnx/native-heap.ts).
  await trimHeap();
  return {
    ok: true,
    service,
    details,
    release: async () => {
      await Promise.all([packs.release(), builtin?.release()]);
    },
  };
}

/**
 * The ASR engine of a running server. With no recogniser at all (no pack, no built-in one) it is
 * disabled with {@link noRecognizerReason} and `enabled: false`, so readiness does not wait for it.
 */
export const asrEngineLoader: EngineLoader<"asr"> = {
  engine: "asr",
  async load({ app, log }) {
    const result = await buildAsrEngine(
      app.config,
      app.admission.asr,
      log.child({ engine: "asr" }),
      (seconds, audioSeconds) => app.metrics.observeInference("asr", seconds, audioSeconds),
      asrPolicyOf(app),
    );
    const { broken_packs: broken, ...details } = result.details;
    const brokenPacks = broken as BrokenPack[];
    if (!result.ok) throw new EngineLoadError(result.reason, brokenPacks, details, result.disabled === true);
    return { service: result.service, details, brokenPacks, close: result.release };
  },
};
