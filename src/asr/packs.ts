/**
 * The ASR pack registry: the one place that knows which model families exist. Each pack folder is
 * offered to the families in turn; the first that claims it (by its files, then the model header)
 * validates it and later loads it. A claimed pack that fails validation or loading is reported
 * with its reason and skipped; folders no ASR family claims (TTS voices, …) are left alone.
 */
import { scanModelsDir } from "../models/scan.ts";
import { claimsCtc, configureCtc, type CtcConfig } from "./ctc/config.ts";
import { CtcRecognizer } from "./ctc/pipeline.ts";
import { claimsDialect, configureDialect, type DialectConfig } from "./dialect/config.ts";
import { DialectPipeline } from "./dialect/pipeline.ts";
import { PackError } from "./metadata.ts";
import { packFiles, type PackFiles } from "./pack-files.ts";
import { ASR_SAMPLE_RATE, VAD_WINDOW, type DialectIdentifier, type Recognizer, type VoiceActivityDetector } from "./recognizer.ts";
import { loadSilero, SILERO_FILE, validateSilero } from "./vad/silero.ts";
import { claimsWhisper, configureWhisper, type WhisperConfig } from "./whisper/config.ts";
import { WhisperRecognizer } from "./whisper/pipeline.ts";

/** What a pack does for the ASR engine. */
export type PackRole = "recognizer" | "vad" | "dialect";

interface Loaded {
  recognizer: Recognizer;
  vad: VoiceActivityDetector;
  dialect: DialectIdentifier;
}

interface Family<C, R extends PackRole> {
  readonly family: string;
  readonly role: R;
  claims(pack: PackFiles): boolean;
  /** Throws PackError with the reason the pack is unusable. */
  configure(pack: PackFiles): C;
  load(config: C, name: string): Promise<Loaded[R]>;
}

function family<C, R extends PackRole>(spec: Family<C, R>): Family<unknown, PackRole> {
  return spec as unknown as Family<unknown, PackRole>;
}

// Order matters only for folders that could match twice: a dialect pack (model.onnx + labels.txt)
// is tried before a CTC pack (model.onnx + tokens.txt) and neither claims the other's files.
const FAMILIES: readonly Family<unknown, PackRole>[] = [
  family({
    family: "silero-vad",
    role: "vad",
    claims: (pack) => pack.has(SILERO_FILE),
    configure(pack) {
      const problems = validateSilero(pack.header(SILERO_FILE));
      if (problems.length > 0) throw new PackError(problems.join("; "));
      return pack.path(SILERO_FILE);
    },
    load: (path: string, name) => loadSilero(path, name),
  }),
  family({ family: "whisper", role: "recognizer", claims: claimsWhisper, configure: configureWhisper, load: (c: WhisperConfig, name) => WhisperRecognizer.load(c, name) }),
  family({ family: "dialect-id", role: "dialect", claims: claimsDialect, configure: configureDialect, load: (c: DialectConfig, name) => DialectPipeline.load(c, name) }),
  family({ family: "nemo-ctc", role: "recognizer", claims: claimsCtc, configure: configureCtc, load: (c: CtcConfig, name) => CtcRecognizer.load(c, name) }),
];

/** A pack the ASR engine can use. */
export interface AsrPackInfo {
  readonly name: string;
  readonly family: string;
  readonly role: PackRole;
}

/** A pack claimed by an ASR family but unusable. */
export interface BrokenPack {
  readonly pack: string;
  readonly family: string;
  readonly reason: string;
}

/** Result of validating every pack folder without loading models. */
export interface AsrPackScan {
  readonly usable: readonly (AsrPackInfo & { readonly dir: string; readonly config: unknown })[];
  readonly broken: readonly BrokenPack[];
}

