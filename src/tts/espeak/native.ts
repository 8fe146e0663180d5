/**
 * The espeak-ng calls themselves. Imported ONLY by the espeak worker (espeak-worker.ts): espeak
 * keeps process-global state (current voice, parameters, one synth callback) and is not
 * thread-safe, so exactly one thread — that worker — ever initialises or calls it.
 */

import { CString, JSCallback, ptr, toArrayBuffer, type Pointer } from "bun:ffi";
import { concatInt16 } from "../../audio/concat.ts";
import type { Clause, Sentence } from "../frontend/sentences.ts";
import type { EspeakInfo, SynthSettings } from "./protocol.ts";
import { cstring, EspeakUnavailableError, locateLibrary, resolveDataPath, type EspeakSymbols } from "./locate.ts";
import { terminatorPhoneme } from "./punctuation.ts";

/** espeak_AUDIO_OUTPUT: synthesise into the callback, on the calling thread. */
const AUDIO_OUTPUT_SYNCHRONOUS = 2;
/** Without this option espeak_Initialize calls exit(1) when its data is missing. */
const INITIALIZE_DONT_EXIT = 0x8000;
/** Milliseconds of audio per callback; larger chunks mean fewer JS round trips. */
const BUFFER_MS = 500;
const EE_OK = 0;
/** espeakCHARS_UTF8: the text argument is UTF-8. */
const CHARS_UTF8 = 1;
/**
 * espeak_TextToPhonemes `phonememode`: bit 1 (0x02, espeakPHONEMES_IPA) selects IPA output;
 * bits 8–23 would set a separator between phonemes and 0x80 a tie — Piper uses neither.
 */
export const PHONEMES_IPA = 0x02;
/** espeak_PARAMETER ids (speak_lib.h). */
const RATE = 1;
const PITCH = 3;
const RANGE = 4;
/** espeak_POSITION_TYPE POS_CHARACTER. */
const POS_CHARACTER = 1;

/** espeak has no voice by that name (a wrong pack config or profile, not a missing library). */
export class UnknownVoiceError extends Error {}

/** An initialised espeak-ng. */
export interface NativeEspeak {
  readonly info: EspeakInfo;
  /** Phonemes (code points) per sentence, Piper style, with espeak voice `voice`. */
  phonemize(sentences: readonly Sentence[], voice: string): string[][];
  /** Mono 16-bit PCM at `info.sampleRate`. */
  synthesize(text: string, settings: SynthSettings): Int16Array;
  /** Terminates espeak and frees its callback and library. */
  close(): void;
}

