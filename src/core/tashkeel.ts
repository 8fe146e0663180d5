/**
 * The diacritiser contract: what TTS voices and the model registry's load context hold of a
 * loaded tashkeel model (src/tts/tashkeel implements it). In core so that src/models, which
 * imports no feature, can hand one to the voice families it loads.
 */

/** A loaded diacritiser. */
export interface Tashkeel {
  /** Adds harakat to the unmarked letters of Arabic text; marks already written are kept. */
  diacritize(text: string): Promise<string>;
  release(): Promise<void>;
}
