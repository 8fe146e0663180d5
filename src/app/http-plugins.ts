/** The feature plugins mounted on the HTTP app, in order. */
import { asrLegacyRoutes } from "../asr/http/legacy.ts";
import { asrRoutes } from "../asr/http/routes.ts";
import { jobsRoutes } from "../asr/jobs/http/routes.ts";
import { asrFormatRoutes } from "../asr/http/format.ts";
import { phraseRoutes } from "../asr/http/phrases.ts";
import { ttsAnalyzeRoutes } from "../tts/http/analyze.ts";
import { jambonzRoutes } from "../asr/jambonz/routes.ts";
import { realtimeRoutes } from "../asr/realtime/routes.ts";
import { deepgramListenRoutes } from "../asr/deepgram/routes.ts";
import { ttsLegacyRoutes } from "../tts/http/legacy.ts";
import { ttsRoutes } from "../tts/http/routes.ts";
import { lexiconRoutes } from "../tts/http/lexicon.ts";
import { ttsWebSocketRoutes } from "../tts/ws/routes.ts";
import { deepgramSpeakRoutes } from "../tts/deepgram/routes.ts";
import { elevenLabsRoutes } from "../tts/elevenlabs/routes.ts";
import { voicesRoutes } from "../voices/http/routes.ts";
import { consoleRoutes } from "../console/http/routes.ts";
import { adminKeyRoutes } from "../admin/http/keys.ts";
import { adminPackRoutes } from "../admin/http/packs.ts";
import { adminReloadRoutes } from "../admin/http/reload.ts";
import { reloadEngines } from "./engines.ts";
import { jobsFor } from "./jobs.ts";
// Installing a pack over the admin API recognises it through the registry's built-in families.
import "./families.ts";
import { docsRoutes } from "./docs.ts";
import type { FeaturePlugin } from "./http-app.ts";
import { metricsRoutes } from "./metrics-route.ts";
import { asteriskRoutes } from "../calls/asterisk/routes.ts";
import { callRoutes } from "../calls/http/routes.ts";
import { callSocketRoutes } from "../calls/http/sockets.ts";
import { callsFor } from "./calls.ts";

/** Every feature's HTTP plugin. */
export const httpPlugins: readonly FeaturePlugin[] = [
  ttsRoutes,
  ttsAnalyzeRoutes,
  lexiconRoutes,
  ttsWebSocketRoutes,
  deepgramSpeakRoutes,
  elevenLabsRoutes,
  asrRoutes,
  // The process's jobs (store, worker process, webhooks) start with the door that serves them.
  (ctx) => jobsRoutes(ctx, jobsFor(ctx)),
  asrFormatRoutes,
  phraseRoutes,
  realtimeRoutes,
  jambonzRoutes,
  deepgramListenRoutes,
  // Asterisk calls (docs/asterisk.md): chan_websocket, then the application's API; 503 unless calls.enabled.
  (ctx) => asteriskRoutes(ctx, () => callsFor(ctx)),
  (ctx) => callRoutes(ctx, () => callsFor(ctx)),
  (ctx) => callSocketRoutes(ctx, () => callsFor(ctx)),
  voicesRoutes,
  ttsLegacyRoutes,
  asrLegacyRoutes,
  docsRoutes,
  metricsRoutes,
  (ctx) => adminReloadRoutes(ctx, (cause) => reloadEngines(ctx, cause)),
  adminKeyRoutes,
  (ctx) => adminPackRoutes(ctx, (cause) => reloadEngines(ctx, cause)),
  consoleRoutes,
];
