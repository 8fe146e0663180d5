/**
 * The TTS service every front door calls (REST, WebSocket, gRPC, `sawt tts`): validation, voice
 * resolution (D1–D5), admission-controlled synthesis sentence by sentence, level, sentence
 * silence and encoding (D8). Engines differ only behind {@link VoiceRenderer}.
 */
import { concatSamples } from "../audio/concat.ts";
import { describeEncoding, encodeAudio, encodeAudioStream } from "../audio/encode.ts";
import { clampSpeed, type VoicePackServing } from "../core/tts.ts";
import { AppError, Detail } from "../errors/taxonomy.ts";
import type { Logger } from "../log/logger.ts";
import type { Admission } from "../runtime/admission.ts";
import { EspeakVoice } from "./embedded.ts";
import type { VoiceRenderer } from "./engine.ts";
import { codePointLength } from "./frontend/index.ts";
import type { TtsPacks } from "./packs.ts";
import { levelSentence, PcmBuffer, sentenceSilenceSamples } from "./pcm.ts";
import {
  DEFAULT_VOICE,
  VOICES,
  type BuiltinVoice,
  type CallOptions,
  type EncodedSpeechStream,
  type SpeechChunk,
  type SpeechRequest,
  type SpeechResolution,
  type SpeechResult,
  type TtsService,
  type VoiceInfo,
} from "./types.ts";
import { CLONED_VOICE_PREFIX } from "../voices/store.ts";
import { builtinVoiceInfo, INVALID_VOICE_DETAIL, resolveVoice, VOICE_SPECS, type VoiceResolution } from "./voices.ts";

/** What the service is built from. */
export interface TtsServiceDeps {
  readonly strictVoices: boolean;
  readonly admission: Admission;
  readonly packs: Pick<TtsPacks, "voices"> & Partial<Pick<TtsPacks, "serving">>;
  /** espeak-ng's output rate (probeEspeak), for the embedded engine. */
  readonly espeakSampleRate: number;
  readonly log: Logger;
  /** Reports each synthesis: seconds spent rendering and seconds of audio produced (metrics). */
  readonly observeInference?: (seconds: number, audioSeconds: number) => void;
  /** A ready cloned voice's embedding, when `keyId` owns voice `voiceId` (D17). */
  readonly clonedEmbedding?: (keyId: string, voiceId: string) => Float32Array | undefined;
}

/** One sentence's audio as the core loop produces it (levelled, no trailing silence). */
interface SentenceAudio {
  readonly pcm: Float32Array;
  readonly index: number;
  readonly last: boolean;
  readonly sentenceChars: number;
  /** Time spent rendering it (front-end, phonemes, model), for metrics. */
  readonly seconds: number;
  /** How many sentences the whole text has. */
  readonly total: number;
}

/** The TTS service over loaded packs and the embedded espeak-ng engine. */
export class SawtTtsService implements TtsService {
  private readonly espeak = new Map<BuiltinVoice, EspeakVoice>();

  constructor(private readonly deps: TtsServiceDeps) {}

  async synthesize(request: SpeechRequest, options: CallOptions = {}): Promise<SpeechResult> {
    const resolution = this.resolveInternal(request, options.keyId);
    const renderer = this.renderer(resolution);
    let synthSeconds = 0;
    const pcm = await this.deps.admission.run(async () => {
      const buffer = new PcmBuffer();
      const silence = sentenceSilenceSamples(renderer.sampleRate);
      const totalChars = codePointLength(request.input);
      let charsDone = 0;
      let estimated = false;
      for await (const sentence of this.sentences(renderer, request, resolution, options.signal)) {
        buffer.append(sentence.pcm);
        if (!sentence.last && sentence.pcm.length > 0) buffer.appendSilence(silence);
        charsDone += sentence.sentenceChars;
        synthSeconds += sentence.seconds;
        // Size the buffer once from the first sentences' samples per character: an hour of audio
        // then grows in place instead of being copied at every ×1.5 step.
        if (!estimated && buffer.length > 0 && charsDone > 0) {
          buffer.reserve((buffer.length / charsDone) * totalChars * 1.1);
          estimated = true;
        }
      }
      return buffer.view();
    }, { signal: options.signal, timeoutMs: options.timeoutMs });
    this.deps.observeInference?.(synthSeconds, pcm.length / renderer.sampleRate);
    const encoded = await encodeAudio(pcm, renderer.sampleRate, request.responseFormat, {
      targetSampleRate: request.sampleRate,
      encoding: request.encoding,
      signal: options.signal,
    });
    const durationSeconds = pcm.length / renderer.sampleRate;
    this.deps.log.info("speech synthesized", {
      voice: resolution.voice,
      dialect: resolution.dialect,
      engine: resolution.engine,
      fallback: resolution.fallback,
      key_id: options.keyId,
      chars: codePointLength(request.input),
      format: request.responseFormat,
      audio_seconds: Number(durationSeconds.toFixed(3)),
      synth_seconds: Number(synthSeconds.toFixed(3)),
    });
    return {
      ...publicResolution(resolution),
      audio: encoded.bytes,
      format: request.responseFormat,
      contentType: encoded.contentType,
      sampleRate: encoded.sampleRate,
      durationSeconds,
    };
  }

