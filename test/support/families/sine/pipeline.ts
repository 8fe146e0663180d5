/** The sine family's pipeline: front-end sentences → one tone per sentence, as long as its text. */
import type { RenderOptions } from "../../../../src/tts/renderer.ts";
import { prepareText, type Sentence } from "../../../../src/tts/frontend/index.ts";
import type { LoadedVoice, VoiceFacts } from "../../../../src/tts/voice-family.ts";
import type { SineConfig } from "./config.ts";
import type { SineModel } from "./model.ts";

/** A sine voice ready to speak. */
export class SineVoice implements LoadedVoice {
  // The TTS contract names only the built-in engines; this test family reports itself as VITS.
  readonly engine = "vits" as const;
  readonly provider = "cpu";
  readonly embeddingDim = undefined;
  readonly sampleRate: number;
  readonly facts: VoiceFacts;

  constructor(
    private readonly config: SineConfig,
    private readonly model: SineModel,
  ) {
    this.sampleRate = config.facts.sampleRate;
    this.facts = config.facts;
  }

  sentences(text: string): Sentence[] {
    return prepareText(text, "ar");
  }

  async render(sentence: Sentence, options: RenderOptions): Promise<Float32Array> {
    return this.model.infer((Array.from(sentence.text).length * this.config.secondsPerChar) / options.speed);
  }

  async release(): Promise<void> {
    this.model.release();
  }
}
