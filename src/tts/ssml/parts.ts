/** What an SSML document (or a plain text) becomes: text parts to speak, pauses and marks between them. */

/** A stretch of text spoken in one language at one rate. */
export interface TextPart {
  readonly kind: "text";
  /** Text for the front-end (say-as already read, sub aliases substituted, phoneme spans inside). */
  readonly text: string;
  /** `<lang>`: "en" switches an Arabic prompt to Yara_en, "ar" back; undefined = the request's voice. */
  readonly language: "ar" | "en" | undefined;
  /** `<prosody rate>` multiplier on the request's speed. */
  readonly rate: number;
}

/** A pause (`<break>`). */
export interface BreakPart {
  readonly kind: "break";
  readonly seconds: number;
}

/**
 * A named point of the prompt (`<mark name>`): doors report when the audio before it has been sent
 * (MRCP SPEECH-MARKER, the WebSocket's `mark`, gRPC `marks`).
 */
export interface MarkPart {
  readonly kind: "mark";
  readonly name: string;
}

/** One part of a prompt. */
export type SpeechPart = TextPart | BreakPart | MarkPart;

/** A plain-text input as parts: one text part. */
export function plainParts(text: string): SpeechPart[] {
  return [{ kind: "text", text, language: undefined, rate: 1 }];
}
