/**
 * The voice library (D17): lists built-in voices plus the caller's cloned voices, and clones a
 * voice from uploaded samples. Cloning needs a speaker-encoder pack and a TTS pack that accepts a
 * speaker embedding of the same size; without them creation answers 501. Training runs in the
 * background: `training` → `ready`, or `failed` with a reason. Samples are deleted once processed
 * (D18), whatever the outcome.
 */
import { rm } from "node:fs/promises";
import { concatSamples } from "../audio/concat.ts";
import { decodeAudioFile } from "../audio/decode.ts";
import { AppError } from "../errors/taxonomy.ts";
import type { Logger } from "../log/logger.ts";
import type { VoiceInfo } from "../core/tts.ts";
import type { ClonedVoiceView, CloningDeps, VoiceLibraryService } from "../core/voices.ts";
import type { ClonedVoice, ClonedVoiceStore } from "./store.ts";

/** Bounds on what one cloning request may carry. */
export const CLONING_LIMITS = { maxSamples: 10, minSeconds: 1, maxSeconds: 300, maxNameChars: 64 } as const;

/** Renders a stored voice for the API. */
export function viewVoice(voice: ClonedVoice): ClonedVoiceView {
  return {
    voice_id: voice.id,
    name: voice.name,
    type: "cloned",
    status: voice.status,
    ...(voice.reason ? { reason: voice.reason } : {}),
    created_at: new Date(voice.createdAt).toISOString(),
  };
}

export type { ClonedVoiceView, CloningDeps } from "../core/voices.ts";

/** Voice listing and cloning over the store. */
export class VoiceLibrary implements VoiceLibraryService {
  private readonly jobs = new Set<Promise<void>>();

  constructor(
    private readonly store: ClonedVoiceStore,
    private deps: CloningDeps,
    private readonly log: Logger,
  ) {}

  /** Sets what cloning depends on once the engines have loaded their packs. */
  configure(deps: CloningDeps): void {
    this.deps = deps;
  }

  /** Why cloning is unavailable, or undefined when it is available. */
  unavailableReason(): string | undefined {
    if (!this.deps.encoder) return "Voice cloning is not available: no speaker-encoder model pack is installed";
    if (this.deps.ttsEmbeddingDim === undefined)
      return "Voice cloning is not available: no installed TTS model accepts a speaker embedding";
    if (this.deps.ttsEmbeddingDim !== this.deps.encoder.config.embeddingDim) {
      return `Voice cloning is not available: the speaker encoder's embedding size (${this.deps.encoder.config.embeddingDim}) does not match the TTS model's (${this.deps.ttsEmbeddingDim})`;
    }
    return undefined;
  }

  /** Built-in voices followed by the key's cloned voices. */
  list(keyId: string, builtins: readonly VoiceInfo[]): Array<VoiceInfo | ClonedVoiceView> {
    return [...builtins, ...this.store.list(keyId).map(viewVoice)];
  }

  /** One of the key's cloned voices; 404 otherwise (also for another key's voice). */
  get(keyId: string, id: string): ClonedVoiceView {
    const voice = this.store.get(keyId, id);
    if (!voice) throw new AppError("not_found", "Voice not found");
    return viewVoice(voice);
  }

  /** The embedding of the key's ready cloned voice, for synthesis. */
  embedding(keyId: string, id: string): Float32Array | undefined {
    return this.store.embedding(keyId, id);
  }

  /** Deletes one of the key's cloned voices; 404 otherwise. */
  delete(keyId: string, id: string): void {
    if (!this.store.delete(keyId, id)) throw new AppError("not_found", "Voice not found");
  }

  /**
   * Starts cloning from sample files (paths the library now owns and deletes). Returns the voice in
   * `training` state. Throws 501 when cloning is unavailable, 400 for a bad name or no samples.
   */
  create(keyId: string, name: string, samplePaths: readonly string[]): ClonedVoiceView {
    const cleanup = () => Promise.all(samplePaths.map((p) => rm(p, { force: true })));
    const unavailable = this.unavailableReason();
    const trimmed = name.trim();
    let problem: AppError | undefined;
    if (unavailable) problem = new AppError("not_implemented", unavailable);
    else if (trimmed.length === 0 || [...trimmed].length > CLONING_LIMITS.maxNameChars)
      problem = new AppError("bad_request", `Voice name must be 1-${CLONING_LIMITS.maxNameChars} characters`);
    else if (samplePaths.length === 0) problem = new AppError("bad_request", "No selected file");
    else if (samplePaths.length > CLONING_LIMITS.maxSamples)
      problem = new AppError("bad_request", `At most ${CLONING_LIMITS.maxSamples} audio samples are accepted`);
    if (problem) {
      void cleanup();
      throw problem;
    }
    const voice = this.store.create(keyId, trimmed);
    const job = this.train(voice.id, samplePaths)
      .catch((error) => {
        this.log.error("voice training crashed", {
          voice_id: voice.id,
          error: error instanceof Error ? error : String(error),
        });
        this.store.markFailed(voice.id, "internal error during training");
      })
      .finally(() => {
        this.jobs.delete(job);
        return cleanup();
      });
    this.jobs.add(job);
    return viewVoice(voice);
  }

  /** Resolves when no training job is running (shutdown, tests). */
  async idle(): Promise<void> {
    while (this.jobs.size > 0) await Promise.allSettled([...this.jobs]);
  }

  private async train(voiceId: string, samplePaths: readonly string[]): Promise<void> {
    const encoder = this.deps.encoder!;
    const parts: Float32Array[] = [];
    let seconds = 0;
    for (const [index, path] of samplePaths.entries()) {
      try {
        const decoded = await decodeAudioFile(path, { maxDurationSeconds: CLONING_LIMITS.maxSeconds });
        parts.push(decoded.samples);
        seconds += decoded.durationSeconds;
      } catch (error) {
        const detail =
          error instanceof AppError ? error.detail.replace(/^Couldn't transcribe the file: /, "") : "unreadable audio";
        this.store.markFailed(voiceId, `sample ${index + 1}: ${detail}`);
        return;
      }
    }
    if (seconds < CLONING_LIMITS.minSeconds) {
      this.store.markFailed(
        voiceId,
        `samples too short: ${seconds.toFixed(1)} s of audio, at least ${CLONING_LIMITS.minSeconds} s needed`,
      );
      return;
    }
    const embedding = await encoder.embed(concatSamples(parts));
    this.store.markReady(voiceId, embedding);
    this.log.info("voice trained", { voice_id: voiceId, seconds: Math.round(seconds * 10) / 10 });
  }
}
