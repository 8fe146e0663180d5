/** The feature plugins mounted on the HTTP app, in order. */
import { asrRoutes } from "../asr/http.ts";
import { ttsRoutes } from "../tts/http.ts";
import { ttsWebSocketRoutes } from "../tts/ws.ts";
import type { FeaturePlugin } from "./app.ts";
import { docsRoutes } from "./docs.ts";
import { legacyRoutes } from "./legacy.ts";
import { metricsRoutes } from "./metrics.ts";
import { voicesRoutes } from "../voices/http.ts";

/** Every feature's HTTP plugin. */
export const httpPlugins: readonly FeaturePlugin[] = [ttsRoutes, ttsWebSocketRoutes, asrRoutes, voicesRoutes, legacyRoutes, docsRoutes, metricsRoutes];
