/** The sine family: one `Family` object, registered from test code with `registerFamily`. */
import type { VoiceFamily } from "../../../../src/tts/voice-family.ts";
import { voiceOfFolder, voiceServes } from "../../../../src/tts/voice-family.ts";
import { configureSine, SINE_FILE, type SineConfig } from "./config.ts";
import { SineModel } from "./model.ts";
import { SineVoice } from "./pipeline.ts";

/** Voice folders holding `sine.json` speak a sine tone. */
export const sineFamily: VoiceFamily<SineConfig> = {
  name: "sine",
  role: "tts-voice",
  claims: (pack) => voiceOfFolder(pack) !== undefined && pack.has(SINE_FILE),
  configure: configureSine,
  load: async (config) => new SineVoice(config, new SineModel(config)),
  serves: voiceServes,
};
