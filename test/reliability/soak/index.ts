/**
 * The mixed soak's load: the rows its workers take in turn, and what runs all along. A new door
 * joins the soak as one SoakRow (./row.ts) in SOAK_ROWS; the soak's memory, descriptor and
 * contract rules then cover it (the voice-bot and call doors of issues 40 and 41 go here).
 */
import { audioSocketCall } from "./call.ts";
import { grpcRecognize, grpcSynthesize } from "./grpc.ts";
import { realtimeAsr, restMalformed, restSpeech, restTranscription, ttsWebSocket } from "./http.ts";
import { runningJob } from "./job.ts";
import { mrcpRecog, mrcpSynth } from "./mrcp.ts";
import type { SoakBackground, SoakRow } from "./row.ts";
import { deepgramListen, deepgramSpeak, elevenLabsStreamInput } from "./voice-bots.ts";

/** One of each per round. */
export const SOAK_ROWS: readonly SoakRow[] = [
  restSpeech,
  restTranscription,
  restMalformed,
  ttsWebSocket,
  realtimeAsr,
  grpcSynthesize,
  grpcRecognize,
  mrcpSynth,
  mrcpRecog,
  deepgramListen,
  deepgramSpeak,
  elevenLabsStreamInput,
  audioSocketCall,
];

/** Running for the whole soak. */
export const SOAK_BACKGROUND: readonly SoakBackground[] = [runningJob];
