/**
 * Deepgram's pre-recorded transcription, `POST /v1/listen`: the recording is the request body (a
 * container the hardened decoder reads, or raw audio named by `encoding` and `sample_rate`), the
 * query is the live door's (./params.ts), and the answer is Deepgram's shape: `metadata`
 * (request id, the audio's SHA-256, duration, channels, model) and `results.channels[]` with one
 * alternative each (`transcript`, `confidence`, `words[]`), plus `results.utterances` when asked.
 * With `multichannel=true` each channel is transcribed apart (a split file, or interleaved raw
 * frames), otherwise one mix. A JSON body (Deepgram's `{"url": …}`) is refused: Sawt never fetches
 * audio. The key is read as Deepgram's clients send it (`Token`), and errors come in Deepgram's
 * body (./wire.ts).
 */
import { channelBytes } from "../../audio/live-channels.ts";
import { decodeLiveRecording } from "../../audio/live-input.ts";
import type { Transcript, TranscriptionOptions, TranscriptWord } from "../../core/asr.ts";
import type { AppContext } from "../../core/context.ts";
import { readyService } from "../../edge/readiness.ts";
import type { KeySources } from "../../edge/auth.ts";
import { AppError } from "../../errors/taxonomy.ts";
import { receiveAudioBody, type StagedBody } from "../../http/audio-upload.ts";
import { respondAuthenticated } from "../../http/auth.ts";
import { answerErrorsAs } from "../../http/errors.ts";
import { listenParams, type ListenParams } from "./params.ts";
import { DEEPGRAM_ERRORS, DEEPGRAM_KEY_SOURCES } from "../../http/deepgram.ts";
import { requestMetadata, resultWords, type RequestFacts } from "./wire.ts";

/** The confidence of segments: exp of their mean log-probability where the recogniser has one, else 1. */
function confidenceOf(segments: Transcript["segments"]): number {
  const logprobs = segments.flatMap((s) => (s.avgLogprob !== undefined ? [s.avgLogprob] : []));
  if (logprobs.length === 0) return 1;
  return Math.round(Math.exp(logprobs.reduce((a, b) => a + b, 0) / logprobs.length) * 1000) / 1000;
}

/** One channel's alternative: its text, and its timed words (or its segments' words spread over them). */
function alternative(transcript: Transcript, params: ListenParams, channel: number | undefined) {
  const mine = <T extends { channel?: number }>(items: readonly T[]) =>
    channel === undefined ? items : items.filter((item) => item.channel === channel);
  const segments = mine(transcript.segments);
  const confidence = confidenceOf(segments);
  const speaker = params.diarize && channel !== undefined ? { speaker: channel } : {};
  const timed: readonly TranscriptWord[] = mine(transcript.words ?? []);
  const words =
    timed.length > 0
      ? resultWords("", 0, 0, { timed, confidence, ...speaker })
      : segments.flatMap((s) => resultWords(s.text, s.start, s.end, { confidence, ...speaker }));
  const text = channel === undefined ? transcript.text : (transcript.channels?.[channel]?.text ?? "");
  return { transcript: text, confidence, words };
}

/** The `results` of a transcript. */
function results(transcript: Transcript, params: ListenParams, split: boolean, facts: RequestFacts) {
  const count = split ? (transcript.channels?.length ?? 1) : 1;
  const channels = Array.from({ length: count }, (_, c) => ({
    alternatives: [alternative(transcript, params, split ? c : undefined)],
  }));
  if (!params.utterances) return { channels };
  const utterances = transcript.segments.map((segment) => {
    const confidence = confidenceOf([segment]);
    const speaker = params.diarize && segment.channel !== undefined ? { speaker: segment.channel } : {};
    return {
      start: segment.start,
      end: segment.end,
      confidence,
      channel: segment.channel ?? 0,
      transcript: segment.text,
      words: resultWords(segment.text, segment.start, segment.end, {
        ...(segment.words ? { timed: segment.words } : {}),
        confidence,
        ...speaker,
      }),
      ...speaker,
      id: `${facts.requestId}-${segment.id}`,
    };
  });
  return { channels, utterances };
}

/** Transcribes the staged body: raw audio decoded here (each channel apart or one mix), a container by the decoder. */
async function transcribe(
  ctx: AppContext,
  body: StagedBody,
  params: ListenParams,
  options: TranscriptionOptions,
): Promise<Transcript> {
  const asr = readyService(ctx, "asr");
  const format = params.format;
  if (format === undefined)
    return asr.transcribeFile(body.path, { ...options, channels: params.multichannel ? "split" : "mix" });
  const bytes = await Bun.file(body.path).bytes();
  const sampleBytes = format.encoding === "pcm_s16le" ? 2 : 1;
  const count = params.channels;
  const channel = (c: number) =>
    decodeLiveRecording(count > 1 ? channelBytes(bytes, count, c, sampleBytes) : bytes, format);
  if (params.multichannel && count > 1) return asr.transcribeChannelSamples(count, channel, options);
  if (count === 1) return asr.transcribeSamples(channel(0), options);
  // One mix of interleaved channels, the mean of each channel decoded alone.
  const mix = channel(0);
  for (let c = 1; c < count; c++) {
    const other = channel(c);
    for (let i = 0; i < mix.length; i++) mix[i] = mix[i]! + (other[i] ?? 0);
  }
  for (let i = 0; i < mix.length; i++) mix[i] = mix[i]! / count;
  return asr.transcribeSamples(mix, options);
}

/** Handles one `POST /v1/listen`: see the file comment. */
export async function transcribeRecording(ctx: AppContext, request: Request, requestId: string): Promise<Response> {
  answerErrorsAs(request, DEEPGRAM_ERRORS);
  return respondAuthenticated(ctx, request, DEEPGRAM_KEY_SOURCES, async (caller) => {
    const params = listenParams(new URL(request.url).searchParams, false);
    if (/json/i.test(request.headers.get("content-type") ?? ""))
      throw new AppError(
        "bad_request",
        "Sawt does not fetch audio from a URL: send the recording itself as the request body (Content-Type: audio/*)",
      );
    const created = new Date();
    const body = await receiveAudioBody(request, {
      dataDir: ctx.config.paths.data_dir,
      maxUploadMb: ctx.config.asr.max_upload_mb,
    });
    try {
      // What the query asked; the engine adds the key's phrase list and the redaction floor.
      const options: TranscriptionOptions = {
        signal: request.signal,
        keyId: caller.key.id,
        ...(params.language ? { language: params.language } : {}),
        ...(params.hotwords.length > 0 ? { hotwords: params.hotwords } : {}),
        formatting: params.formatting,
      };
      const transcript = await transcribe(ctx, body, params, options);
      const split = params.multichannel && (transcript.channels?.length ?? 0) > 1;
      const facts = { requestId, model: params.model };
      const answer = {
        metadata: requestMetadata(facts, {
          sha256: body.sha256,
          created,
          duration: transcript.duration,
          channels: split ? transcript.channels!.length : 1,
        }),
        results: results(transcript, params, split, facts),
      };
      return Response.json(answer, { headers: { "dg-request-id": requestId } });
    } finally {
      await body.remove();
    }
  });
}
