/**
 * The built-in model families, in claim order: the wiring's list, handed to the model registry
 * (src/models/registry.ts), which imports no feature. Adding a family is one line here
 * (docs/architecture.md, "Adding a model family").
 *
 * Claim rule: each folder under the models directory is offered to the families in this order
 * and the first that claims it owns it; no family knows about another. The order encodes the
 * folder conventions:
 * 1. TTS voices claim folders named after a built-in voice (`yara/`, `Sherine/`, `yara_en/`,
 *    case-insensitively) and nothing else; the last of them claims any such folder the others
 *    did not, to report it broken. So a sherpa-onnx VITS voice (model.onnx + tokens.txt) is never
 *    offered to the CTC recogniser.
 * 2. Tashkeel and the speaker encoder claim their fixed folder names.
 * 3. ASR families claim by files and model headers; a dialect pack (model.onnx + labels.txt) and
 *    a CTC pack (model.onnx + tokens.txt) never claim each other's files. A streaming CTC pack
 *    (the same files, but a model with NeMo's cache inputs) is asked before the offline CTC
 *    family, which would take it; offline and streaming transducers tell themselves apart by the
 *    encoder's cache inputs. A Hugging Face layout Whisper (config.json model_type "whisper") is
 *    asked before Moonshine, whose onnx-community export has the same file names.
 * Families registered from code (`registerFamily`, e.g. a test's) are asked first.
 */
import { ctcFamily } from "../asr/ctc/family.ts";
import { dialectFamily } from "../asr/dialect/family.ts";
import { moonshineFamily } from "../asr/moonshine/family.ts";
import { streamingCtcFamily } from "../asr/nemo-streaming/ctc/family.ts";
import { streamingTransducerFamily } from "../asr/nemo-streaming/transducer/family.ts";
import { transducerFamily } from "../asr/transducer/family.ts";
import { sileroFamily } from "../asr/vad/family.ts";
import { whisperFamily } from "../asr/whisper/family.ts";
import { hfWhisperFamily } from "../asr/whisper-hf/family.ts";
import { wav2vec2Family } from "../asr/wav2vec2/family.ts";
import { type AnyFamily, useBuiltInFamilies } from "../models/registry.ts";
import { piperFamily, vitsFamily } from "../tts/piper/family.ts";
import { tashkeelFamily } from "../tts/tashkeel/family.ts";
import { unrecognisedVoiceFamily } from "../tts/voice-family.ts";
import { speakerEncoderFamily } from "../voices/encoder/family.ts";

/** Every built-in family, in claim order. */
export const BUILT_IN_FAMILIES: readonly AnyFamily[] = [
  piperFamily,
  vitsFamily,
  unrecognisedVoiceFamily,
  tashkeelFamily,
  speakerEncoderFamily,
  sileroFamily,
  whisperFamily,
  dialectFamily,
  streamingCtcFamily,
  ctcFamily,
  hfWhisperFamily,
  wav2vec2Family,
  moonshineFamily,
  transducerFamily,
  streamingTransducerFamily,
] as readonly AnyFamily[];

// Importing this module hands the list to the registry: every entry point that reads packs
// (app/server.ts, the CLI commands models, doctor, tts and asr; test code through
// test/support/families.ts) imports it, and a reader that did not fails loudly (allFamilies).
useBuiltInFamilies(BUILT_IN_FAMILIES);
