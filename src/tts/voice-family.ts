/**
 * What a TTS voice family (role `tts-voice` in src/models/registry.ts) hands the TTS engine, and
 * the folder rule all voice families share: a folder named after a built-in voice
 * (case-insensitively: `yara/`, `Sherine/`, `yara_en/`) serves that voice.
 */
import { firstLine, PackError } from "../models/errors.ts";
import type { Family } from "../models/family.ts";
import type { PackFiles } from "../models/pack.ts";
import type { VoiceRenderer } from "./renderer.ts";
import type { BuiltinVoice, RendererName } from "./types.ts";
import { builtinVoice, VOICE_SPECS } from "./voice-resolution.ts";

/** What health details, doctor and `models list` say about a voice pack. */
export interface VoiceFacts {
  /** The family name (`piper`, `vits`, …). */
  readonly family: string;
  readonly sampleRate: number;
  readonly phonemeType: "espeak" | "text";
  readonly speakers: number;
  /** Size of the speaker embedding the model accepts (cloning, D17); undefined when none. */
  readonly embeddingDim: number | undefined;
}

/** What a voice family's `configure` returns: at least the facts, known before any session. */
export interface VoicePackConfig {
  readonly facts: VoiceFacts;
}

/** A loaded voice: a renderer plus its facts. */
export interface LoadedVoice extends VoiceRenderer {
  readonly engine: Exclude<RendererName, "espeak-ng" | "cloned">;
  readonly facts: VoiceFacts;
  /** Size of the speaker embedding it takes (cloned voices pick a pack by it); undefined when none. */
  readonly embeddingDim: number | undefined;
  /** Where its sessions run, for the start-up log. */
  readonly provider: string;
}

/** A TTS voice family. */
export type VoiceFamily<C extends VoicePackConfig> = Family<C, LoadedVoice>;

/** The voice a pack folder serves, by its name; undefined for any other folder. */
export function voiceOfFolder(pack: Pick<PackFiles, "name">): BuiltinVoice | undefined {
  return builtinVoice(pack.name);
}

/** The `models list` line of a voice pack. */
export function voiceServes(config: VoicePackConfig, pack: PackFiles): string {
  return `TTS voice ${voiceOfFolder(pack)} (${config.facts.family})`;
}

/** Voice-family load failures read as the error itself (the TTS health contract). */
export function voiceLoadFailure(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The last voice family in the registry: claims a voice folder no real voice family claimed, so
 * it is reported broken (with the formats Sawt reads) rather than silently ignored.
 */
export const unrecognisedVoiceFamily: Family<never, LoadedVoice> = {
  name: "voice",
  role: "tts-voice",
  claims: (pack) => voiceOfFolder(pack) !== undefined,
  configure() {
    throw new PackError("no Piper voice (*.onnx + *.onnx.json) or sherpa-onnx VITS model (*.onnx + tokens.txt)");
  },
  load: () => Promise.reject(new PackError("not a voice pack")),
  serves: () => "",
};

/**
 * Speaks one short sentence with a loaded voice of the folder `pack`: the voice families' `verify`,
 * which `sawt models install` runs before it accepts a voice (voice families define no `warmUp`,
 * so engine start-up stays as it was). Throws a PackError "cannot speak with the voice: …".
 */
export async function speakOnce(voice: LoadedVoice, pack: string): Promise<void> {
  const name = builtinVoice(pack);
  if (name === undefined) return;
  const spec = VOICE_SPECS[name];
  try {
    const [sentence] = voice.sentences(spec.language === "en" ? "Hello." : "سلام.");
    if (sentence !== undefined)
      await voice.render(sentence, { speed: 1, voice: name, dialect: spec.primaryDialect ?? "en" });
  } catch (error) {
    throw new PackError(`cannot speak with the voice: ${firstLine(error)}`);
  }
}
