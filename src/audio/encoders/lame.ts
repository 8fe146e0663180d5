/**
 * MP3 through Debian's libmp3lame (libmp3lame0) with bun:ffi: constant bit rate, mono, no Xing
 * frame and no ID3 tags, so the bytes can leave as they are made (the same stream ffmpeg's
 * libmp3lame wrapper wrote to a pipe).
 */
import { CString, type Pointer } from "bun:ffi";
import { concatBytes } from "../concat.ts";
import type { CodecLibraryStatus, PcmEncoder } from "./encoder.ts";
import { openCodecLibrary, type Opened } from "./native-library.ts";

const SYMBOLS = {
  lame_init: { args: [], returns: "ptr" },
  lame_set_in_samplerate: { args: ["ptr", "i32"], returns: "i32" },
  lame_set_out_samplerate: { args: ["ptr", "i32"], returns: "i32" },
  lame_set_num_channels: { args: ["ptr", "i32"], returns: "i32" },
  lame_set_mode: { args: ["ptr", "i32"], returns: "i32" },
  lame_set_brate: { args: ["ptr", "i32"], returns: "i32" },
  lame_set_bWriteVbrTag: { args: ["ptr", "i32"], returns: "i32" },
  lame_set_write_id3tag_automatic: { args: ["ptr", "i32"], returns: "void" },
  lame_init_params: { args: ["ptr"], returns: "i32" },
  lame_encode_buffer: { args: ["ptr", "ptr", "ptr", "i32", "ptr", "i32"], returns: "i32" },
  lame_encode_flush: { args: ["ptr", "ptr", "i32"], returns: "i32" },
  lame_close: { args: ["ptr"], returns: "i32" },
  get_lame_version: { args: [], returns: "ptr" },
} as const;

/** MPEG_mode MONO (lame.h). */
const MODE_MONO = 3;
/** Samples handed to lame per call, which bounds the output buffer (lame.h: 1.25 n + 7200). */
const BLOCK = 8192;
const OUTPUT_BYTES = Math.ceil(1.25 * BLOCK) + 7200;

let opened: Opened<typeof SYMBOLS> | undefined;
const lame = (): Opened<typeof SYMBOLS> =>
  (opened ??= openCodecLibrary("libmp3lame.so.0", "SAWT_MP3LAME_LIB", SYMBOLS));

/** Whether libmp3lame can be used, with its path and version. */
export function lameStatus(): CodecLibraryStatus {
  const lib = lame();
  if (!lib.ok) return lib;
  const version = lib.library.symbols.get_lame_version();
  return { ok: true, path: lib.path, version: version === null ? "unknown" : new CString(version).toString() };
}

/** An MP3 encoder at `sampleRate` (an MPEG rate) and `kbps`; throws when libmp3lame is missing or refuses. */
export function createMp3Encoder(sampleRate: number, kbps: number): PcmEncoder {
  const lib = lame();
  if (!lib.ok) throw new Error(lib.reason);
  const fns = lib.library.symbols;
  let state = fns.lame_init() as Pointer | null;
  if (state === null) throw new Error("lame_init failed");
  const output = new Uint8Array(OUTPUT_BYTES);
  const close = (): void => {
    if (state !== null) fns.lame_close(state);
    state = null;
  };
  fns.lame_set_in_samplerate(state, sampleRate);
  fns.lame_set_out_samplerate(state, sampleRate);
  fns.lame_set_num_channels(state, 1);
  fns.lame_set_mode(state, MODE_MONO);
  fns.lame_set_brate(state, kbps);
  // Both would need a seek back to the start (Xing) or add bytes nobody asked for (ID3).
  fns.lame_set_bWriteVbrTag(state, 0);
  fns.lame_set_write_id3tag_automatic(state, 0);
  const status = fns.lame_init_params(state);
  if (status < 0) {
    close();
    throw new Error(`lame_init_params failed (${status})`);
  }
  const live = (): Pointer => {
    if (state === null) throw new Error("the mp3 encoder is closed");
    return state;
  };
  const checked = (written: number, what: string): Uint8Array => {
    if (written < 0) throw new Error(`${what} failed (${written})`);
    return output.slice(0, written);
  };
  return {
    encode(samples) {
      const pieces: Uint8Array[] = [];
      for (let at = 0; at < samples.length; at += BLOCK) {
        const block = samples.subarray(at, at + BLOCK);
        pieces.push(
          checked(
            fns.lame_encode_buffer(live(), block, null, block.length, output, output.length),
            "lame_encode_buffer",
          ),
        );
      }
      return concatBytes(pieces);
    },
    finish() {
      return checked(fns.lame_encode_flush(live(), output, output.length), "lame_encode_flush");
    },
    close,
  };
}