/** Validates the ASR packs under `modelsDir` from their files and headers (no sessions). */
export function inspectAsrPacks(modelsDir: string): AsrPackScan {
  const usable: (AsrPackInfo & { dir: string; config: unknown })[] = [];
  const broken: BrokenPack[] = [];
  for (const folder of scanModelsDir(modelsDir)) {
    const pack = packFiles(folder.name, folder.dir, folder.files);
    const owner = FAMILIES.find((f) => f.claims(pack));
    if (owner === undefined) continue;
    try {
      usable.push({ name: folder.name, dir: folder.dir, family: owner.family, role: owner.role, config: owner.configure(pack) });
    } catch (error) {
      if (!(error instanceof PackError)) throw error;
      broken.push({ pack: folder.name, family: owner.family, reason: error.reason });
    }
  }
  return { usable, broken };
}

/**
 * Runs a freshly loaded pack once on half a second of quiet noise, so its sessions are warm for
 * the first request and a model that loads but cannot run is caught at start-up. (Noise, not
 * zeros: some exports special-case all-zero input.)
 */
async function warmUp(role: PackRole, loaded: Loaded[PackRole]): Promise<void> {
  const audio = new Float32Array(ASR_SAMPLE_RATE / 2);
  for (let i = 0; i < audio.length; i++) audio[i] = 1e-3 * Math.sin(i * 0.37);
  if (role === "recognizer") await (loaded as Recognizer).recognize(audio);
  else if (role === "vad") await (loaded as VoiceActivityDetector).createStream().probability(audio.subarray(0, VAD_WINDOW));
  else await (loaded as DialectIdentifier).identify(audio);
}

/** The engine's loaded packs. */
export interface LoadedAsrPacks {
  /** Recognisers by pack name, in name order. */
  readonly recognizers: ReadonlyMap<string, Recognizer>;
  /** The first Silero pack by name, if any. */
  readonly vad: VoiceActivityDetector | null;
  /** The first dialect-id pack by name, if any. */
  readonly dialect: DialectIdentifier | null;
  readonly packs: readonly AsrPackInfo[];
  readonly broken: readonly BrokenPack[];
  release(): Promise<void>;
}

/** Validates, loads and warms every ASR pack under `modelsDir`; unusable ones land in `broken`. */
export async function loadAsrPacks(modelsDir: string): Promise<LoadedAsrPacks> {
  const scan = inspectAsrPacks(modelsDir);
  const broken = [...scan.broken];
  const recognizers = new Map<string, Recognizer>();
  const packs: AsrPackInfo[] = [];
  let vad: VoiceActivityDetector | null = null;
  let dialect: DialectIdentifier | null = null;
  for (const entry of scan.usable) {
    // One VAD and one dialect identifier serve the engine; further ones are not loaded.
    if ((entry.role === "vad" && vad !== null) || (entry.role === "dialect" && dialect !== null)) continue;
    const owner = FAMILIES.find((f) => f.family === entry.family)!;
    let loaded: Loaded[PackRole] | undefined;
    try {
      loaded = await owner.load(entry.config, entry.name);
      await warmUp(entry.role, loaded);
    } catch (error) {
      await loaded?.release().catch(() => undefined);
      // onnxruntime names the file by its absolute path; health details need only the pack's own name for it.
      const first = ((error instanceof Error ? error.message : String(error)).split("\n")[0] ?? "").replaceAll(`${entry.dir}/`, "");
      broken.push({ pack: entry.name, family: entry.family, reason: `${loaded ? "cannot run" : "cannot load"} the model: ${first}` });
      continue;
    }
    packs.push({ name: entry.name, family: entry.family, role: entry.role });
    if (entry.role === "recognizer") recognizers.set(entry.name, loaded as Recognizer);
    else if (entry.role === "vad") vad = loaded as VoiceActivityDetector;
    else dialect = loaded as DialectIdentifier;
  }
  return {
    recognizers,
    vad,
    dialect,
    packs,
    broken,
    async release() {
      await Promise.allSettled([...recognizers.values(), ...(vad ? [vad] : []), ...(dialect ? [dialect] : [])].map((r) => r.release()));
    },
  };
}
