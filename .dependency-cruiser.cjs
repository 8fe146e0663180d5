/**
 * Layering rules for src/, checked by `bun run lint:deps` and by test/tooling/layering.test.ts (so
 * `npm test` fails on a wrong import). Tests (*.test.ts) are not checked: they may import anything.
 *
 * Layers (decisions §7):
 * - src/app       the only wiring: may import anything. Only src/cli and src/main.ts import it.
 * - src/core      context type and engine contracts.
 * - src/edge      what every front door shares (auth, request id, readiness gate, call scope).
 * - transports    the front doors, see below. They never import each other.
 * - engines       everything else: feature folders (src/tts, src/asr, src/voices, ...) minus their
 *                 transport adapters, and the kits (src/audio, src/media, src/onnx, src/serving,
 *                 src/models, src/store, src/config, src/errors, src/log, src/text, src/core),
 *                 src/doctor ...
 *                 A new folder is an engine by default.
 *
 * Features and kits (the feature-isolation rules):
 * - a FEATURE is any folder of src/ that is not in LAYERS or KITS below (src/tts, src/asr,
 *   src/voices; a new folder is a feature by default). Features import each other only through
 *   src/core: what two features share is a contract there, or signal code in src/audio;
 * - a KIT is a layer every feature builds on (core, edge, audio, media, onnx, serving, models,
 *   store, config, errors, log, text): it imports no feature. The model registry (src/models) is one: the wiring hands
 *   it the built-in families (src/app/families.ts);
 * - src/app, src/cli and src/doctor (wiring and start-up checks) and the shared transports
 *   src/http, src/grpc may import features.
 *
 * Transport naming convention (one rule for files and folders):
 * - shared transport folders: src/http/** (the HTTP server: Elysia app, OpenAPI, docs, metrics),
 *   src/grpc/** (the gRPC server) and src/mrcp/** (the MRCPv2 kit: SIP signaling and SDP in
 *   signaling/, MRCP framing and the control listener in control/, sessions and resources). RTP is
 *   not part of it: src/media (sockets, port range, pacer, RFC 4733) is a kit any door may use;
 * - a feature's transport adapter is a FILE `<protocol>.ts` or a FOLDER `<protocol>/` anywhere
 *   inside a feature folder, where <protocol> is one of PROTOCOLS below: src/tts/http/**,
 *   src/tts/grpc/**, src/tts/ws/**, src/asr/http/**, src/asr/grpc/**, src/voices/http/**,
 *   src/asr/realtime/**, src/asr/jambonz/**, src/asr/deepgram/**, src/tts/deepgram/**,
 *   src/tts/elevenlabs/** (the voice-bot protocols borrowed from Deepgram and ElevenLabs, issue 40).
 *   A new front door takes a new protocol name here (one line) and its adapters follow the same
 *   naming; until then its files count as engine code and importing src/http or src/grpc fails.
 * - The protocols served by the HTTP server (http, ws, realtime, jambonz, deepgram, elevenlabs) may use the shared
 *   src/http kit; gRPC adapters may use src/grpc. No protocol imports another one's adapters.
 */

/**
 * Protocol names that mark a transport adapter file (`<name>.ts`) or folder (`<name>/`). `asterisk`
 * is chan_websocket, a WebSocket route on the HTTP port (src/calls/asterisk/).
 */
const HTTP_PROTOCOLS = ["http", "ws", "realtime", "jambonz", "deepgram", "elevenlabs", "asterisk"];
const GRPC_PROTOCOLS = ["grpc"];
/** MRCPv2 doors (src/tts/mrcp/, src/asr/mrcp/) over the shared MRCPv2 transport kit src/mrcp/. */
const MRCP_PROTOCOLS = ["mrcp"];
/**
 * Doors with a socket of their own (src/calls/audiosocket/: TCP; src/calls/external-media/: ARI externalMedia
 * over the media kit's RTP): they use neither src/http, src/grpc nor src/mrcp.
 */
const SOCKET_PROTOCOLS = ["audiosocket", "external-media"];
const PROTOCOLS = [...HTTP_PROTOCOLS, ...GRPC_PROTOCOLS, ...MRCP_PROTOCOLS, ...SOCKET_PROTOCOLS];

/** Folders that are layers, not features: a file named http.ts in them is not an adapter. */
const LAYERS = ["app", "cli", "core", "edge", "http", "grpc", "mrcp"];

/** Layers every feature builds on; they import no feature. */
const KITS = [
  "core",
  "edge",
  "audio",
  "media",
  "onnx",
  "serving",
  "models",
  "store",
  "config",
  "errors",
  "log",
  "text",
  "webhooks",
  "transcripts",
];
/** Every folder of src/ that is not a feature. */
const NOT_FEATURES = [...LAYERS, ...KITS, "doctor"];

const alt = (names) => `(?:${names.join("|")})`;
/** A file inside a feature folder; the capture names the feature. */
const FEATURE = `^src/(?!${alt(NOT_FEATURES)}/)([^/]+)/`;
/**
 * A path inside a feature folder up to the shallowest adapter name; the capture names one adapter.
 * (A lookbehind instead of a nested optional group: depcruise refuses regexes with star height > 1.)
 */
