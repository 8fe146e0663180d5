/**
 * Which recogniser serves a transcription's language (issue #32). Installed packs serve Arabic;
 * the built-in recogniser (Moonshine tiny, English; ./builtin/) serves English only, so Arabic
 * speech is never silently transcribed as English. A language no loaded recogniser serves is the
 * caller's problem, answered 400 with what to install; an omitted language means the default
 * recogniser (an installed pack, else the built-in one).
 */
import { AppError } from "../errors/taxonomy.ts";
import type { Recognizer } from "./recognizer.ts";
import type { TranscriptionLanguage } from "./types.ts";

/** Where the published Arabic recognisers, their licences and their packing are listed. */
export const ARABIC_MODELS_DOC = "docs/arabic-models.md";

/** The recognisers by the language they serve. */
export interface LanguageRoutes {
  /** The installed packs' default recogniser (Arabic), or null when no pack is installed. */
  readonly arabic: Recognizer | null;
  /** The built-in English recogniser, or null when `asr.builtin` is off or it is not in this build. */
  readonly builtin: Recognizer | null;
}

/** What a call is transcribed with, and in which language. */
export interface LanguageChoice {
  readonly recognizer: Recognizer;
  readonly language: TranscriptionLanguage;
}

/** The 400 for a language no loaded recogniser serves, naming what to install. */
export function unservedLanguage(language: TranscriptionLanguage): AppError {
  return new AppError(
    "bad_request",
    language === "ar"
      ? `language ar: no Arabic recogniser is installed (the built-in recogniser transcribes English only); install an Arabic pack with sawt models install (see ${ARABIC_MODELS_DOC})`
      : "language en: no English recogniser is loaded (the built-in recogniser is off: asr.builtin = false)",
  );
}

/** The recogniser and language for a call asking for `language` (undefined: the default). */
export function chooseByLanguage(routes: LanguageRoutes, language: TranscriptionLanguage | undefined): LanguageChoice {
  if (language === "en") {
    if (routes.builtin === null) throw unservedLanguage("en");
    return { recognizer: routes.builtin, language: "en" };
  }
  if (routes.arabic !== null) return { recognizer: routes.arabic, language: "ar" };
  if (language === "ar" || routes.builtin === null) throw unservedLanguage("ar");
  return { recognizer: routes.builtin, language: "en" };
}
