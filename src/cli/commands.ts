/**
 * Every `sawt` command, in the order `sawt --help` lists them: the service, key and health
 * administration, diagnostics and model packs, then the features' offline commands (`tts`, `asr`)
 * and the cluster's `voices`. Each module is imported when its command runs (see CommandEntry).
 */
import type { CommandEntry } from "./command.ts";

/** The commands of this build. */
export const COMMANDS: readonly CommandEntry[] = [
  {
    name: "serve",
    summary: "run the service (REST/WebSocket, gRPC ASR and TTS)",
    load: async () => (await import("./serve.ts")).serveCommand,
  },
  {
    name: "keys",
    summary: "create, list, revoke, export and import API keys",
    load: async () => (await import("./keys.ts")).keysCommand,
  },
  {
    name: "health",
    summary: "check a running service (exit 0 healthy, 1 not)",
    load: async () => (await import("./health.ts")).healthCommand,
  },
  {
    name: "doctor",
    summary: "check GPU, CUDA provider, onnxruntime, ffmpeg, espeak-ng, codec libraries, models, ports, disk",
    load: async () => (await import("./doctor.ts")).doctorCommand,
  },
  {
    name: "models",
    summary: "install, remove, list and verify model packs",
    load: async () => (await import("./models.ts")).modelsCommand,
  },
  {
    name: "tts",
    summary: "synthesise speech offline, without a server",
    load: async () => (await import("./tts.ts")).ttsCommand,
  },
  {
    name: "asr",
    summary: "transcribe an audio file offline (no server)",
    load: async () => (await import("./asr.ts")).asrCommand,
  },
  {
    name: "jobs",
    summary: "submit, follow, fetch and cancel transcription jobs on a running service",
    load: async () => (await import("./jobs.ts")).jobsCommand,
  },
  {
    name: "voices",
    summary: "export and import cloned voices (shared between boxes)",
    load: async () => (await import("./voices.ts")).voicesCommand,
  },
];
