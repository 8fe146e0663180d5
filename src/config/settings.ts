/**
 * Every operator setting, declared once: its TOML place (section and key), its valibot schema
 * (type, bounds, choices, item form), default and meaning. The loader and its type
 * ({@link Settings}), the env overrides, the TOML template (installer/config-template.ts) and the
 * README's configuration table (installer/settings-reference.ts, checked by a test) all read this
 * table, so a setting cannot exist in one and not the others.
 *
 * Env rule: `SAWT_<KEY>` for the `server` and `paths` sections, `SAWT_<SECTION>_<KEY>` otherwise
 * (e.g. `server.http_port` → `SAWT_HTTP_PORT`, `tts.max_queue` → `SAWT_TTS_MAX_QUEUE`).
 */
import type * as v from "valibot";
import { CALL_SETTINGS } from "./calls-settings.ts";
import { choice, flag, int, list, patterns, port, type Setting, text } from "./setting.ts";

export type { Setting, SettingType } from "./setting.ts";

const MB = 1024 * 1024;

/** All settings by section and key, in documentation order. */
export const SETTING_TABLE = {
  server: {
    host: text("127.0.0.1", "Address the HTTP and gRPC ports bind to."),
    http_port: port(8080, "REST and WebSocket port; 0 picks a free port."),
    grpc_asr_port: port(9101, "gRPC ASR port; 0 picks a free port."),
    grpc_tts_port: port(9102, "gRPC TTS port; 0 picks a free port."),
    drain_timeout_ms: int(30000, 0, 600000, "On SIGTERM, how long in-flight and queued work may finish before exit."),
    drain_grace_ms: int(
      0,
      0,
      60000,
      "On SIGTERM, how long /ready answers 503 while requests are still served, before the drain starts: behind a load balancer, longer than its health checks take to see a box go.",
      { see: { title: "scale out", href: "docs/scale-out.md" } },
    ),
    max_websockets: int(
      1000,
      1,
      1000000,
      "WebSocket connections open at once over every WebSocket door (TTS, realtime, jambonz, …); more upgrades get 503 with Retry-After. Live transcription sessions are bounded apart by streaming.max_streams.",
    ),
    max_json_bytes: int(
      1 * MB,
      1024,
      16 * MB,
      "Largest JSON request body; reading stops there. A speech body over it is 400 `Text exceeds maximum length…` (the spec's answer to long text), any other 413.",
    ),
  },
  paths: {
    data_dir: text("./data", "State: SQLite database, cloned-voice samples, temporary uploads."),
    models_dir: text("./models", "Model packs, one folder each (see models/README.md)."),
  },
  log: {
    level: choice(["debug", "info", "warn", "error"], "info", "Minimum log level."),
  },
  auth: {
    default_rpm: int(60, 1, 1000000, "Requests per minute for keys created without --rpm."),
  },
  runtime: {
    provider: choice(
      ["auto", "cpu", "cuda"],
      "auto",
      "ONNX execution provider: auto uses CUDA when an NVIDIA GPU and the provider libraries are present.",
    ),
    intra_op_threads: int(
      0,
      0,
      256,
      "Intra-op threads a model may use in all; 0 sizes to the machine. A pack serving N runs at once splits them: N sessions of threads ÷ N each, plus one with all of them for a run alone.",
    ),
    pack_sessions: list(
      /^[^=\s/]+=([1-9]|1[0-6])$/,
      "pack=N with N from 1 to 16, e.g. whisper-large=1",
      "Parallel sessions for named packs as `pack=N` (e.g. `whisper-large=1` to save memory); other voices use `tts.concurrency`, other recognisers `asr.concurrency`.",
      { see: { title: "session pools", href: "docs/models.md#session-pools" } },
    ),
    lift_convolutions: flag(
      true,
      "Run a VITS voice's HiFi-GAN decoder with its 1-D convolutions rewritten as 2-D in sessions of one thread, where onnxruntime's faster kernels then apply (same audio within float rounding); false runs every model as written.",
      { see: { title: "lifted convolutions", href: "docs/models.md#session-pools" } },
    ),
    metrics_open: flag(false, "Serve /metrics without an admin key."),
  },
  tts: {
    strict_voices: flag(false, "Unknown voices are 400 instead of falling back to Yara (D1)."),
    tashkeel: choice(
      ["auto", "off"],
      "auto",
      "Diacritise Arabic before espeak-ng and Arabic espeak-phoneme voices: auto uses a tashkeel/ pack, else the built-in libtashkeel model; off reads text as written.",
    ),
    concurrency: int(
      2,
      1,
      256,
      "Syntheses running at once; also the parallel sessions each voice pack opens (see runtime.pack_sessions).",
    ),
    max_queue: int(32, 0, 100000, "Requests waiting beyond the running ones; more get 503."),
    queue_timeout_ms: int(30000, 1, 600000, "Longest wait in the queue; longer gets 504."),
    max_input_chars: int(51200, 1, 51200, "Longest input in Unicode code points."),
    blocked_patterns: patterns(
      "Extra regular expressions (case-insensitive) whose match rejects input with 400; the built-in list always applies.",
    ),
    stream_max_contexts: int(
      5,
      1,
      64,
      "Contexts open at once on one speech stream (a TTS WebSocket, gRPC StreamSynthesize call or MRCP session); more are refused in the door's error shape.",
      { see: { title: "voice bots", href: "docs/voice-bots.md#limits" } },
    ),
    stream_idle_s: int(
      180,
      1,
      3600,
      "A speech stream that receives no text or message and speaks nothing this long is closed.",
    ),
    stream_max_queued_chars: int(
      51200,
      100,
      1000000,
      "Text a speech context may hold not yet spoken, in code points; more is refused until its audio catches up.",
    ),
  },
  asr: {
    concurrency: int(
      2,
      1,
      256,
      "Transcriptions running at once; also the parallel sessions each recogniser pack opens (see runtime.pack_sessions).",
    ),
    max_queue: int(32, 0, 100000, "Requests waiting beyond the running ones; more get 503."),
    queue_timeout_ms: int(60000, 1, 600000, "Longest wait in the queue; longer gets 504."),
    max_upload_mb: int(100, 1, 100, "Largest upload in MB; larger gets 413 while streaming."),
    max_duration_s: int(3600, 1, 86400, "Longest audio decoded; the rest is ignored."),
    request_pcm_s: int(
      40,
      32,
      600,
      "Seconds of decoded audio one transcription may hold in memory (reserved from asr.pcm_budget_mb); uploads are decoded to disk and read in 1 s chunks.",
    ),
    pcm_budget_mb: int(
      256,
      16,
      65536,
      "Decoded audio all transcriptions and streams may hold at once, in MiB; a request that would exceed it gets 503.",
    ),
    ffmpeg_timeout_ms: int(120000, 1000, 3600000, "Wall-clock limit of one ffmpeg run."),
    ffmpeg_concurrency: int(2, 1, 64, "ffmpeg processes at once."),
    pack: text(
      "",
      "Recogniser pack (folder name) used unless a dialect route applies; empty picks the first recogniser pack by name.",
    ),
    builtin: flag(
      true,
      "The built-in English recogniser (Moonshine tiny, embedded in the binary): serves `language=en`, and requests without a language while no recogniser pack is installed. Off: with no pack installed ASR is disabled.",
    ),
    dialect_packs: list(
      /^[A-Za-z][A-Za-z0-9_-]*=[^=\s/]+$/,
      "dialect=pack, e.g. ar-egyptian=whisper-egy",
      "Dialect-specific recogniser packs as `dialect=pack` (e.g. `ar-egyptian=whisper-egy`): used when the dialect-id pack detects that dialect.",
    ),
    dialect_seconds: int(
      30,
      1,
      600,
      "Seconds of speech (across segments) the call's dialect is decided over (mean of the dialect-id logits).",
    ),
    split_channels: choice(
      ["off", "auto"] as const,
      "off",
      "Uploads without a `channels` field: `off` transcribes the mono mix (OpenAI's answer); `auto` transcribes each channel of a 2-channel file apart, labelled by speaker (docs/transcripts.md).",
    ),
    speakers: list(
      /^[\p{L}\p{N}_.-]{1,32}$/u,
      "a label such as agent",
      'Default speaker labels by channel (e.g. `["agent", "customer"]`) when a request names none; unnamed channels are `ch0`, `ch1`, ….',
    ),
    digits: choice(
      ["western", "arabic-indic"] as const,
      "western",
      "Digits Arabic written forms use (inverse text normalisation, `POST /v1/asr/format`): `western` (0-9) or `arabic-indic` (٠-٩, with ٫ ٬ ٪).",
    ),
    redact: list(
      /^(pci|pii|card|cvv|expiry|iban|national_id|phone|email)$/,
      "pci, pii or a type such as card",
      "Redaction every transcript gets on every door (e.g. `[\"pci\"]`), whatever the request asks; a request's `redact` adds to it. Sawt has no per-key settings, so this is the server's floor (docs/transcripts.md).",
      { see: { title: "redaction", href: "docs/transcripts.md#redaction-on-every-door" } },
    ),
  },
  streaming: {
    max_session_s: int(
      3600,
      1,
      86400,
      "Longest live transcription session on any live door (gRPC StreamingRecognize, realtime WebSocket, jambonz), in audio and in wall-clock time; longer is ended with an error.",
    ),
    idle_timeout_s: int(30, 1, 3600, "A live session that receives no audio or event this long is closed."),
    max_streams: int(
      64,
      1,
      100000,
      "Live transcription streams open at once on the ASR engine (realtime, jambonz, gRPC StreamingRecognize); more are refused with the 503 body.",
    ),
    partial_interval_ms: int(
      1000,
      0,
      60000,
      "Audio between two re-decodes of an open utterance (partial results) on the realtime and jambonz doors (gRPC interim results come every second); 0 sends finals only.",
    ),
    max_buffer_s: int(
      20,
      1,
      600,
      "Audio a live session may hold unprocessed (a client sending faster than real time); more is refused.",
    ),
  },
  jobs: {
    box_id: text(
      "",
      "This box's name in job ids (`job_<box>_…`), which the load balancer routes a job's URLs by: lower-case letters, digits and `-`, at most 32; empty uses the host name.",
      { see: { title: "jobs on many boxes", href: "docs/scale-out.md#transcription-jobs" } },
    ),
    source_dirs: list(
      /^\/.*/,
      "an absolute folder, e.g. /mnt/recordings",
      "Folders a job may name files in (`paths`); paths are resolved (symlinks too) and must stay inside. Empty: jobs take uploads only.",
      { see: { title: "transcription jobs", href: "docs/jobs.md" } },
    ),
    callback_hosts: list(
      /^[A-Za-z0-9.-]+(:\d{1,5})?$/,
      "host or host:port, e.g. qa.example.lan:8443",
      "Hosts a job's `callback_url` may name (webhooks); empty refuses every callback URL, so nothing leaves the box.",
    ),
    webhook_secret: text(
      "",
      "Server-wide secret (at least 32 characters) that signs webhooks (`Sawt-Signature: t=…,v1=HMAC-SHA256`); empty refuses callback URLs.",
    ),
    max_slots: int(
      0,
      0,
      256,
      "Files the jobs worker transcribes at once (it is paused while live work runs); 0 means all asr.concurrency slots but one (at least one).",
    ),
    worker_idle_ms: int(
      30000,
      100,
      86_400_000,
      "How long the jobs worker process (job files run there, at background CPU priority) stays with nothing to do before it leaves and frees its models.",
    ),
    max_files: int(1000, 1, 100000, "Files one job may hold; more is refused with 413."),
    max_upload_mb: int(
      2000,
      1,
      100000,
      "Largest multipart upload of one job (all files), in MB; larger gets 413 while streaming.",
    ),
    retention_days: int(7, 1, 3650, "Days a finished job's results are kept; a sweeper then deletes them."),
    webhook_retry_ms: int(
      30000,
      10,
      3600000,
      "Wait before the first webhook retry; each next one doubles it (at most an hour apart).",
    ),
    webhook_retry_hours: int(24, 1, 720, "How long a webhook is retried before it is given up (logged and counted)."),
    webhook_inline_chars: int(
      4096,
      0,
      1000000,
      "A file webhook carries the transcript text when it is at most this long; 0 sends the result URL only.",
    ),
  },
  mrcp: {
    enabled: flag(
      false,
      "Serve MRCPv2 (SIP + MRCP + RTP) for IVR platforms. Off by default: the door opens UDP and TCP ports and needs `mrcp.peers` to map IVRs to API keys.",
      { see: { title: "MRCP", href: "docs/mrcp.md" } },
    ),
    sip_port: port(
      8060,
      "SIP port of the MRCPv2 door (UDP and TCP, bound to server.host); 0 picks a free port, printed as `sip` in the listening line.",
    ),
    mrcp_port: port(
      1544,
      "TCP port of the MRCPv2 control channels (sent to clients in the SDP answer); 0 picks a free port, printed as `mrcp` in the listening line.",
    ),
    advertised_address: text(
      "",
      "Address put in the SDP answer (`c=`, `o=`) and the SIP Contact, where IVRs reach this box's SIP, MRCP and RTP ports (behind NAT: the public one). Empty: server.host, or when that is 0.0.0.0 or ::, the machine's first non-internal IPv4 address.",
      { see: { title: "MRCP", href: "docs/mrcp.md" } },
    ),
    allowed_networks: {
      ...list(
        /^[0-9a-fA-F.:]+(?:\/\d{1,3})?$/,
        "an address or CIDR block, e.g. 10.0.0.0/8",
        "Networks whose SIP and MRCP packets are served; anything else gets SIP 403 (loopback only by default).",
      ),
      default: ["127.0.0.0/8", "::1/128"] as string[],
    },
    peers: list(
      /^[^=\s]+=[a-z2-7]{12}$/,
      "<network or Request-URI user>=<API key id>, e.g. 10.1.2.0/24=abcdefghijkl",
      "Which API key an IVR's sessions use (rate limit, lexicon, cloned voices): `10.1.2.0/24=<key id>` by source network (longest prefix wins) or `ivr1=<key id>` by the Request-URI user (checked first). A peer matching none gets SIP 403.",
    ),
    rtp_port_min: port(20000, "Lowest UDP port for RTP (one even port per audio stream)."),
    rtp_port_max: port(20999, "Highest UDP port for RTP; the range bounds concurrent audio streams too."),
    max_sessions: int(
      100,
      1,
      100000,
      "MRCP sessions open at once; more INVITEs get SIP 503 with Retry-After (a balancer tries another box).",
    ),
    session_timeout_s: int(3600, 1, 86400, "Longest MRCP session; it is then ended with a BYE and its ports freed."),
    idle_timeout_s: int(
      120,
      1,
      86400,
      "An MRCP session with no MRCP message, no RTP packet and no request in progress this long is ended (an IVR that vanished never leaks a session).",
    ),
    max_connections: int(
      0,
      0,
      1000000,
      "TCP connections open at once on the SIP port and, apart, on the MRCP port; more are closed at accept and counted. 0: twice mrcp.max_sessions, at least 32 (a session's two channels may each have a connection).",
      { see: { title: "MRCP", href: "docs/mrcp.md#limits-and-metrics" } },
    ),
    identify_timeout_s: int(
      10,
      1,
      3600,
      "A TCP connection to the SIP or MRCP port that has not identified itself this long is closed: on SIP, by a first whole message; on MRCP, by a request naming a channel of an open session (as many quiet connections as open sessions still wait for are kept).",
      { see: { title: "MRCP", href: "docs/mrcp.md#limits-and-metrics" } },
    ),
    max_grammar_bytes: int(
      65536,
      1024,
      1048576,
      "Largest grammar (inline or DEFINE-GRAMMAR); larger ones fail with grammar-load-failure.",
    ),
  },
  calls: CALL_SETTINGS,
  cluster: {
    secret: text(
      "",
      "Shared secret (at least 32 characters) that signs and checks `sawt keys|voices export|import` files; the same on every box of a cluster. Empty: export and import refuse to run.",
    ),
  },
} as const satisfies Record<string, Record<string, Setting>>;

type Table = typeof SETTING_TABLE;

/** The validated settings, typed from the table: section → key → the schema's output. */
export type Settings = {
  readonly [S in keyof Table]: {
    [K in keyof Table[S]]: Table[S][K] extends Setting<infer Schema> ? v.InferOutput<Schema> : never;
  };
};

/** One setting with its place. */
export interface SettingSpec extends Setting {
  readonly section: string;
  readonly key: string;
}

/** All settings as a list, in documentation order. */
export const SETTINGS: readonly SettingSpec[] = Object.entries(SETTING_TABLE).flatMap(([section, keys]) =>
  Object.entries(keys as Record<string, Setting>).map(([key, setting]) => ({ section, key, ...setting })),
);

/** The env variable that overrides a setting. */
export function envName(spec: Pick<SettingSpec, "section" | "key">): string {
  const unprefixed = spec.section === "server" || spec.section === "paths";
  return `SAWT_${unprefixed ? "" : spec.section.toUpperCase() + "_"}${spec.key.toUpperCase()}`;
}
