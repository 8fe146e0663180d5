/**
 * The real Moonshine tiny (English) model and the real English recording shared beside the
 * checkout (`../shared/models/moonshine-tiny-en/`, `../shared/audio/`; never committed), and the
 * reference decoding its README records, read from that README so the tests compare against the
 * published reference itself.
 */
import { sharedFile } from "../sawt.ts";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";

const shared = sharedFile;

/** The shared Moonshine tiny English pack folder. */
export function moonshineTinyDir(): string {
  return shared(join("models", "moonshine-tiny-en"));
}

/** The shared 20 s English recording (16 kHz mono s16le WAV). */
export function englishSpeechWav(): string {
  return shared(join("audio", "en-speech-20s.wav"));
}

/** Installs the shared pack as `<modelsDir>/<name>` by symlinking its files (28 MB, not copied). */
export function installMoonshineTiny(modelsDir: string, name = "moonshine-tiny-en"): string {
  const source = moonshineTinyDir();
  const target = join(modelsDir, name);
  mkdirSync(target, { recursive: true });
  for (const file of readdirSync(source)) symlinkSync(join(source, file), join(target, file));
  return target;
}

/** The reference greedy decoding recorded in the pack's README: token ids (with `<s>`/`</s>`) and text. */
export function moonshineReference(): { tokens: number[]; text: string } {
  const readme = readFileSync(join(moonshineTinyDir(), "README.md"), "utf8");
  const tokens = /tokens `([\d\s]+)`/.exec(readme)?.[1];
  const text = /«([^»]+)»/.exec(readme)?.[1];
  if (tokens === undefined || text === undefined) throw new Error("the Moonshine README has no reference decoding");
  return { tokens: tokens.trim().split(/\s+/).map(Number), text: text.replace(/\s+/g, " ").trim() };
}