const adapterOf = (names) => `^(src/(?!${alt(LAYERS)}/)[^/]+/.*?(?<=/)${alt(names)})(?:\\.ts$|/)`;

const ADAPTER = adapterOf(PROTOCOLS);
const HTTP_ADAPTER = adapterOf(HTTP_PROTOCOLS);
const GRPC_ADAPTER = adapterOf(GRPC_PROTOCOLS);
const MRCP_ADAPTER = adapterOf(MRCP_PROTOCOLS);
const HTTP_SIDE = [HTTP_ADAPTER, "^src/http/"];
const GRPC_SIDE = [GRPC_ADAPTER, "^src/grpc/"];
const MRCP_SIDE = [MRCP_ADAPTER, "^src/mrcp/"];
const TRANSPORT = [ADAPTER, "^src/http/", "^src/grpc/", "^src/mrcp/"];
const WIRING = ["^src/app/", "^src/cli/", "^src/main\\.ts$"];

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "Import cycles make load order and ownership unclear; move the shared piece down a layer.",
      from: {},
      to: { circular: true },
    },
    {
      name: "engine-not-to-transport",
      severity: "error",
      comment:
        "Engines (and the kits: audio, media, onnx, serving, models, store, config, errors, log, text, core) serve every front " +
        "door, so they never import src/http, src/grpc or a transport adapter (src/app: see only-wiring-to-app).",
      from: { path: "^src/", pathNot: [...TRANSPORT, ...WIRING, "^src/edge/"] },
      to: { path: TRANSPORT },
    },
    {
      name: "edge-not-to-transport",
      severity: "error",
      comment: "src/edge is shared by all front doors, so it imports none of them.",
      from: { path: "^src/edge/" },
      to: { path: TRANSPORT },
    },
    {
      name: "grpc-not-to-other-transport",
      severity: "error",
      comment: "gRPC parses its own wire format: it never imports src/http or an HTTP-side adapter.",
      from: { path: GRPC_SIDE },
      to: { path: HTTP_SIDE },
    },
    {
      name: "http-not-to-grpc",
      severity: "error",
      comment: "The HTTP side (src/http and http/ws/realtime/jambonz adapters) never imports gRPC code.",
      from: { path: HTTP_SIDE },
      to: { path: GRPC_SIDE },
    },
    {
      name: "mrcp-not-to-other-transport",
      severity: "error",
      comment: "The MRCP side (src/mrcp and mrcp adapters) parses its own wire formats: no HTTP or gRPC code.",
      from: { path: MRCP_SIDE },
      to: { path: [...HTTP_SIDE, ...GRPC_SIDE] },
    },
    {
      name: "not-to-mrcp-side",
      severity: "error",
      comment: "HTTP and gRPC code never imports the MRCP side (src/mrcp or mrcp adapters).",
      from: { path: [...HTTP_SIDE, ...GRPC_SIDE] },
      to: { path: MRCP_SIDE },
    },
    {
      name: "adapter-not-to-other-adapter",
      severity: "error",
      comment:
        "A transport adapter never imports another adapter (e.g. src/tts/ws.ts ↛ src/tts/http/); " +
        "what both need belongs to the feature's engine, src/core or src/edge.",
      from: { path: ADAPTER },
      to: { path: ADAPTER, pathNot: "^$1(?:\\.ts$|/)" },
    },
    {
      name: "only-wiring-to-app",
      severity: "error",
      comment: "src/app is the only wiring; nothing but src/cli and src/main.ts imports it.",
      from: { path: "^src/", pathNot: WIRING },
      to: { path: "^src/app/" },
    },
    {
      name: "feature-not-to-other-feature",
      severity: "error",
      comment:
        "Features (src/tts, src/asr, src/voices, ...) import each other only through src/core: a " +
        "contract both use goes to src/core, shared signal code to src/audio, the family list to src/app.",
      from: { path: FEATURE },
      to: { path: FEATURE, pathNot: "^src/$1/" },
    },
    {
      name: "kit-not-to-feature",
      severity: "error",
      comment:
        "core, edge, audio, media, onnx, serving, models, store, config, errors, log and text serve every feature, " +
        "so they import none (the model registry gets its families from src/app/families.ts).",
      from: { path: `^src/${alt(KITS)}/` },
      to: { path: FEATURE },
    },
    {
      name: "not-to-unresolvable",
      severity: "error",
      comment: "An import that does not resolve to a file or a package is a typo or a missing dependency.",
      from: {},
      to: { couldNotResolve: true, pathNot: "^bun(?::|$)" },
    },
  ],
  options: {
    exclude: { path: "\\.test\\.ts$" },
    doNotFollow: { path: "node_modules" },
    // typescript 7 has no JS compiler API; swc parses TypeScript (type-only imports included).
    parser: "swc",
    enhancedResolveOptions: { extensions: [".ts", ".js", ".json"] },
  },
};
