/**
 * FLAC through Debian's libFLAC (libflac12) with bun:ffi: 16-bit mono at compression level 5.
 * libFLAC hands its output to a write callback; with no seek callback it cannot go back to fill
 * in STREAMINFO at the end, so a buffered encode tells it the exact sample count up front and a
 * stream leaves it 0 ("unknown"), as ffmpeg writing to a pipe did.
 */
import { CString, JSCallback, read, toArrayBuffer, type Pointer } from "bun:ffi";
import { concatBytes } from "../concat.ts";
import type { CodecLibraryStatus, PcmEncoder } from "./encoder.ts";
import { openCodecLibrary, type Opened } from "./native-library.ts";

const SYMBOLS = {
  FLAC__stream_encoder_new: { args: [], returns: "ptr" },
  FLAC__stream_encoder_set_channels: { args: ["ptr", "u32"], returns: "i32" },
  FLAC__stream_encoder_set_bits_per_sample: { args: ["ptr", "u32"], returns: "i32" },
  FLAC__stream_encoder_set_sample_rate: { args: ["ptr", "u32"], returns: "i32" },
  FLAC__stream_encoder_set_compression_level: { args: ["ptr", "u32"], returns: "i32" },
  FLAC__stream_encoder_set_total_samples_estimate: { args: ["ptr", "u64"], returns: "i32" },
  FLAC__stream_encoder_init_stream: { args: ["ptr", "function", "ptr", "ptr", "ptr", "ptr"], returns: "i32" },
  FLAC__stream_encoder_process_interleaved: { args: ["ptr", "ptr", "u32"], returns: "i32" },
  FLAC__stream_encoder_finish: { args: ["ptr"], returns: "i32" },
  FLAC__stream_encoder_delete: { args: ["ptr"], returns: "void" },
  // A data symbol (const char *), never called: only its address is read.
  FLAC__VERSION_STRING: { args: [], returns: "ptr" },
} as const;

const COMPRESSION_LEVEL = 5;
/** FLAC__STREAM_ENCODER_INIT_STATUS_OK and FLAC__STREAM_ENCODER_WRITE_STATUS_OK. */
const OK = 0;

let opened: Opened<typeof SYMBOLS> | undefined;
const flac = (): Opened<typeof SYMBOLS> => (opened ??= openCodecLibrary("libFLAC.so.12", "SAWT_FLAC_LIB", SYMBOLS));

/**
 * Where the one write callback puts bytes. libFLAC calls it synchronously inside init, process
 * and finish, all on this thread, so one sink set around each call is enough (and one callback
 * for the process, instead of compiling a trampoline per encode).
 */
let sink: Uint8Array[] | undefined;
let writeCallback: JSCallback | undefined;
const onWrite = (): JSCallback =>
  (writeCallback ??= new JSCallback(
    (_encoder: Pointer, buffer: Pointer, bytes: number): number => {
      if (sink !== undefined && bytes > 0) sink.push(new Uint8Array(toArrayBuffer(buffer, 0, Number(bytes))).slice());
      return OK;
    },
    { args: ["ptr", "ptr", "usize", "u32", "u32", "ptr"], returns: "i32" },
  ));

/** Whether libFLAC can be used, with its path and version. */
export function flacStatus(): CodecLibraryStatus {
  const lib = flac();
  if (!lib.ok) return lib;
  const address = (lib.library.symbols.FLAC__VERSION_STRING as unknown as { ptr: Pointer }).ptr;
  const text = read.ptr(address);
  return {
    ok: true,
    path: lib.path,
    version: text === 0 ? "unknown" : `libFLAC ${new CString(text as Pointer).toString()}`,
  };
}

/**
 * A FLAC encoder at `sampleRate`; `totalSamples`, when known, goes into STREAMINFO. Throws when
 * libFLAC is missing or refuses the settings.
 */
export function createFlacEncoder(sampleRate: number, totalSamples?: number): PcmEncoder {
  const lib = flac();
  if (!lib.ok) throw new Error(lib.reason);
  const fns = lib.library.symbols;
  let state = fns.FLAC__stream_encoder_new() as Pointer | null;
  if (state === null) throw new Error("FLAC__stream_encoder_new failed");
  const close = (): void => {
    if (state !== null) fns.FLAC__stream_encoder_delete(state);
    state = null;
  };
  const collect = (call: () => number | boolean, what: string): Uint8Array => {
    const pieces: Uint8Array[] = [];
    sink = pieces;
    let status: number | boolean;
    try {
      status = call();
    } finally {
      sink = undefined;
    }
    if (!status && what !== "init") throw new Error(`${what} failed`);
    if (what === "init" && status !== OK)
      throw new Error(`FLAC__stream_encoder_init_stream failed (${Number(status)})`);
    return concatBytes(pieces);
  };
  fns.FLAC__stream_encoder_set_channels(state, 1);
  fns.FLAC__stream_encoder_set_bits_per_sample(state, 16);
  fns.FLAC__stream_encoder_set_sample_rate(state, sampleRate);
  fns.FLAC__stream_encoder_set_compression_level(state, COMPRESSION_LEVEL);
  if (totalSamples !== undefined) fns.FLAC__stream_encoder_set_total_samples_estimate(state, BigInt(totalSamples));
  let header: Uint8Array;
  try {
    const started = state;
    header = collect(
      () => fns.FLAC__stream_encoder_init_stream(started, onWrite().ptr, null, null, null, null),
      "init",
    );
  } catch (error) {
    close();
    throw error;
  }
  const live = (): Pointer => {
    if (state === null) throw new Error("the flac encoder is closed");
    return state;
  };
  let pending: Uint8Array | undefined = header;
  const withHeader = (bytes: Uint8Array): Uint8Array => {
    const out = pending === undefined ? bytes : concatBytes([pending, bytes]);
    pending = undefined;
    return out;
  };
  return {
    encode(samples) {
      const wide = Int32Array.from(samples);
      const encoder = live();
      return withHeader(
        collect(() => fns.FLAC__stream_encoder_process_interleaved(encoder, wide, wide.length) !== 0, "FLAC process"),
      );
    },
    finish() {
      const encoder = live();
      return withHeader(collect(() => fns.FLAC__stream_encoder_finish(encoder) !== 0, "FLAC finish"));
    },
    close,
  };
}