  synthesizeStream(request: SpeechRequest, options: CallOptions = {}): { resolution: SpeechResolution; chunks: AsyncIterable<SpeechChunk> } {
    const resolution = this.resolveInternal(request, options.keyId);
    const renderer = this.renderer(resolution);
    const self = this;
    async function* chunks(): AsyncGenerator<SpeechChunk> {
      const slot = await holdSlot(self.deps.admission, options);
      let seconds = 0;
      let samples = 0;
      let rendered = 0;
      let total = 0;
      let outcome: "completed" | "cancelled" | "failed" = "cancelled";
      try {
        const silence = new Float32Array(sentenceSilenceSamples(renderer.sampleRate));
        for await (const sentence of self.sentences(renderer, request, resolution, options.signal)) {
          seconds += sentence.seconds;
          rendered++;
          total = sentence.total;
          if (!sentence.last && sentence.pcm.length === 0) continue;
          const pcm = sentence.last ? sentence.pcm : concatSamples([sentence.pcm, silence]);
          samples += pcm.length;
          yield { pcm, sampleRate: renderer.sampleRate, index: sentence.index, last: sentence.last };
        }
        outcome = "completed";
      } catch (error) {
        if (!options.signal?.aborted) outcome = "failed";
        throw error;
      } finally {
        self.deps.observeInference?.(seconds, samples / renderer.sampleRate);
        slot.release();
        // One line per stream, so an operator sees a client that left stop the synthesis (D18: no text).
        self.deps.log.info("speech streamed", {
          voice: resolution.voice,
          engine: resolution.engine,
          key_id: options.keyId,
          outcome,
          sentences: rendered,
          sentences_total: Math.max(total, rendered),
          audio_seconds: Number((samples / renderer.sampleRate).toFixed(3)),
          synth_seconds: Number(seconds.toFixed(3)),
        });
        await slot.done;
      }
    }
    return { resolution: publicResolution(resolution), chunks: chunks() };
  }

  async synthesizeEncodedStream(request: SpeechRequest, options: CallOptions = {}): Promise<EncodedSpeechStream> {
    const { resolution, chunks } = this.synthesizeStream(request, options);
    const sentences = chunks[Symbol.asyncIterator]();
    // The first audio fixes the rate the stream is encoded from and reported at; sentences that
    // render to nothing before it are skipped, and a synthesis with no audio at all is an error
    // every door reports the same way, before its first byte.
    let first = await sentences.next();
    while (!first.done && first.value.pcm.length === 0) first = await sentences.next();
    if (first.done) throw new AppError("internal", NO_AUDIO_DETAIL);
    const rate = first.value.sampleRate;
    const encoding = { targetSampleRate: request.sampleRate, encoding: request.encoding, signal: options.signal };
    const described = describeEncoding(request.responseFormat, rate, encoding);
    return {
      ...resolution,
      format: request.responseFormat,
      contentType: described.contentType,
      sampleRate: described.sampleRate,
      audio: encodeAudioStream(pcmFrom(first.value, sentences), rate, request.responseFormat, encoding),
    };
  }

  listVoices(_keyId?: string): VoiceInfo[] {
    return VOICES.map((voice) => builtinVoiceInfo(voice, resolveVoice({ voice, dialect: undefined }, this.installed, false).engine, "ready"));
  }

  /** The packs serving built-in voices, in voice order (GET /v1/tts/voices `packs`). */
  voicePacks(): VoicePackServing[] {
    return VOICES.flatMap((voice) => this.deps.packs.serving?.get(voice) ?? []);
  }

  /** The renderer a resolution names: the pack's voice, else espeak-ng speaking the voice itself. */
  private renderer(resolution: VoiceResolution): VoiceRenderer {
    if (resolution.pack !== undefined) {
      const voice = this.deps.packs.voices.get(resolution.pack);
      if (voice) return voice;
    }
    let espeak = this.espeak.get(resolution.voice);
    if (!espeak) this.espeak.set(resolution.voice, (espeak = new EspeakVoice(resolution.voice, this.deps.espeakSampleRate)));
    return espeak;
  }

