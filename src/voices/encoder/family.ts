/** The speaker-encoder family (voice cloning, D17): the `speaker-encoder/` folder. */
import type { Family } from "../../models/family.ts";
import { configureSpeakerEncoder, SPEAKER_ENCODER_DIR, type SpeakerEncoderConfig } from "./config.ts";
import { SpeakerEncoder } from "./model.ts";

/** Turns voice samples into the speaker embedding cloned voices speak with. */
export const speakerEncoderFamily: Family<SpeakerEncoderConfig, SpeakerEncoder> = {
  name: "speaker-encoder",
  role: "speaker-encoder",
  claims: (pack) => pack.name === SPEAKER_ENCODER_DIR,
  configure: configureSpeakerEncoder,
  load: (config) => SpeakerEncoder.load(config),
  serves: () => "voice cloning speaker encoder",
  loadFailure: (error) => (error instanceof Error ? error.message : String(error)),
};
