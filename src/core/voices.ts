/**
 * The transport-free voice-library contract (D17): built-in voices plus each key's cloned voices,
 * and what cloning needs from the model packs. REST and gRPC list voices through it; the TTS
 * engine configures cloning and reads embeddings through it. src/voices implements it.
 */
import type { VoiceInfo } from "./tts.ts";

/** Prefix of every cloned voice's id (`voice_…`): how the TTS feature tells one from a built-in voice. */
export const CLONED_VOICE_PREFIX = "voice_";

/**
 * The reason a speaker-encoder pack without its model gives: the TTS loader reads such a folder
 * as no encoder at all, not a broken one.
 */
export const ENCODER_MODEL_MISSING = "needs model.onnx";

/** A speaker encoder as cloning uses it: audio in, a fixed-size embedding out. */
export interface SpeakerEmbedder {
  readonly config: { readonly embeddingDim: number };
  /** Embeds 16 kHz mono float samples. */
  embed(samples: Float32Array): Promise<Float32Array>;
}

/** A loaded speaker encoder: an embedder whose session the TTS engine releases at shutdown. */
export interface LoadedSpeakerEncoder extends SpeakerEmbedder {
  release(): Promise<void>;
}

/** What cloning depends on, resolved at engine start-up. */
export interface CloningDeps {
  readonly encoder: SpeakerEmbedder | undefined;
  /** Embedding size the TTS pack accepts, or undefined when no pack accepts one. */
  readonly ttsEmbeddingDim: number | undefined;
}

/** A cloned voice as the API shows it. */
export interface ClonedVoiceView {
  readonly voice_id: string;
  readonly name: string;
  readonly type: "cloned";
  readonly status: "training" | "ready" | "failed";
  readonly reason?: string;
  readonly created_at: string;
}

/** The voice library every door and the TTS engine use. */
export interface VoiceLibraryService {
  /** Sets what cloning depends on once the engines have loaded their packs. */
  configure(deps: CloningDeps): void;
  /** Why cloning cannot work now (501 detail), or undefined when it can. */
  unavailableReason(): string | undefined;
  /** `builtins` then the key's cloned voices. */
  list(keyId: string, builtins: readonly VoiceInfo[]): Array<VoiceInfo | ClonedVoiceView>;
  /** One of the key's cloned voices (404 for another key's or a missing one). */
  get(keyId: string, id: string): ClonedVoiceView;
  /** A ready cloned voice's embedding, when `keyId` owns it. */
  embedding(keyId: string, id: string): Float32Array | undefined;
  delete(keyId: string, id: string): void;
  /** Starts cloning from uploaded samples; answers at once with status `training`. */
  create(keyId: string, name: string, samplePaths: readonly string[]): ClonedVoiceView;
  /** Settles when no training job runs (shutdown). */
  idle(): Promise<void>;
}
