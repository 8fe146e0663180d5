/**
 * The ASR service behind every front door (REST, gRPC, jobs, `sawt asr`, and the live core): what
 * a call gets besides the file policy (./file-policy.ts, how a recording becomes a transcript).
 * The key's policy (./policy.ts: its phrase list, the server's redaction floor) on every file;
 * upload decoding by the hardened ffmpeg path, in one-second chunks from a disk spool; the
 * decoded-audio memory budget; admission; written forms and redaction of the transcript and of
 * its streamed text. Live calls run on the live core (./live/), which opens them here with the
 * key's phrases already added: `openLive` reserves the call's memory and hands the core its
 * engine port (./live/port.ts) over the file policy.
 */
import { concatSamples } from "../audio/concat.ts";
import { SPEECH_SAMPLE_RATE } from "../audio/speech-rate.ts";
import { decodeAudioChunks } from "../audio/decode.ts";
import { PCM_BYTES_PER_SECOND, type PcmBudget, type PcmHold } from "../audio/pcm-budget.ts";
import type { Admission } from "../serving/admission.ts";
import type { CallOptions } from "../core/call.ts";
import type {
  AsrService,
  LiveEvent,
  LiveTranscription,
  LiveTranscriptionOptions,
  Transcript,
  TranscriptFormatting,
  TranscriptionLanguage,
  TranscriptionOptions,
} from "./types.ts";
import { channelsToSplit, DEFAULT_CHANNEL_POLICY, transcribeChannels, type ChannelPolicy } from "./channels/split.ts";
import { FilePolicy, type FilePolicyModels, type RecordingOptions } from "./file-policy.ts";
import { withFormattedText } from "./format/stream.ts";
import { formatTranscript } from "./format/transcript.ts";
import { livePortOf, type LivePort } from "./live/port.ts";
import { LiveTranscriber } from "./live/transcriber.ts";
import type { AsrPolicy } from "./policy.ts";

/** Hears the inference time (seconds, queue wait excluded) and the audio seconds of each transcription. */
export type InferenceObserver = (seconds: number, audioSeconds: number) => void;

/** What the service is built from. */
export interface AsrServiceOptions extends FilePolicyModels {
  /** The key's phrase list and the server's redaction floor (./policy.ts). */
  readonly policy: AsrPolicy;
  readonly admission: Admission;
  /** Upload decoding: limits and the private directory decoded PCM is spooled to. */
  readonly decode: { readonly maxDurationSeconds: number; readonly timeoutMs: number; readonly spoolDir: string };
  /**
   * Decoded-audio memory (issue #16): every request reserves `requestSeconds` of float PCM (a file
   * or stream never holds more: the longest segment, its pad and one decode chunk) from `budget`
   * before it holds any; raw samples reserve their own length. Over budget → 503 busy.
   */
  readonly memory: { readonly budget: PcmBudget; readonly requestSeconds: number };
  /** `asr.split_channels` and `asr.speakers` (default: the mono mix, `ch<n>` labels). */
  readonly channels?: ChannelPolicy;
  readonly observe?: InferenceObserver;
}

/** The chunks already read, then the one that overflowed, then the rest of the decode. */
async function* resumed(
  head: readonly Float32Array[],
  next: Float32Array,
  rest: AsyncIterator<Float32Array>,
): AsyncGenerator<Float32Array> {
  yield* head;
  yield next;
  for (let step = await rest.next(); !step.done; step = await rest.next()) yield step.value;
}

/** The {@link AsrService} over loaded packs. */
export class AsrEngineService implements AsrService {
  private readonly files: FilePolicy;
  /** The engine port of calls without phrases of their own (most calls): built once. */
  private readonly liveEngine: LivePort;

  constructor(private readonly options: AsrServiceOptions) {
    this.files = new FilePolicy(options);
    this.liveEngine = this.livePortWith();
  }

  /**
   * Decodes inside the admission slot, so queued uploads hold no decoded audio, in one-second
   * chunks from a disk spool. A recording that fits the request's reservation
   * (`asr.request_pcm_s`, at least a recogniser window) is transcribed whole by the file policy; a
   * longer one is cut into speech pieces as it is decoded, so a running request never holds more
   * than its reservation (issue #16); split channels: one after another (./channels/).
   */
  transcribeFile(path: string, given: TranscriptionOptions = {}): Promise<Transcript> {
    const { options, formatting } = this.withPolicy(given);
    return this.options.admission.run(
      async () => {
        const started = performance.now();
        const policy = this.options.channels ?? DEFAULT_CHANNEL_POLICY;
        const split = await channelsToSplit(path, options, policy, { ...this.options.decode, signal: options.signal });
        const transcript =
          split === null
            ? await this.transcribeDecoded(path, options)
            : await transcribeChannels(split, options, policy, (ch, one) => this.transcribeDecoded(path, one, ch));
        this.options.observe?.((performance.now() - started) / 1000, transcript.duration * (split ?? 1));
        return formatTranscript(transcript, formatting);
      },
      { signal: options.signal, timeoutMs: options.timeoutMs },
    );
  }

