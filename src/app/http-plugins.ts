/** The feature plugins mounted on the HTTP app, in order. */
import { asrLegacyRoutes } from "../asr/http/legacy.ts";
import { asrRoutes } from "../asr/http/routes.ts";
import { phraseRoutes } from "../asr/http/phrases.ts";
import { ttsAnalyzeRoutes } from "../tts/http/analyze.ts";
import { jambonzRoutes } from "../asr/jambonz/routes.ts";
import { realtimeRoutes } from "../asr/realtime/routes.ts";
import { ttsLegacyRoutes } from "../tts/http/legacy.ts";
import { ttsRoutes } from "../tts/http/routes.ts";
import { lexiconRoutes } from "../tts/http/lexicon.ts";
import { ttsWebSocketRoutes } from "../tts/ws/routes.ts";
import { voicesRoutes } from "../voices/http/routes.ts";
import { adminRoutes } from "./admin-routes.ts";
import { docsRoutes } from "./docs.ts";
import type { FeaturePlugin } from "./http-app.ts";
import { metricsRoutes } from "./metrics-route.ts";

/** Every feature's HTTP plugin. */
export const httpPlugins: readonly FeaturePlugin[] = [
  ttsRoutes,
  ttsAnalyzeRoutes,
  lexiconRoutes,
  ttsWebSocketRoutes,
  asrRoutes,
  phraseRoutes,
  realtimeRoutes,
  jambonzRoutes,
  voicesRoutes,
  ttsLegacyRoutes,
  asrLegacyRoutes,
  docsRoutes,
  metricsRoutes,
  adminRoutes,
];
