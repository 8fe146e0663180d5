/**
 * `stream=true` on the transcription routes: OpenAI's streamed transcription as Server-Sent
 * Events. The upload is decoded first (so a bad file still gets the REST error response), then
 * the audio goes through the service's streaming recognition — the same VAD segmentation as a file
 * — and each finished segment is sent as `{"type":"transcript.text.delta","delta":…}`; the end is
 * `{"type":"transcript.text.done","text":…}` (the whole text, as the non-streamed `text`). A
 * failure after the stream started is an `error` event with Sawt's REST error body. The official
 * `openai` SDK's `stream: true` iterates these events.
 */
import { decodeAudioFile } from "../../audio/decode.ts";
import { SPEECH_SAMPLE_RATE } from "../../audio/speech-rate.ts";
import type { CallOptions } from "../../core/call.ts";
import type { AppContext } from "../../core/context.ts";
import { errorBody } from "../../edge/error-body.ts";
import { toAppError } from "../../errors/taxonomy.ts";
import type { Upload } from "../../http/audio-upload.ts";
import type { AsrService } from "../types.ts";

const encoder = new TextEncoder();
const event = (body: Record<string, unknown>) => encoder.encode(`data: ${JSON.stringify(body)}\n\n`);

/** Answers a transcription request as an SSE stream; removes the upload once decoded. */
export async function streamTranscription(
  ctx: AppContext,
  asr: AsrService,
  upload: Upload,
  options: CallOptions & { signal: AbortSignal },
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
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      const texts: string[] = [];
      try {
        async function* whole() {
          yield samples;
        }
        for await (const result of asr.transcribeStream(whole(), options)) {
          if (!result.isFinal || result.text === "") continue;
          controller.enqueue(
            event({ type: "transcript.text.delta", delta: texts.length === 0 ? result.text : ` ${result.text}` }),
          );
          texts.push(result.text);
        }
        controller.enqueue(
          event({
            type: "transcript.text.done",
            text: texts.join(" "),
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
