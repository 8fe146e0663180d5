/**
 * The headers of D2 and D8 that every HTTP answer of speech carries (REST speech, the Deepgram-
 * and ElevenLabs-compatible doors): what spoke, in which dialect and engine, why a fallback
 * happened, and the audio's content type and rate.
 */
import type { EncodedSpeechStream } from "../core/tts.ts";

/** A header value made safe for the wire (printable ASCII; anything else becomes `?`). */
export function headerValue(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, "?").slice(0, 256);
}

/** The headers of D2 and D8 for what is speaking. */
export function speechHeaders(
  speech: Pick<
    EncodedSpeechStream,
    "voice" | "dialect" | "engine" | "fallback" | "contentType" | "sampleRate" | "voices"
  >,
): Record<string, string> {
  const headers: Record<string, string> = {
    "content-type": speech.contentType,
    "cache-control": "no-store",
    "x-tts-voice": headerValue(speech.voice),
    "x-tts-dialect": headerValue(speech.dialect),
    "x-tts-engine": headerValue(speech.engine),
    "x-sample-rate": String(speech.sampleRate),
  };
  if (speech.fallback) headers["x-tts-fallback"] = headerValue(speech.fallback);
  if (speech.voices) headers["x-tts-voices"] = headerValue(speech.voices.join(", "));
  return headers;
}