/** espeak marks a switch to another language's rules as "(en)…(ar)"; those letters are not phonemes. */
const LANGUAGE_SWITCH = /\([a-z]{2,3}(?:-[a-z0-9]+)*\)/giu;
const CLOSING_QUOTES = /["'”’»)\]]+$/u;

/**
 * Phonemes of one punctuation-free clause. espeak_TextToPhonemes translates one clause per call
 * and advances the text pointer (written back through the pointer-to-pointer argument), setting
 * it to NULL at the end; it may still split our clause (brackets, very long runs), so the pieces
 * are joined by a word space.
 */
function clausePhonemes(symbols: EspeakSymbols, text: string): string {
  const buffer = cstring(text);
  const start = ptr(buffer);
  const cursor = new BigUint64Array([BigInt(start)]);
  const pieces: string[] = [];
  for (let calls = 0; cursor[0] !== 0n; calls++) {
    // Each call consumes at least one character, so more calls than bytes means espeak is stuck.
    if (calls > buffer.byteLength) throw new Error("espeak_TextToPhonemes did not advance");
    const out = symbols.espeak_TextToPhonemes(cursor, CHARS_UTF8, PHONEMES_IPA);
    if (out === null) break;
    const piece = new CString(out).toString().replace(LANGUAGE_SWITCH, "").replace(/\s+/gu, " ").trim();
    if (piece !== "") pieces.push(piece);
    const offset = cursor[0] === 0n ? 0 : Number(cursor[0]) - start;
    if (offset < 0 || offset > buffer.byteLength) throw new Error("espeak_TextToPhonemes moved outside the text");
  }
  // Piper decomposes espeak's output (NFD) before mapping code points to ids.
  return pieces.join(" ").normalize("NFD");
}

function clauseBody(clause: Clause): string {
  const withoutQuotes = clause.text.replace(CLOSING_QUOTES, "");
  return withoutQuotes.endsWith(clause.terminator)
    ? withoutQuotes.slice(0, withoutQuotes.length - clause.terminator.length)
    : withoutQuotes;
}

function sentencePhonemes(symbols: EspeakSymbols, sentence: Sentence): string[] {
  let out = "";
  sentence.clauses.forEach((clause, index) => {
    const phonemes = clausePhonemes(symbols, clauseBody(clause));
    const mark = terminatorPhoneme(clause.terminator);
    if (out !== "" && !out.endsWith(" ") && phonemes !== "") out += " ";
    out += phonemes + mark;
    // Piper puts a word space after a mid-sentence mark (",", ":", ";") and after a clause that
    // ended without one (hard split) so the next clause's first word stays separate.
    if (index < sentence.clauses.length - 1 && (mark === "" || /[,:;]/.test(mark))) out += " ";
  });
  return Array.from(out.trim());
}

/**
 * Locates, loads and initialises libespeak-ng; throws {@link EspeakUnavailableError} when the
 * library or its data is missing.
 */
export function openEspeak(env: Record<string, string | undefined>): NativeEspeak {
  const { library, libraryPath, tried } = locateLibrary(env);
  const symbols = library.symbols;
  let dataPath: string | undefined;
  try {
    dataPath = resolveDataPath(libraryPath, env);
  } catch (error) {
    library.close();
    throw error;
  }
  const sampleRate = symbols.espeak_Initialize(
    AUDIO_OUTPUT_SYNCHRONOUS,
    BUFFER_MS,
    dataPath === undefined ? null : cstring(dataPath),
    INITIALIZE_DONT_EXIT,
  );
  // With DONT_EXIT a missing data directory still "initialises"; selecting a voice tells the truth.
  if (sampleRate <= 0 || symbols.espeak_SetVoiceByName(cstring("en")) !== EE_OK) {
    symbols.espeak_Terminate();
    library.close();
    throw new EspeakUnavailableError(`espeak-ng data not usable (${dataPath ?? "built-in default path"})`, tried);
  }
  const dataOut = new BigUint64Array(1);
  const versionPtr = symbols.espeak_Info(dataOut);
  const version = versionPtr === null ? "unknown" : new CString(versionPtr).toString();
  const reportedData = dataOut[0] === 0n ? (dataPath ?? "") : new CString(Number(dataOut[0]) as Pointer).toString();

  // One callback for the library's lifetime: espeak keeps a single global pointer to it, so a
  // per-call JSCallback would leak trampolines or leave espeak holding a freed one.
  let sink: Int16Array[] | undefined;
  const callback = new JSCallback(
    (wav: Pointer | null, count: number): number => {
      if (wav !== null && count > 0 && sink !== undefined)
        sink.push(new Int16Array(toArrayBuffer(wav, 0, count * 2)).slice());
      return 0;
    },
    { args: ["ptr", "i32", "ptr"], returns: "i32" },
  );
  symbols.espeak_SetSynthCallback(callback.ptr);
  let currentVoice = "en";

  /** Selects a voice ("ar", "en-us", "ar+f2"), skipping the reload when it is already current. */
  const setVoice = (name: string): void => {
    if (name === currentVoice) return;
    const status = symbols.espeak_SetVoiceByName(cstring(name));
    if (status !== EE_OK) {
      currentVoice = ""; // unknown what espeak kept: select again next time
      throw new UnknownVoiceError(`espeak-ng has no voice "${name}" (status ${status})`);
    }
    currentVoice = name;
  };

  return {
    info: { sampleRate, version, libraryPath, dataPath: reportedData },
    phonemize(sentences, voice) {
      setVoice(voice);
      return sentences.map((sentence) => sentencePhonemes(symbols, sentence)).filter((phonemes) => phonemes.length > 0);
    },
    synthesize(text, settings) {
      setVoice(settings.voice);
      symbols.espeak_SetParameter(RATE, settings.rate, 0);
      symbols.espeak_SetParameter(PITCH, settings.pitch, 0);
      symbols.espeak_SetParameter(RANGE, settings.range, 0);
      // espeak in AUDIO_OUTPUT_SYNCHRONOUS mode calls back with each chunk before espeak_Synth returns.
      const chunks: Int16Array[] = [];
      const input = cstring(text);
      sink = chunks;
      let status: number;
      try {
        status = symbols.espeak_Synth(input, input.byteLength, 0, POS_CHARACTER, 0, CHARS_UTF8, null, null);
      } finally {
        sink = undefined;
      }
      if (status !== 0) throw new Error(`espeak_Synth failed with status ${status}`);
      return concatInt16(chunks);
    },
    close() {
      symbols.espeak_Terminate();
      callback.close();
      library.close();
    },
  };
}
