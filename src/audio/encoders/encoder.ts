/** The shape every in-process encoder of TTS output has (mp3, Ogg Opus). */

/** One encode's native state: feed s16 mono at the encoder's rate, then finish; always close. */
export interface PcmEncoder {
  /** Encodes the next samples; returns the bytes they completed (possibly none). */
  encode(samples: Int16Array): Uint8Array;
  /** Ends the stream: returns what the encoder still held. */
  finish(): Uint8Array;
  /** Frees the native state; safe to call more than once, and after a failure. */
  close(): void;
}

/** What `sawt doctor` reports about one codec library. */
export type CodecLibraryStatus =
  | { readonly ok: true; readonly path: string; readonly version: string }
  | { readonly ok: false; readonly reason: string; readonly tried: readonly string[] };
