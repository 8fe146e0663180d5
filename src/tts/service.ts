/**
 * The TTS service every front door calls (REST, WebSocket, gRPC, `sawt tts`): validation, voice
 * resolution (D1–D5), admission-controlled synthesis sentence by sentence, level, sentence
 * silence and encoding (D8). Engines differ only behind {@link VoiceRenderer}.
 */
import { concatSamples } from "../audio/concat.ts";
import { describeEncoding, encodeAudio, encodeAudioStream } from "../audio/encode.ts";
import { clampSpeed, type VoicePackServing } from "../core/tts.ts";
import { AppError } from "../errors/taxonomy.ts";
import type { Logger } from "../log/logger.ts";
import type { Admission } from "../serving/admission.ts";
import { EspeakVoice } from "./embedded.ts";
import type { VoiceRenderer } from "./renderer.ts";
import { codePointLength } from "./frontend/index.ts";
import type { TashkeelSource, TtsPacks } from "./packs.ts";
import { writtenForm } from "./frontend/phoneme-span.ts";
import type { LexiconEntry } from "./lexicon/store.ts";
import { planSpeech, type PlanSpeaker, type PlanStep } from "./plan.ts";
import { isSsml } from "./ssml/parse.ts";
import type { Tashkeel } from "./tashkeel/model.ts";
import { PcmBuffer, sentenceSilenceSamples } from "./pcm.ts";
import { pcmFrom, runSynthesis, type RunReport, type Synthesis } from "./synthesis.ts";
import {
  DEFAULT_VOICE,
  VOICES,
  type BuiltinVoice,
  type CallOptions,
  type EncodedSpeechStream,
  type SpeechChunk,
  type AnalysisItem,
  type SpeechAnalysis,
  type SpeechRequest,
  type SpeechResolution,
  type SpeechResult,
  type TtsService,
  type VoiceInfo,
} from "./types.ts";
import type { SpeechStream, SpeechStreamInit } from "../core/tts.ts";
import type { ApiKeyRecord } from "../store/keys.ts";
import type { StreamLimits } from "./stream/engine.ts";
import { SpeechStreamSession } from "./stream/stream.ts";
import { CLONED_VOICE_PREFIX } from "../core/voices.ts";
import { assertSpeakable } from "./characters.ts";
import {
  builtinVoiceInfo,
  INVALID_VOICE_DETAIL,
  resolveVoice,
  VOICE_SPECS,
  type VoiceResolution,
} from "./voice-resolution.ts";

/** What the service is built from. */
export interface TtsServiceDeps {
  readonly strictVoices: boolean;
  readonly admission: Admission;
  readonly packs: Pick<TtsPacks, "voices"> & Partial<Pick<TtsPacks, "serving">>;
  /** espeak-ng's output rate (probeEspeak), for the embedded engine. */
  readonly espeakSampleRate: number;
  /** The diacritiser espeak-ng's Arabic voices read through (undefined: text as written). */
  readonly diacritiser?: Tashkeel;
  readonly log: Logger;
  /** Reports each synthesis: seconds spent rendering and seconds of audio produced (metrics). */
  readonly observeInference?: (seconds: number, audioSeconds: number) => void;
  /** Where the diacritiser comes from (analyze reports it). */
  readonly tashkeelSource?: TashkeelSource;
  /** The caller's pronunciation lexicon entries. */
  readonly lexicon?: (keyId: string) => readonly LexiconEntry[];
  /** A ready cloned voice's embedding, when `keyId` owns voice `voiceId` (D17). */
  readonly clonedEmbedding?: (keyId: string, voiceId: string) => Float32Array | undefined;
  /** Speech streams' limits (the defaults when absent: sawt tts and tests that build the service). */
  readonly streamLimits?: StreamLimits;
  /** Consumes one request of a key's rate limit (speech streams count one per context). */
  readonly admit?: (key: ApiKeyRecord) => void;
  /** Refuses text no speech request may hold (length, D7, SSML), as ./schema.ts does for requests. */
  readonly checkSpeech?: (text: string, voice: string) => void;
}

/** Speech-stream limits when the service is built without settings. */
const DEFAULT_STREAM_LIMITS: StreamLimits = { maxContexts: 5, idleMs: 180_000, maxQueuedChars: 51_200 };

/** The TTS service over loaded packs and the embedded espeak-ng engine. */
export class TtsEngineService implements TtsService {
  private readonly espeak = new Map<BuiltinVoice, EspeakVoice>();

  constructor(private readonly deps: TtsServiceDeps) {}

