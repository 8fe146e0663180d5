/**
 * The real Moonshine tiny (English) pack, from the npm registry by pinned version and SHA-256
 * (test/support/fixtures/models.ts), and the English speech of this run
 * (test/support/fixtures/speech.ts: the shared recording where it is, else Sawt's own).
 */
import { mkdirSync, readdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { moonshineTinyPackDir } from "../fixtures/models.ts";
import { englishSpeech } from "../fixtures/speech.ts";

/** The verified Moonshine tiny English pack folder in the test cache. */
export function moonshineTinyDir(): string {
  return moonshineTinyPackDir();
}

/** The English speech of this run (16 kHz mono s16le WAV). */
export function englishSpeechWav(): string {
  return englishSpeech().wav;
}

/** Installs the pack as `<modelsDir>/<name>` by symlinking its verified files (28 MB, not copied). */
export function installMoonshineTiny(modelsDir: string, name = "moonshine-tiny-en"): string {
  const source = moonshineTinyDir();
  const target = join(modelsDir, name);
  mkdirSync(target, { recursive: true });
  for (const file of readdirSync(source)) symlinkSync(join(source, file), join(target, file));
  return target;
}
