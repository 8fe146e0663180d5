/**
 * The one "two folders for one voice" rule. Voice folders are named after the voice they serve,
 * case-insensitively (`yara/`, `Yara/`), so two folders can name one voice: the first usable one
 * in folder-name order serves it and every later one is reported, never loaded. The TTS engine
 * (tts/packs.ts, loading and inspecting) and `sawt models list` (./catalog.ts) apply it through
 * this class, so they always agree on which folder serves.
 */

/** Tracks which voices a folder already serves, in folder order. */
export class VoiceFolders {
  private readonly served = new Set<string>();

  /** Why a folder for `voice` does not serve it (another, earlier folder does), or undefined. */
  conflict(voice: string): string | undefined {
    return this.served.has(voice) ? `another folder already serves ${voice}` : undefined;
  }

  /** Records that a usable folder now serves `voice` (call after it loaded or validated). */
  serve(voice: string): void {
    this.served.add(voice);
  }
}
