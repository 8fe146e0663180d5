/** The feature plugins mounted on the HTTP app, in order. */
import { asrRoutes } from "../asr/http.ts";
import { asrFormatRoutes } from "../asr/http/format.ts";
import { ttsAnalyzeRoutes } from "../tts/http/analyze.ts";
import { jambonzRoutes } from "../asr/jambonz/routes.ts";
import { realtimeRoutes } from "../asr/realtime/routes.ts";
import { ttsRoutes } from "../tts/http.ts";
import { lexiconRoutes } from "../tts/lexicon/http.ts";
import { ttsWebSocketRoutes } from "../tts/ws/routes.ts";
import { voicesRoutes } from "../voices/http.ts";
import { adminRoutes } from "./admin-routes.ts";
import { docsRoutes } from "./docs.ts";
import type { FeaturePlugin } from "./http-app.ts";
import { legacyRoutes } from "./legacy.ts";
import { metricsRoutes } from "./metrics-route.ts";

/** Every feature's HTTP plugin. */
export const httpPlugins: readonly FeaturePlugin[] = [
  ttsRoutes,
  ttsAnalyzeRoutes,
  lexiconRoutes,
  ttsWebSocketRoutes,
  asrRoutes,
  asrFormatRoutes,
  realtimeRoutes,
  jambonzRoutes,
  voicesRoutes,
  legacyRoutes,
  docsRoutes,
  metricsRoutes,
  adminRoutes,
];
