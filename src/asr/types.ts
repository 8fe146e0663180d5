/** The ASR contract lives in src/core/asr.ts; this module re-exports it for the ASR feature's own files. */
export * from "../core/asr.ts";
