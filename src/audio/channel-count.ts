/**
 * How many channels an upload's first audio stream has, asked before its channels are transcribed
 * apart (`channels=split`, or `asr.split_channels = "auto"`). A plain WAV file says so in its
 * header (read in-process, ./wav-upload.ts); anything else is asked of ffmpeg under the decode's
 * hardening: its first tenth of a second is decoded to a WAV stream without mixing, and that
 * stream's header names the channels. Unusable input fails as the decode itself would.
 */
import { cannotTranscribe } from "../errors/taxonomy.ts";
import { assertReadableUpload, decodeArgs, decodeFailure, DecodeReason, type DecodeOptions } from "./decode.ts";
import { runFfmpeg } from "./ffmpeg.ts";
import { parseWavHeader } from "./wav.ts";
import { inspectWavUpload } from "./wav-upload.ts";

/** Audio decoded to learn the layout: enough for ffmpeg to open its decoder, little to spend. */
const PROBE_SECONDS = 0.1;
/** Output bound of the probe: 0.1 s of 16-bit audio at 16 kHz in up to 64 channels, plus the header. */
const PROBE_BYTES = 1 << 20;

/** ffmpeg arguments of the probe: the decode's own (whitelists, limits) with the mix left out and WAV out. */
export function channelProbeArgs(path: string): string[] {
  const args = decodeArgs(path, PROBE_SECONDS);
  const mix = args.indexOf("-ac");
  if (mix >= 0) args.splice(mix, 2);
  const format = args.lastIndexOf("-f");
  args.splice(format, 2, "-c:a", "pcm_s16le", "-f", "wav");
  return args;
}

/** The number of channels of the upload at `path` (at least 1). Throws `cannotTranscribe` for unusable input. */
export async function countChannels(path: string, options: DecodeOptions = {}): Promise<number> {
  await assertReadableUpload(path);
  const wav = await inspectWavUpload(path);
  if (wav !== null) return wav.channels;
  const outcome = await runFfmpeg(channelProbeArgs(path), {
    timeoutMs: options.timeoutMs ?? 120_000,
    maxOutputBytes: PROBE_BYTES,
    signal: options.signal,
  });
  if (!outcome.ok) throw decodeFailure(outcome.failure, outcome.reason, options.signal);
  try {
    return Math.max(1, parseWavHeader(outcome.stdout).channels);
  } catch {
    // No samples came out (a stream that holds no audio in its first frames).
    throw cannotTranscribe(DecodeReason.empty);
  }
}
