/**
 * The channel fields of sawt.asr.v1 (issue #27): RecognitionConfig `channels` and `speakers`,
 * checked as REST checks `channels`/`speakers`, and a raw interleaved recording transcribed per
 * channel for Recognize: one channel at a time is picked out of the frames
 * (src/audio/live-channels.ts) and decoded as a mono recording is, so only that channel's samples
 * are held (and reserved) while it is transcribed; the engine merges the channels in time order.
 */
import * as v from "valibot";
import { channelBytes } from "../../audio/live-channels.ts";
import { decodeLiveRecording, type LiveAudioFormat } from "../../audio/live-input.ts";
import { fieldErrors } from "../../errors/fields.ts";
import { AppError, Detail } from "../../errors/taxonomy.ts";
import { SpeakersSchema } from "../../transcripts/labels.ts";
import { MAX_CHANNELS, type AsrService, type Transcript, type TranscriptionOptions } from "../types.ts";

/** The channel fields of a RecognitionConfig as proto-loader decodes them. */
export interface ChannelConfig {
  channels?: number;
  speakers?: string[];
}

/** Checks `channels` (0 to MAX_CHANNELS for raw audio, any count ≥ 0 for a container) and `speakers`. */
export function checkChannels(config: ChannelConfig, location: string, raw: boolean): void {
  const channels = config.channels ?? 0;
  if (channels < 0 || (raw && channels > MAX_CHANNELS))
    throw new AppError("validation", Detail.validationFailed, {
      fields: [{ field: `${location}.channels`, message: `Must be from 0 to ${MAX_CHANNELS} (interleaved channels)` }],
    });
  const speakers = config.speakers ?? [];
  if (speakers.length === 0) return;
  const checked = v.safeParse(SpeakersSchema, speakers);
  if (!checked.success)
    throw new AppError("validation", Detail.validationFailed, {
      fields: fieldErrors(checked.issues, { prefix: `${location}.speakers`, root: `${location}.speakers` }),
    });
}

/** The transcription options of the channel fields for a container (REST's `channels`, `speakers`). */
export function channelOptions(config: ChannelConfig): Pick<TranscriptionOptions, "channels" | "speakers"> {
  const channels = config.channels ?? 0;
  return {
    ...(channels === 1 ? { channels: "mix" } : channels >= 2 ? { channels: "split" } : {}),
    ...(config.speakers && config.speakers.length > 0 ? { speakers: config.speakers } : {}),
  };
}

/** Interleaved raw audio of `channels` channels, each picked out and decoded when the engine transcribes it. */
export function transcribeInterleaved(
  asr: AsrService,
  audio: Uint8Array,
  format: LiveAudioFormat,
  config: ChannelConfig,
  options: TranscriptionOptions,
): Promise<Transcript> {
  const channels = config.channels ?? 1;
  const sampleBytes = format.encoding === "pcm_s16le" ? 2 : 1;
  const speakers = config.speakers && config.speakers.length > 0 ? { speakers: config.speakers } : {};
  return asr.transcribeChannelSamples(
    channels,
    (channel) => decodeLiveRecording(channelBytes(audio, channels, channel, sampleBytes), format),
    { ...options, ...speakers },
  );
}
