/** The feature plugins mounted on the HTTP app, in order. */
import type { FeaturePlugin } from "./app.ts";
import { metricsRoutes } from "./metrics.ts";

/** Every feature's HTTP plugin. */
export const httpPlugins: readonly FeaturePlugin[] = [metricsRoutes];
