/**
 * `stream=true` on the transcription routes: OpenAI's streamed transcription as Server-Sent
 * Events. The audio is transcribed exactly as a file is (the segmentation policy and its word-joining
 * rule) and each decoded piece's new text is sent as `{"type":"transcript.text.delta","delta":…}`; the end is
 * `{"type":"transcript.text.done","text":…}` (the whole text, as the non-streamed `text`). A
 * failure after the stream started is an `error` event with Sawt's REST error body. The official
 * `openai` SDK's `stream: true` iterates these events.
 *
 * Split channels (issue #27) are transcribed one after another: each delta carries the extra
 * fields `channel` and `speaker`, and the deltas of one channel add up to that channel's text.
 * With `response_format=diarized_json`, OpenAI's `transcript.text.segment` events (one per
 * segment, in time order, as diarized_json's segments) come before the done event.
 */
import { errorBody } from "../../edge/error-body.ts";
import { toAppError } from "../../errors/taxonomy.ts";
import type { Upload } from "../../http/audio-upload.ts";
import { transcriptDiarizedJson } from "../../transcripts/formats.ts";
import type { AsrService, ChannelLabel, TranscriptionOptions } from "../types.ts";

/** What the stream renders besides deltas: diarized_json's segment events, and their labels for a mono file. */
export interface StreamRendering {
  readonly diarized: boolean;
  readonly speakers: readonly string[];
}

const encoder = new TextEncoder();
const event = (body: Record<string, unknown>) => encoder.encode(`data: ${JSON.stringify(body)}\n\n`);

/**
 * Answers a transcription request as an SSE stream. The file goes through the service's own file
 * path (decoded inside the admission slot from a spool, within the memory budget, long files cut
 * as they decode), so streaming costs no more memory than the non-streamed answer. The response
 * starts with the first text: anything that fails before it (a corrupt file, a full queue) is
 * thrown here and answered in its REST contract shape. The upload is removed when done.
 */
export async function streamTranscription(
  asr: AsrService,
  upload: Upload,
  options: TranscriptionOptions & { signal: AbortSignal },
  rendering: StreamRendering = { diarized: false, speakers: [] },
): Promise<Response> {
  const file = upload.files[0];
  if (!file) {
    await upload.remove();
    throw new Error("no file");
  }
  let begun!: () => void;
  const begin = new Promise<void>((resolve) => (begun = resolve));
  let early: unknown;
  // Deltas come from the file's own transcription (the segmentation policy and its word-joining
  // rule), as each piece is decoded, so they add up to exactly the text the non-streamed answer has.
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      // Text sent so far, per channel (one entry for a mono file).
      const sent = new Map<number, string>();
      const send = (text: string, label?: Required<ChannelLabel>) => {
        const before = sent.get(label?.channel ?? 0) ?? "";
        if (text.length <= before.length || !text.startsWith(before)) return;
        controller.enqueue(event({ type: "transcript.text.delta", delta: text.slice(before.length), ...label }));
        sent.set(label?.channel ?? 0, text);
        begun();
      };
      try {
        const transcript = await asr.transcribeFile(file.path, { ...options, onText: send });
        if (transcript.channels)
          for (const c of transcript.channels) send(c.text, { channel: c.channel, speaker: c.speaker });
        else send(transcript.text);
        if (rendering.diarized)
          for (const segment of transcriptDiarizedJson(transcript, rendering.speakers).segments)
            controller.enqueue(event(segment));
        controller.enqueue(
          event({
            type: "transcript.text.done",
            text: transcript.text,
            usage: { type: "duration", seconds: transcript.duration },
          }),
        );
      } catch (thrown) {
        if (sent.size === 0) early = thrown;
        else if (!options.signal.aborted) {
          const error = toAppError(thrown);
          controller.enqueue(event({ type: "error", status: error.status, ...errorBody(error) }));
        }
      } finally {
        await upload.remove();
        begun();
      }
      controller.close();
    },
  });
  await begin;
  if (early !== undefined) throw early;
  return new Response(body, {
    headers: { "content-type": "text/event-stream", "cache-control": "no-store", "x-accel-buffering": "no" },
  });
}