  async synthesize(request: SpeechRequest, options: CallOptions = {}): Promise<SpeechResult> {
    const synthesis = this.begin(request, options.keyId);
    const rate = synthesis.renderer.sampleRate;
    const buffer = new PcmBuffer();
    const totalChars = codePointLength(request.input);
    let charsDone = 0;
    let estimated = false;
    let run: RunReport | undefined;
    for await (const sentence of runSynthesis(this.deps.admission, synthesis, options, (report) => (run = report))) {
      buffer.append(sentence.pcm);
      buffer.appendSilence(sentence.silenceAfter);
      charsDone += sentence.sentenceChars;
      // Size the buffer once from the first sentences' samples per character: an hour of audio
      // then grows in place instead of being copied at every ×1.5 step.
      if (!estimated && buffer.length > 0 && charsDone > 0) {
        buffer.reserve((buffer.length / charsDone) * totalChars * 1.1);
        estimated = true;
      }
    }
    const pcm = buffer.view();
    const synthSeconds = run?.seconds ?? 0;
    this.deps.observeInference?.(synthSeconds, pcm.length / rate);
    const encoded = await encodeAudio(pcm, rate, request.responseFormat, {
      targetSampleRate: request.sampleRate,
      encoding: request.encoding,
      signal: options.signal,
    });
    const durationSeconds = pcm.length / rate;
    const { dialect, fallback } = synthesis.resolution;
    const fields = { dialect, fallback, chars: totalChars, format: request.responseFormat };
    this.logSpeech("speech synthesized", synthesis, options.keyId, durationSeconds, synthSeconds, fields);
    return {
      ...synthesis.public,
      audio: encoded.bytes,
      format: request.responseFormat,
      contentType: encoded.contentType,
      sampleRate: encoded.sampleRate,
      durationSeconds,
    };
  }

  synthesizeStream(
    request: SpeechRequest,
    options: CallOptions = {},
  ): { resolution: SpeechResolution; chunks: AsyncIterable<SpeechChunk> } {
    const synthesis = this.begin(request, options.keyId);
    const { renderer } = synthesis;
    // One line per stream, whatever its outcome, so an operator sees a client that left stop it.
    const finish = (run: RunReport) => {
      const audioSeconds = run.samples / renderer.sampleRate;
      this.deps.observeInference?.(run.seconds, audioSeconds);
      const fields = {
        outcome: run.outcome,
        sentences: run.rendered,
        sentences_total: Math.max(run.total, run.rendered),
      };
      this.logSpeech("speech streamed", synthesis, options.keyId, audioSeconds, run.seconds, fields);
    };
    const sentences = runSynthesis(this.deps.admission, synthesis, options, finish);
    async function* chunks(): AsyncGenerator<SpeechChunk> {
      const silence = new Float32Array(sentenceSilenceSamples(renderer.sampleRate));
      for await (const { pcm, silenceAfter, index, last } of sentences) {
        if (!last && pcm.length === 0) continue;
        const audio = silenceAfter > 0 ? concatSamples([pcm, silence]) : pcm;
        yield { pcm: audio, sampleRate: renderer.sampleRate, index, last };
      }
    }
    return { resolution: synthesis.public, chunks: chunks() };
  }

  /**
   * Everything decided before any audio, so every door refuses before its first byte: voice ×
   * dialect resolution (D1–D5), the renderer, the plan (a bad SSML document) and an input the
   * voice has no character of (400, ./characters.ts).
   */
  private begin(request: SpeechRequest, keyId: string | undefined): Synthesis {
    const resolution = this.resolveInternal(request, keyId);
    const renderer = this.renderer(resolution);
    const steps = this.plan(request, resolution, keyId);
    const cloned = resolution.cloned;
    assertSpeakable(steps, (voice) => (cloned && voice === resolution.voice ? cloned.id : voice));
    return { resolution, renderer, steps, public: publicResolution(resolution, steps) };
  }

