/**
 * The one contract every model pack kind implements (decisions §7: one trio per model contract, one
 * registry picks the family). A family is the `family.ts` of a feature folder: it says which
 * folders are its packs ({@link Family.claims}), validates one from its files and model headers
 * without a session ({@link Family.configure}), and opens its sessions ({@link Family.load}).
 * Everything after `configure` is family-blind: engines see a loaded model of the role's type.
 */
import type { Tashkeel } from "../core/tashkeel.ts";
import type { PackFiles } from "./pack.ts";

/**
 * What a pack does. Engines pick their packs by role: TTS takes `tts-voice`, `tashkeel` and
 * `speaker-encoder`; ASR takes `asr-recognizer`, `vad` and `dialect-id`.
 */
export type PackRole = "tts-voice" | "tashkeel" | "speaker-encoder" | "asr-recognizer" | "vad" | "dialect-id";

/** What every loaded model offers: where its sessions run, and their release. */
export interface LoadedModel {
  /**
   * The device its sessions opened on (the session factory's decision, per session): what
   * `sawt models install` records. Every built-in family reports it (`cpu` or `cuda`).
   */
  readonly provider?: string;
  release(): Promise<void>;
}

/** What a family's `load` is given besides its config. */
export interface LoadContext {
  /** The pack's folder name (session labels, logs). */
  readonly pack: string;
  readonly dir: string;
  /** The diacritiser loaded earlier in this engine start, for voices that want one. */
  readonly tashkeel?: Tashkeel;
  /**
   * Runs of this pack's model that may go at once (its engine's concurrency, or the pack's own
   * `runtime.pack_sessions` entry); families that serve requests pass it to createSession as
   * `parallel` so the pack gets a session pool. Absent: one session.
   */
  readonly parallelRuns?: number;
}

/**
 * One model family. `C` is the validated, frozen config `configure` returns; `M` the loaded
 * model of its role (a VoiceRenderer for `tts-voice`, a Recognizer for `asr-recognizer`, …).
 * Methods, not function properties, so a `Family<WhisperConfig, Recognizer>` fits the registry's
 * `Family` list.
 */
export interface Family<C = unknown, M extends LoadedModel = LoadedModel> {
  /** Shown in health details and `models list`: `piper`, `whisper`, `nemo-ctc`, … */
  readonly name: string;
  readonly role: PackRole;
  /**
   * Whether `pack` is this family's, from its name, files and (cheap, cached) headers only. Must
   * not throw. Families are asked in registry order and the first claim wins (see registry.ts).
   */
  claims(pack: PackFiles): boolean;
  /** Validates a claimed pack without a session; throws PackError naming what is wrong. */
  configure(pack: PackFiles): C;
  /** Opens sessions. May throw (PackError or onnxruntime's error); the driver reports it. */
  load(config: C, context: LoadContext): Promise<M>;
  /** Runs the model once so the first request is warm and a model that cannot run is caught. */
  warmUp?(model: M): Promise<void>;
  /**
   * What `sawt models install` runs once on the loaded model of `pack` (its folder name) before
   * accepting it, besides warmUp: voice families speak a sentence, as a first request would.
   * Throws a PackError worded for the operator.
   */
  verify?(model: M, pack: string): Promise<void>;
  /** One line for `sawt models list`: `TTS voice Yara (piper)`, `ASR recognizer (whisper)`. */
  serves(config: C, pack: PackFiles): string;
  /**
   * How a load or warm-up failure reads in broken_packs (`ran`: it loaded but failed to run).
   * Default: `cannot load the model: <first line>` / `cannot run the model: …`.
   */
  loadFailure?(error: unknown, ran: boolean): string;
}
