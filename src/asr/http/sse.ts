/**
 * `stream=true` on the transcription routes: OpenAI's streamed transcription as Server-Sent
 * Events. The upload is decoded first (so a bad file still gets the REST error response), then
 * the audio is transcribed exactly as a file is (the segmentation policy and its word-joining
 * rule) and each decoded piece's new text is sent as `{"type":"transcript.text.delta","delta":…}`; the end is
 * `{"type":"transcript.text.done","text":…}` (the whole text, as the non-streamed `text`). A
 * failure after the stream started is an `error` event with Sawt's REST error body. The official
 * `openai` SDK's `stream: true` iterates these events.
 */
import { decodeAudioFile } from "../../audio/decode.ts";
import { SPEECH_SAMPLE_RATE } from "../../audio/speech-rate.ts";
import type { AppContext } from "../../core/context.ts";
import { errorBody } from "../../edge/error-body.ts";
import { toAppError } from "../../errors/taxonomy.ts";
import type { Upload } from "../../http/audio-upload.ts";
import type { AsrService, TranscriptionOptions } from "../types.ts";

const encoder = new TextEncoder();
const event = (body: Record<string, unknown>) => encoder.encode(`data: ${JSON.stringify(body)}\n\n`);

/** Answers a transcription request as an SSE stream; removes the upload once decoded. */
export async function streamTranscription(
  ctx: AppContext,
  asr: AsrService,
  upload: Upload,
  options: TranscriptionOptions & { signal: AbortSignal },
): Promise<Response> {
  let samples: Float32Array;
  try {
    const file = upload.files[0];
    if (!file) throw new Error("no file");
    samples = (
      await decodeAudioFile(file.path, {
        maxDurationSeconds: ctx.config.asr.max_duration_s,
        timeoutMs: ctx.config.asr.ffmpeg_timeout_ms,
        signal: options.signal,
      })
    ).samples;
  } finally {
    await upload.remove();
  }
  // Deltas come from the file's own transcription (the segmentation policy and its word-joining
  // rule), as each piece is decoded, so they add up to exactly the text the non-streamed answer has.
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      let sent = "";
      const send = (text: string) => {
        if (text.length <= sent.length || !text.startsWith(sent)) return;
        controller.enqueue(event({ type: "transcript.text.delta", delta: text.slice(sent.length) }));
        sent = text;
      };
      try {
        const transcript = await asr.transcribeSamples(samples, { ...options, onText: send });
        send(transcript.text);
        controller.enqueue(
          event({
            type: "transcript.text.done",
            text: transcript.text,
            usage: { type: "duration", seconds: Math.round((samples.length / SPEECH_SAMPLE_RATE) * 1000) / 1000 },
          }),
        );
      } catch (thrown) {
        const error = toAppError(thrown);
        if (!options.signal.aborted)
          controller.enqueue(event({ type: "error", status: error.status, ...errorBody(error) }));
      }
      controller.close();
    },
  });
  return new Response(body, {
    headers: { "content-type": "text/event-stream", "cache-control": "no-store", "x-accel-buffering": "no" },
  });
}