  /** A call's one log line (D18: never the text): who spoke, for which key, how much, how fast. */
  private logSpeech(
    message: string,
    synthesis: Synthesis,
    keyId: string | undefined,
    audioSeconds: number,
    synthSeconds: number,
    fields: Record<string, unknown>,
  ): void {
    const { voice, engine } = synthesis.resolution;
    this.deps.log.info(message, {
      voice,
      engine,
      key_id: keyId,
      ...fields,
      audio_seconds: Number(audioSeconds.toFixed(3)),
      synth_seconds: Number(synthSeconds.toFixed(3)),
    });
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

  openSpeechStream(init: SpeechStreamInit): SpeechStream {
    const { deps } = this;
    return new SpeechStreamSession(
      {
        admission: deps.admission,
        log: deps.log,
        limits: deps.streamLimits ?? DEFAULT_STREAM_LIMITS,
        admit: deps.admit,
        observeInference: deps.observeInference,
        check: (text, voice) => deps.checkSpeech?.(text, voice),
        voice: (request, keyId) => {
          const resolution = this.resolveInternal(request, keyId);
          return {
            public: publicResolution(resolution),
            renderer: this.renderer(resolution),
            embedding: resolution.cloned?.embedding,
            plan: (input) => {
              const steps = this.plan({ ...request, input }, resolution, keyId);
              const cloned = resolution.cloned;
              assertSpeakable(steps, (voice) => (cloned && voice === resolution.voice ? cloned.id : voice));
              return steps;
            },
          };
        },
      },
      init,
    );
  }

  listVoices(_keyId?: string): VoiceInfo[] {
    return VOICES.map((voice) =>
      builtinVoiceInfo(voice, resolveVoice({ voice, dialect: undefined }, this.installed, false).engine, "ready"),
    );
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
    if (!espeak)
      this.espeak.set(
        resolution.voice,
        (espeak = new EspeakVoice(resolution.voice, this.deps.espeakSampleRate, this.deps.diacritiser)),
      );
    return espeak;
  }

  private readonly installed = (voice: BuiltinVoice) => {
    const pack = this.deps.packs.voices.get(voice);
    return pack ? { engine: pack.engine } : undefined;
  };

  private resolveInternal(
    request: Pick<SpeechRequest, "voice" | "dialect">,
    keyId: string | undefined,
  ): VoiceResolution {
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
        return {
          voice,
          dialect,
          engine: "cloned",
          pack: voice,
          fallback: undefined,
          cloned: { id: voiceId, embedding },
        };
      }
    }
    return undefined;
  }

  /** Who speaks a resolution: voice, dialect, engine and renderer. */
  private speaker(resolution: VoiceResolution): PlanSpeaker {
    return {
      voice: resolution.voice,
      dialect: resolution.dialect,
      engine: resolution.engine,
      renderer: this.renderer(resolution),
    };
  }

  /** The request as steps (SSML parts, lexicon, `<lang>` speakers, sentences); see ./plan.ts. */
  private plan(request: SpeechRequest, resolution: VoiceResolution, keyId: string | undefined): PlanStep[] {
    const main = this.speaker(resolution);
    const speakerFor = (language: "ar" | "en"): PlanSpeaker => {
      const voice =
        language === "en"
          ? "Yara_en"
          : VOICE_SPECS[resolution.voice].language === "ar"
            ? resolution.voice
            : DEFAULT_VOICE;
      const dialect = language === "en" ? undefined : request.dialect;
      return this.speaker(resolveVoice({ voice, dialect }, this.installed, false));
    };
    const lexicon = keyId === undefined ? [] : (this.deps.lexicon?.(keyId) ?? []);
    return planSpeech(request.input, { main, speakerFor, speed: clampSpeed(request.speed), lexicon });
  }

  /**
   * How a request will be read (POST /v1/tts/analyze): per sentence the normalised text, the
   * diacritised text and the phonemes, from the same plan and the same functions synthesis uses.
   */
  async analyze(request: SpeechRequest, options: CallOptions = {}): Promise<SpeechAnalysis> {
    const resolution = this.resolveInternal(request, options.keyId);
    const steps = this.plan(request, resolution, options.keyId);
    const items = await this.deps.admission.run(
      async () => {
        const out: AnalysisItem[] = [];
        for (const step of steps) {
          options.signal?.throwIfAborted();
          if (step.kind === "mark") continue;
          if (step.kind === "pause") {
            out.push({ type: "break", seconds: step.seconds });
            continue;
          }
          const { renderer, voice, dialect, engine } = step.speaker;
          const reading = renderer.read
            ? await renderer.read(step.sentence)
            : { diacritized: step.sentence.text, phonemes: Array.from(step.sentence.text) };
          out.push({
            type: "sentence",
            voice,
            dialect,
            engine,
            speed: step.speed,
            normalized: writtenForm(step.sentence.text),
            diacritized: writtenForm(reading.diacritized),
            phonemes: reading.phonemes.join(""),
          });
        }
        return out;
      },
      { signal: options.signal, timeoutMs: options.timeoutMs },
    );
    const tashkeel = this.deps.tashkeelSource ?? "off";
    return { ...publicResolution(resolution, steps), ssml: isSsml(request.input), tashkeel, sentences: items };
  }
}

function publicResolution(resolution: VoiceResolution, steps: readonly PlanStep[] = []): SpeechResolution {
  const voice = resolution.cloned?.id ?? resolution.voice;
  const others = new Set<string>([voice]);
  for (const step of steps)
    if (step.kind === "sentence" && step.speaker.voice !== resolution.voice) others.add(step.speaker.voice);
  const voices = others.size > 1 ? { voices: [...others] } : {};
  return { voice, dialect: resolution.dialect, engine: resolution.engine, fallback: resolution.fallback, ...voices };
}

/** The detail every streaming door reports when a synthesis yields no audio at all. */
export const NO_AUDIO_DETAIL = "Synthesis produced no audio";