  async transcribeSamples(samples: Float32Array, given: TranscriptionOptions = {}): Promise<Transcript> {
    return this.transcribeChannelSamples(1, () => samples, given);
  }

  /**
   * `count` channels of one recording, each transcribed apart and merged in time order as a split
   * file's are (one channel: as it is); `channel(n)` gives a channel's 16 kHz samples when its turn
   * comes, so only one is held (and reserved) at a time.
   */
  async transcribeChannelSamples(
    count: number,
    channel: (n: number) => Float32Array,
    given: TranscriptionOptions = {},
  ): Promise<Transcript> {
    const { options, formatting } = this.withPolicy(given);
    const one = async (n: number, call: RecordingOptions) => {
      const samples = channel(n);
      // The caller already holds these samples; counting them keeps the budget's total honest.
      const hold = this.reserve(samples.byteLength);
      try {
        return await this.options.admission.run(
          async () => {
            const started = performance.now();
            const transcript = await this.files.transcribe(samples, call);
            this.options.observe?.((performance.now() - started) / 1000, transcript.duration);
            return transcript;
          },
          { signal: call.signal, timeoutMs: call.timeoutMs },
        );
      } finally {
        hold.release();
      }
    };
    const transcript =
      count === 1
        ? await one(0, options)
        : await transcribeChannels(count, options, this.options.channels ?? DEFAULT_CHANNEL_POLICY, one);
    return formatTranscript(transcript, formatting);
  }

  /** Throws the 400 a live call in `language` would end with when nothing loaded serves it. */
  checkLanguage(language: TranscriptionLanguage): void {
    this.files.recognizerFor(null, language);
  }

  /**
   * A live call on the live core, whose options carry the whole phrase list already (the core
   * applied the key's policy). It holds at most one utterance in progress plus a chunk: one
   * request's reservation of the decoded-audio budget, released when the call's signal ends it.
   */
  openLive(
    live: LiveTranscriptionOptions,
    emit: (event: LiveEvent) => void,
    call: CallOptions = {},
  ): LiveTranscription {
    const hold = this.reserve(this.options.memory.requestSeconds * PCM_BYTES_PER_SECOND);
    let held = true;
    const release = () => {
      if (held) hold.release();
      held = false;
    };
    if (call.signal?.aborted) release();
    else call.signal?.addEventListener("abort", release, { once: true });
    const engine = live.hotwords?.length ? this.livePortWith(live.hotwords) : this.liveEngine;
    return new LiveTranscriber(engine, live, emit, call, release);
  }

  /** The key's policy on a file call: its phrases added, the formatting it gets, `onText` formatted. */
  private withPolicy(given: TranscriptionOptions): { options: RecordingOptions; formatting: TranscriptFormatting } {
    const { formatting: asked, ...call } = given;
    const formatting = this.options.policy.formatting(asked);
    const hotwords = this.options.policy.hotwords(given.keyId, given.hotwords);
    const options = withFormattedText(
      { ...call, ...(hotwords.length > 0 ? { hotwords } : { hotwords: undefined }) },
      formatting,
    );
    return { options, formatting };
  }

  /** One decode of the upload (its mono mix, or one `channel`) transcribed within the request's reservation. */
  private async transcribeDecoded(path: string, options: RecordingOptions, channel?: number): Promise<Transcript> {
    const hold = this.reserve(this.options.memory.requestSeconds * PCM_BYTES_PER_SECOND);
    try {
      const decode = { ...this.options.decode, signal: options.signal, chunkSamples: SPEECH_SAMPLE_RATE, channel };
      const chunks = decodeAudioChunks(path, decode)[Symbol.asyncIterator]();
      const limit = this.options.memory.requestSeconds * SPEECH_SAMPLE_RATE;
      const head: Float32Array[] = [];
      let held = 0;
      let next = await chunks.next();
      while (!next.done && held + next.value.length <= limit) {
        head.push(next.value);
        held += next.value.length;
        next = await chunks.next();
      }
      return next.done
        ? await this.files.transcribe(concatSamples(head), options)
        : await this.files.transcribeLong(resumed(head, next.value, chunks), options, limit);
    } finally {
      hold.release();
    }
  }

  private reserve(bytes: number): PcmHold {
    return this.options.memory.budget.reserve(bytes);
  }

  /** The engine port over the file policy; a call's hotwords go to each final. */
  private livePortWith(hotwords?: TranscriptionOptions["hotwords"]): LivePort {
    return livePortOf(
      {
        files: this.files,
        // Live work is admitted per recognition, so a long call never holds an inference slot while idle.
        admitted: (job, call) => this.options.admission.run(job, { signal: call.signal, timeoutMs: call.timeoutMs }),
        ...(this.options.observe ? { observe: this.options.observe } : {}),
      },
      hotwords,
    );
  }
}
