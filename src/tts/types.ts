/**
 * The TTS contract lives in src/core/tts.ts (typed request, service interface) and
 * src/core/call.ts; this module re-exports it for the TTS feature's own files.
 */
export { AUDIO_FORMATS, type AudioFormat } from "../audio/formats.ts";
export type { CallOptions } from "../core/call.ts";
export {
  type AnalysisItem,
  type BuiltinVoice,
  DEFAULT_VOICE,
  type Dialect,
  DIALECTS,
  type EncodedSpeechStream,
  type SpeechAnalysis,
  type SpeechChunk,
  type SpeechRequest,
  type SpeechResolution,
  type SpeechResult,
  type RendererName,
  type TtsService,
  type VoiceInfo,
  VOICES,
} from "../core/tts.ts";
