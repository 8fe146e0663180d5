/**
 * The file policy's channel rule (issue #27): whether an upload's channels are transcribed apart,
 * and the run that does it. `channels=split` splits any recording of 2 to {@link MAX_CHANNELS}
 * channels (a mono one, or more channels, is 400); `channels=mix` keeps OpenAI's mono mix; without
 * the field the server's `asr.split_channels` decides (`auto`: 2-channel files only; `off`, the
 * default: the mix). Channels are decoded and transcribed one after another inside the request's
 * admission slot and memory reservation, so a split file never holds more decoded audio than a
 * mono one; each channel is a whole transcription of its own (its own speech spans, its own call
 * dialect and dialect route), and the results are merged in time order (./merge.ts).
 */
import { countChannels } from "../../audio/channel-count.ts";
import type { DecodeOptions } from "../../audio/decode.ts";
import { AppError } from "../../errors/taxonomy.ts";
import { MAX_CHANNELS, type Transcript, type TranscriptionOptions } from "../types.ts";
import { speakersOf } from "../../transcripts/labels.ts";
import { mergeChannels, type LabelledTranscript } from "./merge.ts";

/** The server's channel settings (`asr.split_channels`, `asr.speakers`). */
export interface ChannelPolicy {
  readonly split: "off" | "auto";
  readonly speakers: readonly string[];
}

/** Today's answer: every file mixed to mono, channels labelled `ch<n>` when a request splits. */
export const DEFAULT_CHANNEL_POLICY: ChannelPolicy = { split: "off", speakers: [] };

/** How many channels of the upload at `path` are transcribed apart, or null for the mono mix. */
export async function channelsToSplit(
  path: string,
  options: TranscriptionOptions,
  policy: ChannelPolicy,
  decode: DecodeOptions,
): Promise<number | null> {
  const asked = options.channels ?? (policy.split === "auto" ? "auto" : "mix");
  if (asked === "mix") return null;
  const count = await countChannels(path, decode);
  if (asked === "auto") return count === 2 ? count : null;
  if (count < 2)
    throw new AppError("bad_request", "channels=split needs audio with 2 or more channels; this file has 1");
  if (count > MAX_CHANNELS)
    throw new AppError(
      "bad_request",
      `channels=split takes at most ${MAX_CHANNELS} channels; this file has ${count} (send channels=mix for one mono transcript)`,
    );
  return count;
}

/**
 * Transcribes `count` channels one after another with `transcribeOne` (its own `onText` reports
 * that channel's text so far, labelled) and merges them.
 */
export async function transcribeChannels(
  count: number,
  options: TranscriptionOptions,
  policy: ChannelPolicy,
  transcribeOne: (channel: number, options: TranscriptionOptions) => Promise<Transcript>,
): Promise<Transcript> {
  const speakers = speakersOf(count, options.speakers, policy.speakers);
  const parts: LabelledTranscript[] = [];
  for (let channel = 0; channel < count; channel++) {
    const speaker = speakers[channel]!;
    const { onText } = options;
    const transcript = await transcribeOne(channel, {
      ...options,
      onText: onText ? (text) => onText(text, { channel, speaker }) : undefined,
    });
    parts.push({ channel, speaker, transcript });
  }
  return mergeChannels(parts);
}