  private readonly installed = (voice: BuiltinVoice) => {
    const pack = this.deps.packs.voices.get(voice);
    return pack ? { engine: pack.engine } : undefined;
  };

  private resolveInternal(request: Pick<SpeechRequest, "voice" | "dialect">, keyId: string | undefined): VoiceResolution {
    if (request.voice.startsWith(CLONED_VOICE_PREFIX)) {
      const cloned = this.resolveCloned(request.voice, keyId);
      if (cloned) return cloned;
      // Unknown, not ready, or another key's voice: all look alike (no existence leak) and fall
      // back like any unknown voice (D1), or are refused under strict_voices.
      if (this.deps.strictVoices) throw new AppError("bad_request", INVALID_VOICE_DETAIL);
      const fallback = resolveVoice({ voice: DEFAULT_VOICE, dialect: request.dialect }, this.installed, false);
      const reason = "cloned voice not found or not ready, default Yara used";
      return { ...fallback, fallback: fallback.fallback ? `${reason}; ${fallback.fallback}` : reason };
    }
    return resolveVoice(request, this.installed, this.deps.strictVoices);
  }

  /** A cloned voice speaks through the pack that takes a speaker embedding of its size. */
  private resolveCloned(voiceId: string, keyId: string | undefined): VoiceResolution | undefined {
    const embedding = keyId === undefined ? undefined : this.deps.clonedEmbedding?.(keyId, voiceId);
    if (!embedding) return undefined;
    for (const [voice, pack] of this.deps.packs.voices) {
      if (pack.embeddingDim === embedding.length) {
        const dialect = VOICE_SPECS[voice].primaryDialect ?? "en";
        return { voice, dialect, engine: "cloned", pack: voice, fallback: undefined, cloned: { id: voiceId, embedding } };
      }
    }
    return undefined;
  }

  /** The core loop: sentences rendered one at a time, levelled; stops when the caller goes away. */
  private async *sentences(renderer: VoiceRenderer, request: SpeechRequest, resolution: VoiceResolution, signal: AbortSignal | undefined): AsyncGenerator<SentenceAudio> {
    const sentences = renderer.sentences(request.input);
    // Parsed requests are clamped already; callers building a SpeechRequest themselves may not be.
    const speed = clampSpeed(request.speed);
    const options = { speed, voice: resolution.voice, dialect: resolution.dialect, embedding: resolution.cloned?.embedding };
    for (let index = 0; index < sentences.length; index++) {
      signal?.throwIfAborted();
      const sentence = sentences[index]!;
      const started = performance.now();
      const pcm = levelSentence(await renderer.render(sentence, options));
      const seconds = (performance.now() - started) / 1000;
      yield { pcm, index, last: index === sentences.length - 1, sentenceChars: codePointLength(sentence.text), seconds, total: sentences.length };
    }
  }
}

function publicResolution(resolution: VoiceResolution): SpeechResolution {
  return { voice: resolution.cloned?.id ?? resolution.voice, dialect: resolution.dialect, engine: resolution.engine, fallback: resolution.fallback };
}

/** The detail every streaming door reports when a synthesis yields no audio at all. */
export const NO_AUDIO_DETAIL = "Synthesis produced no audio";

/** The PCM of `first` then of every later sentence; ending it early ends the synthesis (frees its slot). */
async function* pcmFrom(first: SpeechChunk, rest: AsyncIterator<SpeechChunk>): AsyncGenerator<Float32Array> {
  try {
    yield first.pcm;
    for (let step = await rest.next(); !step.done; step = await rest.next()) yield step.value.pcm;
  } finally {
    await rest.return?.();
  }
}

/**
 * Takes an admission slot and keeps it until `release`: a stream holds its slot for as long as
 * it produces audio, however slowly the client reads. Rejects as `Admission.run` does (503/504,
 * or the caller's abort). An abort also frees the slot, even if the consumer never ends its loop.
 */
async function holdSlot(admission: Admission, options: CallOptions): Promise<{ release(): void; done: Promise<void> }> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let admitted!: () => void;
  const started = new Promise<void>((resolve) => (admitted = resolve));
  const done = admission.run(
    async () => {
      admitted();
      await released;
    },
    { signal: options.signal, timeoutMs: options.timeoutMs },
  );
  await Promise.race([started, done]);
  options.signal?.addEventListener("abort", release, { once: true });
  return { release, done };
}
