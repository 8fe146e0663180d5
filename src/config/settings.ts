/**
 * Every operator setting, declared once: its TOML place, type, default, bounds and meaning.
 * The loader, the env overrides, `sawt config` and the README's configuration reference all read
 * this table, so a setting cannot exist in one and not the others.
 *
 * Env rule: `SAWT_<KEY>` for the `server` and `paths` sections, `SAWT_<SECTION>_<KEY>` otherwise
 * (e.g. `server.http_port` → `SAWT_HTTP_PORT`, `tts.max_queue` → `SAWT_TTS_MAX_QUEUE`).
 */

/** Value types a setting may have. */
export type SettingType = "string" | "int" | "number" | "bool" | "port" | "string[]";

/** One setting's declaration. */
export interface SettingSpec {
  readonly section: string;
  readonly key: string;
  readonly type: SettingType;
  readonly default: string | number | boolean | readonly string[];
  readonly min?: number;
  readonly max?: number;
  /** Allowed values for a string setting. */
  readonly oneOf?: readonly string[];
  /** Form each item of a string[] setting must have; without it the items are regular expressions. */
  readonly itemPattern?: { readonly regex: RegExp; readonly hint: string };
  readonly doc: string;
}

const MB = 1024 * 1024;

/** All settings, in documentation order. */
export const SETTINGS: readonly SettingSpec[] = [
  {
    section: "server",
    key: "host",
    type: "string",
    default: "127.0.0.1",
    doc: "Address the HTTP and gRPC ports bind to.",
  },
  {
    section: "server",
    key: "http_port",
    type: "port",
    default: 8080,
    doc: "REST and WebSocket port; 0 picks a free port.",
  },
  { section: "server", key: "grpc_asr_port", type: "port", default: 9101, doc: "gRPC ASR port; 0 picks a free port." },
  { section: "server", key: "grpc_tts_port", type: "port", default: 9102, doc: "gRPC TTS port; 0 picks a free port." },
  {
    section: "server",
    key: "drain_timeout_ms",
    type: "int",
    default: 30000,
    min: 0,
    max: 600000,
    doc: "On SIGTERM, how long in-flight and queued work may finish before exit.",
  },
  {
    section: "server",
    key: "drain_grace_ms",
    type: "int",
    default: 0,
    min: 0,
    max: 60000,
    doc: "On SIGTERM, how long /ready answers 503 while requests are still served, before the drain starts: behind a load balancer, longer than its health checks take to see a box go (docs/scale-out.md).",
  },
  {
    section: "server",
    key: "max_json_bytes",
    type: "int",
    default: 1 * MB,
    min: 1024,
    max: 16 * MB,
    doc: "Largest JSON request body; reading stops there. A speech body over it is 400 `Text exceeds maximum length…` (the spec's answer to long text), any other 413.",
  },
  {
    section: "paths",
    key: "data_dir",
    type: "string",
    default: "./data",
    doc: "State: SQLite database, cloned-voice samples, temporary uploads.",
  },
  {
    section: "paths",
    key: "models_dir",
    type: "string",
    default: "./models",
    doc: "Model packs, one folder each (see models/README.md).",
  },
  {
    section: "log",
    key: "level",
    type: "string",
    default: "info",
    oneOf: ["debug", "info", "warn", "error"],
    doc: "Minimum log level.",
  },
  {
    section: "auth",
    key: "default_rpm",
    type: "int",
    default: 60,
    min: 1,
    max: 1_000_000,
    doc: "Requests per minute for keys created without --rpm.",
  },
  {
    section: "runtime",
    key: "provider",
    type: "string",
    default: "auto",
    oneOf: ["auto", "cpu", "cuda"],
    doc: "ONNX execution provider: auto uses CUDA when an NVIDIA GPU and the provider libraries are present.",
  },
  {
    section: "runtime",
    key: "intra_op_threads",
    type: "int",
    default: 0,
    min: 0,
    max: 256,
    doc: "Intra-op threads a model may use in all; 0 sizes to the machine. A pack serving N runs at once splits them: N sessions of threads ÷ N each, plus one with all of them for a run alone.",
  },
  {
    section: "runtime",
    key: "pack_sessions",
    type: "string[]",
    default: [],
    itemPattern: { regex: /^[^=\s/]+=([1-9]|1[0-6])$/, hint: "pack=N with N from 1 to 16, e.g. whisper-large=1" },
    doc: "Parallel sessions for named packs as `pack=N` (e.g. `whisper-large=1` to save memory); other voices use `tts.concurrency`, other recognisers `asr.concurrency`.",
  },
  {
    section: "runtime",
    key: "lift_convolutions",
    type: "bool",
    default: true,
    doc: "Run a VITS voice's HiFi-GAN decoder with its 1-D convolutions rewritten as 2-D in sessions of one thread, where onnxruntime's faster kernels then apply (same audio within float rounding); false runs every model as written.",
  },
  {
    section: "runtime",
    key: "metrics_open",
    type: "bool",
    default: false,
    doc: "Serve /metrics without an admin key.",
  },
  {
    section: "tts",
    key: "strict_voices",
    type: "bool",
    default: false,
    doc: "Unknown voices are 400 instead of falling back to Yara (D1).",
  },
  {
    section: "tts",
    key: "tashkeel",
    type: "string",
    default: "auto",
    oneOf: ["auto", "off"],
    doc: "Diacritise Arabic before espeak-ng and Arabic espeak-phoneme voices: auto uses a tashkeel/ pack, else the built-in libtashkeel model; off reads text as written.",
  },
  {
    section: "tts",
    key: "concurrency",
    type: "int",
    default: 2,
    min: 1,
    max: 256,
    doc: "Syntheses running at once; also the parallel sessions each voice pack opens (see runtime.pack_sessions).",
  },
  {
    section: "tts",
    key: "max_queue",
    type: "int",
    default: 32,
    min: 0,
    max: 100000,
    doc: "Requests waiting beyond the running ones; more get 503.",
  },
  {
    section: "tts",
    key: "queue_timeout_ms",
    type: "int",
    default: 30000,
    min: 1,
    max: 600000,
    doc: "Longest wait in the queue; longer gets 504.",
  },
  {
    section: "tts",
    key: "max_input_chars",
    type: "int",
    default: 51200,
    min: 1,
    max: 51200,
    doc: "Longest input in Unicode code points.",
  },
  {
    section: "tts",
    key: "blocked_patterns",
    type: "string[]",
    default: [],
    doc: "Extra regular expressions (case-insensitive) whose match rejects input with 400; the built-in list always applies.",
  },
  {
    section: "asr",
    key: "concurrency",
    type: "int",
    default: 2,
    min: 1,
    max: 256,
    doc: "Transcriptions running at once; also the parallel sessions each recogniser pack opens (see runtime.pack_sessions).",
  },
  {
    section: "asr",
    key: "max_queue",
    type: "int",
    default: 32,
    min: 0,
    max: 100000,
    doc: "Requests waiting beyond the running ones; more get 503.",
  },
  {
    section: "asr",
    key: "queue_timeout_ms",
    type: "int",
    default: 60000,
    min: 1,
    max: 600000,
    doc: "Longest wait in the queue; longer gets 504.",
  },
  {
    section: "asr",
    key: "max_upload_mb",
    type: "int",
    default: 100,
    min: 1,
    max: 100,
    doc: "Largest upload in MB; larger gets 413 while streaming.",
  },
  {
    section: "asr",
    key: "max_duration_s",
    type: "int",
    default: 3600,
    min: 1,
    max: 86400,
    doc: "Longest audio decoded; the rest is ignored.",
  },
  {
    section: "asr",
    key: "request_pcm_s",
    type: "int",
    default: 40,
    min: 32,
    max: 600,
    doc: "Seconds of decoded audio one transcription may hold in memory (reserved from asr.pcm_budget_mb); uploads are decoded to disk and read in 1 s chunks.",
  },
  {
    section: "asr",
    key: "pcm_budget_mb",
    type: "int",
    default: 256,
    min: 16,
    max: 65536,
    doc: "Decoded audio all transcriptions and streams may hold at once, in MiB; a request that would exceed it gets 503.",
  },
  {
    section: "asr",
    key: "ffmpeg_timeout_ms",
    type: "int",
    default: 120000,
    min: 1000,
    max: 3600000,
    doc: "Wall-clock limit of one ffmpeg run.",
  },
  {
    section: "asr",
    key: "ffmpeg_concurrency",
    type: "int",
    default: 2,
    min: 1,
    max: 64,
    doc: "ffmpeg processes at once.",
  },
  {
    section: "asr",
    key: "pack",
    type: "string",
    default: "",
    doc: "Recogniser pack (folder name) used unless a dialect route applies; empty picks the first Whisper or NeMo CTC pack by name.",
  },
  {
    section: "asr",
    key: "dialect_packs",
    type: "string[]",
    default: [],
    itemPattern: { regex: /^[A-Za-z][A-Za-z0-9_-]*=[^=\s/]+$/, hint: "dialect=pack, e.g. ar-egyptian=whisper-egy" },
    doc: "Dialect-specific recogniser packs as `dialect=pack` (e.g. `ar-egyptian=whisper-egy`): used when the dialect-id pack detects that dialect.",
  },
  {
    section: "asr",
    key: "dialect_seconds",
    type: "int",
    default: 30,
    min: 1,
    max: 600,
    doc: "Seconds of speech (across segments) the call's dialect is decided over (mean of the dialect-id logits).",
  },
  {
    section: "asr",
    key: "digits",
    type: "string",
    default: "western",
    oneOf: ["western", "arabic-indic"],
    doc: "Digits Arabic written forms use (inverse text normalisation, `POST /v1/asr/format`): `western` (0-9) or `arabic-indic` (٠-٩, with ٫ ٬ ٪).",
  },
  {
    section: "streaming",
    key: "max_session_s",
    type: "int",
    default: 3600,
    min: 1,
    max: 86400,
    doc: "Longest live transcription session (realtime WebSocket, jambonz); longer is ended with an error.",
  },
  {
    section: "streaming",
    key: "idle_timeout_s",
    type: "int",
    default: 30,
    min: 1,
    max: 3600,
    doc: "A live session that receives no audio or event this long is closed.",
  },
  {
    section: "streaming",
    key: "max_streams",
    type: "int",
    default: 64,
    min: 1,
    max: 100000,
    doc: "Live transcription streams open at once on the ASR engine (realtime, jambonz, gRPC StreamingRecognize); more are refused with the 503 body.",
  },
  {
    section: "streaming",
    key: "partial_interval_ms",
    type: "int",
    default: 1000,
    min: 0,
    max: 60000,
    doc: "Audio between two re-decodes of an open utterance (partial results); 0 sends finals only.",
  },
  {
    section: "streaming",
    key: "max_buffer_s",
    type: "int",
    default: 20,
    min: 1,
    max: 600,
    doc: "Audio a live session may hold unprocessed (a client sending faster than real time); more is refused.",
  },
  {
    section: "cluster",
    key: "secret",
    type: "string",
    default: "",
    doc: "Shared secret (at least 32 characters) that signs and checks `sawt keys|voices export|import` files; the same on every box of a cluster. Empty: export and import refuse to run.",
  },
];

/** The env variable that overrides a setting. */
export function envName(spec: Pick<SettingSpec, "section" | "key">): string {
  const unprefixed = spec.section === "server" || spec.section === "paths";
  return `SAWT_${unprefixed ? "" : spec.section.toUpperCase() + "_"}${spec.key.toUpperCase()}`;
}
