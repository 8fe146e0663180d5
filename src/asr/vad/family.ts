/** The Silero VAD family: one `silero_vad.onnx` whose graph is checked from its header. */
import { PackError } from "../../models/errors.ts";
import type { Family } from "../../models/family.ts";
import { VAD_WINDOW, type VoiceActivityDetector } from "../recognizer.ts";
import { warmUpAudio } from "../warm-up.ts";
import { loadSilero, SILERO_FILE, validateSilero } from "./silero.ts";

/** Silero packs segment speech for the ASR engine (else the energy detector does). */
export const sileroFamily: Family<string, VoiceActivityDetector> = {
  name: "silero-vad",
  role: "vad",
  claims: (pack) => pack.has(SILERO_FILE),
  configure(pack) {
    const problems = validateSilero(pack.header(SILERO_FILE));
    if (problems.length > 0) throw new PackError(problems.join("; "));
    return pack.path(SILERO_FILE);
  },
  load: (path, { pack }) => loadSilero(path, pack),
  warmUp: async (model) => void (await model.createStream().probability(warmUpAudio().subarray(0, VAD_WINDOW))),
  serves: () => "ASR vad (silero-vad)",
};
