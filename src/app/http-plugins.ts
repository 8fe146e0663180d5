/** The feature plugins mounted on the HTTP app, in order. */
import { asrRoutes } from "../asr/http.ts";
import { ttsRoutes } from "../tts/http.ts";
import { ttsWebSocketRoutes } from "../tts/ws.ts";
import { voicesRoutes } from "../voices/http.ts";
import { adminRoutes } from "./admin-routes.ts";
import { docsRoutes } from "./docs.ts";
import type { FeaturePlugin } from "./http-app.ts";
import { legacyRoutes } from "./legacy.ts";
import { metricsRoutes } from "./metrics-route.ts";

/** Every feature's HTTP plugin. */
export const httpPlugins: readonly FeaturePlugin[] = [ttsRoutes, ttsWebSocketRoutes, asrRoutes, voicesRoutes, legacyRoutes, docsRoutes, metricsRoutes, adminRoutes];
