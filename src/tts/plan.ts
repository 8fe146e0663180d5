/**
 * A prompt as the service speaks it: the input (plain text or SSML) → parts → the key's lexicon
 * → each part's renderer (the request's voice, or Yara_en / the Arabic voice inside `<lang>`) →
 * front-end sentences, with pauses between. Synthesis and POST /v1/tts/analyze both walk this
 * plan, so what analyze shows is what the voices are fed.
 */
import { clampSpeed } from "../core/tts.ts";
import type { VoiceRenderer } from "./renderer.ts";
import type { Sentence } from "./frontend/index.ts";
import { stripSpanMarkers } from "./frontend/phoneme-span.ts";
import { applyLexicon } from "./lexicon/apply.ts";
import type { LexiconEntry } from "./lexicon/store.ts";
import { isSsml, parseSsml, SsmlError } from "./ssml/parse.ts";
import { AppError } from "../errors/taxonomy.ts";
import { plainParts, type SpeechPart } from "./ssml/parts.ts";
import type { BuiltinVoice, Dialect, RendererName } from "./types.ts";
import { VOICE_SPECS } from "./voice-resolution.ts";

/** Who speaks a part: the voice, its dialect, the engine and the renderer. */
export interface PlanSpeaker {
  readonly voice: BuiltinVoice;
  readonly dialect: Dialect | "en";
  readonly engine: RendererName;
  readonly renderer: VoiceRenderer;
}

/** One step of a plan. */
export type PlanStep =
  | { readonly kind: "sentence"; readonly sentence: Sentence; readonly speaker: PlanSpeaker; readonly speed: number }
  | { readonly kind: "pause"; readonly seconds: number }
  | { readonly kind: "mark"; readonly name: string };

/** What building a plan needs from the service. */
export interface PlanContext {
  /** The request's own speaker. */
  readonly main: PlanSpeaker;
  /** The speaker of a `<lang>` part ("en" → Yara_en; "ar" → the Arabic voice). */
  speakerFor(language: "ar" | "en"): PlanSpeaker;
  readonly speed: number;
  readonly lexicon: readonly LexiconEntry[];
}

/** The parts of an input: SSML parsed (400 on a bad document), or plain text as one part. */
export function speechParts(input: string, language: "ar" | "en"): SpeechPart[] {
  if (!isSsml(input)) return plainParts(stripSpanMarkers(input));
  try {
    return parseSsml(input, language);
  } catch (error) {
    throw error instanceof SsmlError ? new AppError("bad_request", error.message) : error;
  }
}

/** Builds the plan of `input`. */
export function planSpeech(input: string, context: PlanContext): PlanStep[] {
  const steps: PlanStep[] = [];
  const mainLanguage = VOICE_SPECS[context.main.voice].language;
  for (const part of speechParts(input, mainLanguage)) {
    if (part.kind === "break") {
      if (part.seconds > 0) steps.push({ kind: "pause", seconds: part.seconds });
      continue;
    }
    if (part.kind === "mark") {
      steps.push({ kind: "mark", name: part.name });
      continue;
    }
    const speaker =
      part.language === undefined || part.language === mainLanguage ? context.main : context.speakerFor(part.language);
    const text = applyLexicon(part.text, context.lexicon, speaker.dialect);
    const speed = clampSpeed(context.speed * part.rate);
    for (const sentence of speaker.renderer.sentences(text, speaker.dialect))
      steps.push({ kind: "sentence", sentence, speaker, speed });
  }
  return steps;
}
