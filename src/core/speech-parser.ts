/**
 * Speech-request validation as a feature outside TTS reaches it (a call session's `say`, issue
 * 41): the one validation every door's speech fields get (types 422, empty or long text, blocked
 * content D7, malformed SSML 400), naming fields as the door names them. The TTS feature's
 * `parseSpeech` (src/tts/schema.ts) is what the wiring hands over.
 */
import type { FieldNaming } from "../errors/fields.ts";
import type { SpeechRequest } from "./tts.ts";

/** Validates speech fields (the shared names: `input`, `voice`, …) into a request; throws the AppError. */
export type SpeechParser = (fields: unknown, naming: FieldNaming) => SpeechRequest;
