/**
 * `bun --preload` module for runtime tests of a real `sawt serve` process: registers the slow
 * test engine (test/support/slow-engine.ts) for the model at $SAWT_TEST_SLOW_MODEL before the
 * CLI starts. The registries are plain arrays read at start-up; appending here is how a test adds
 * its route and loader to the otherwise unmodified server.
 */
import type { AnyEngineLoader } from "../../src/core/engines.ts";
import { engineLoaders } from "../../src/app/engine-loaders.ts";
import type { FeaturePlugin } from "../../src/app/http-app.ts";
import { httpPlugins } from "../../src/app/http-plugins.ts";
import { slowEngine } from "./slow-engine.ts";

const modelPath = process.env.SAWT_TEST_SLOW_MODEL;
if (!modelPath) throw new Error("SAWT_TEST_SLOW_MODEL must name the slow model file");
const engine = slowEngine(modelPath);
// The slow engine takes the TTS slot in place of the real TTS loader.
const loaders = engineLoaders as AnyEngineLoader[];
loaders.splice(0, loaders.length, ...loaders.filter((l) => l.engine !== "tts"), engine.loader);
(httpPlugins as FeaturePlugin[]).push(engine.plugin);
