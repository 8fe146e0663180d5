/**
 * The layering rules in .dependency-cruiser.cjs, run by dependency-cruiser (as `bun run lint:deps`
 * does): src/ must pass them, and a tree of deliberately wrong imports must trip each rule.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { ROOT, tempDir } from "../support/sawt.ts";

const CONFIG = join(ROOT, ".dependency-cruiser.cjs");
const DEPCRUISE = join(ROOT, "node_modules", "dependency-cruiser", "bin", "dependency-cruiser.mjs");

/** One broken rule as `rule: from → to` (a cycle lists its members). */
type Violation = string;

/** Runs dependency-cruiser with the repository's rules on `src` under `cwd`. */
async function cruise(cwd: string): Promise<Violation[]> {
  // Under bun: depcruise refuses the machine's older node, and bun reports a supported version.
  const proc = Bun.spawn([process.execPath, DEPCRUISE, "--config", CONFIG, "--output-type", "json", "src"], {
    cwd,
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  await proc.exited;
  if (!out.trim().startsWith("{")) throw new Error(`depcruise gave no report (exit ${proc.exitCode}):\n${err}`);
  const report = JSON.parse(out) as {
    summary: { violations: { from: string; to: string; rule: { name: string }; cycle?: { name: string }[] }[] };
  };
  return report.summary.violations
    .map((v) => {
      const to = v.cycle ? v.cycle.map((c) => c.name).join(" → ") : v.to;
      return `${v.rule.name}: ${v.from} → ${to}`;
    })
    .sort();
}

describe("layering of src/", () => {
  test("does report no violation when dependency-cruiser checks src/ with the repository's rules", async () => {
    const violations = await cruise(ROOT);
    if (violations.length > 0) {
      console.error(
        `layering violations (fix the import or see .dependency-cruiser.cjs):\n  ${violations.join("\n  ")}`,
      );
    }
    expect(violations).toEqual([]);
  }, 120_000);
});

/** A tiny tree: each file imports the listed paths (relative to the tree root). */
const FIXTURE: Record<string, string[]> = {
  // Allowed: the wiring imports anything, cli imports the wiring, a feature's HTTP-side adapters
  // use the shared src/http kit and src/edge, an adapter folder imports itself, tests import anything.
  "src/app/wire.ts": [
    "src/http/kit.ts",
    "src/grpc/server.ts",
    "src/tts/http.ts",
    "src/tts/engine.ts",
    "src/edge/auth.ts",
  ],
  "src/cli/serve.ts": ["src/app/wire.ts"],
  "src/main.ts": ["src/app/wire.ts"],
  "src/tts/http.ts": ["src/http/kit.ts", "src/edge/auth.ts", "src/tts/engine.ts", "src/core/contracts.ts"],
  "src/asr/realtime/session.ts": ["src/asr/realtime/frames.ts", "src/http/kit.ts"],
  "src/asr/realtime/frames.ts": [],
  "src/audio/wav.test.ts": ["src/http/kit.ts", "src/app/wire.ts"],
  "src/http/kit.ts": [],
  "src/grpc/server.ts": [],
  "src/grpc/pcm.ts": [],
  "src/edge/auth.ts": ["src/store/keys.ts", "src/core/contracts.ts"],
  "src/store/keys.ts": [],
  "src/core/contracts.ts": [],
  // Allowed: a feature uses src/core and a kit (src/audio), start-up checks read features.
  "src/voices/store.ts": ["src/core/contracts.ts", "src/audio/fbank.ts", "src/voices/encoder/model.ts"],
  "src/voices/encoder/model.ts": [],
  "src/audio/fbank.ts": [],
  "src/doctor/checks.ts": ["src/tts/engine.ts", "src/asr/vad.ts"],
  // Forbidden, one or more per rule.
  "src/audio/wav.ts": ["src/http/kit.ts"],
  "src/tts/engine.ts": [],
  "src/tts/voices.ts": ["src/tts/http.ts"],
  "src/asr/vad.ts": ["src/asr/realtime/session.ts"],
  "src/core/context.ts": ["src/grpc/server.ts", "src/app/wire.ts"],
  "src/grpc/tts.ts": ["src/http/kit.ts", "src/tts/http.ts", "src/grpc/pcm.ts"],
  "src/http/routes.ts": ["src/grpc/pcm.ts", "src/kit/grpc.ts"],
  "src/kit/grpc.ts": [],
  "src/edge/scope.ts": ["src/grpc/server.ts", "src/tts/ws.ts"],
  "src/tts/ws.ts": ["src/tts/http.ts", "src/http/kit.ts"],
  "src/asr/jambonz/call.ts": ["src/asr/http.ts", "src/http/kit.ts"],
  "src/asr/http.ts": [],
  "src/http/health.ts": ["src/app/wire.ts"],
  "src/log/a.ts": ["src/log/b.ts"],
  "src/log/b.ts": ["src/log/a.ts"],
  "src/config/settings.ts": ["src/config/missing.ts"],
  // A feature importing another (asr → tts, as the dialect config once did), and kits importing
  // features (the model registry listing the families; signal code reaching into a feature).
  "src/asr/dialect/config.ts": ["src/tts/types.ts", "src/core/contracts.ts"],
  "src/tts/types.ts": [],
  "src/models/registry.ts": ["src/tts/engine.ts", "src/models/family.ts"],
  "src/models/family.ts": [],
  "src/audio/mel.ts": ["src/voices/encoder/model.ts"],
  // The text kit (Arabic letters, number words, written forms): any feature may use it, even the
  // console's browser code; it uses no feature (ITN reaching into ASR's voice activity code).
  "src/console/ui/studio.ts": ["src/text/fold.ts"],
  "src/text/fold.ts": [],
  "src/text/itn.ts": ["src/asr/vad.ts", "src/text/fold.ts"],
  // MRCP: the doors use the shared src/mrcp kit (allowed); the kit and HTTP/gRPC never meet, doors
  // never import each other, engines never import the kit.
  "src/tts/mrcp/door.ts": ["src/mrcp/kit.ts", "src/tts/engine.ts", "src/edge/auth.ts"],
  "src/mrcp/kit.ts": [],
  "src/mrcp/bad.ts": ["src/http/kit.ts", "src/grpc/pcm.ts"],
  "src/http/mrcp-user.ts": ["src/mrcp/kit.ts"],
  "src/asr/mrcp/door.ts": ["src/tts/mrcp/door.ts"],
  "src/audio/rtp.ts": ["src/mrcp/kit.ts"],
};

/** What the rules must say about FIXTURE, and nothing more. */
const EXPECTED: Violation[] = [
  "adapter-not-to-other-adapter: src/asr/jambonz/call.ts → src/asr/http.ts",
  "adapter-not-to-other-adapter: src/asr/mrcp/door.ts → src/tts/mrcp/door.ts",
  "engine-not-to-transport: src/audio/rtp.ts → src/mrcp/kit.ts",
  "mrcp-not-to-other-transport: src/mrcp/bad.ts → src/grpc/pcm.ts",
  "mrcp-not-to-other-transport: src/mrcp/bad.ts → src/http/kit.ts",
  "not-to-mrcp-side: src/http/mrcp-user.ts → src/mrcp/kit.ts",
  "adapter-not-to-other-adapter: src/tts/ws.ts → src/tts/http.ts",
  "edge-not-to-transport: src/edge/scope.ts → src/grpc/server.ts",
  "edge-not-to-transport: src/edge/scope.ts → src/tts/ws.ts",
  "engine-not-to-transport: src/asr/vad.ts → src/asr/realtime/session.ts",
  "engine-not-to-transport: src/audio/wav.ts → src/http/kit.ts",
  "engine-not-to-transport: src/core/context.ts → src/grpc/server.ts",
  "engine-not-to-transport: src/tts/voices.ts → src/tts/http.ts",
  "feature-not-to-other-feature: src/asr/dialect/config.ts → src/tts/types.ts",
  "feature-not-to-other-feature: src/asr/mrcp/door.ts → src/tts/mrcp/door.ts",
  "kit-not-to-feature: src/audio/mel.ts → src/voices/encoder/model.ts",
  "kit-not-to-feature: src/edge/scope.ts → src/tts/ws.ts",
  "kit-not-to-feature: src/models/registry.ts → src/tts/engine.ts",
  "kit-not-to-feature: src/text/itn.ts → src/asr/vad.ts",
  "grpc-not-to-other-transport: src/grpc/tts.ts → src/http/kit.ts",
  "grpc-not-to-other-transport: src/grpc/tts.ts → src/tts/http.ts",
  "http-not-to-grpc: src/http/routes.ts → src/grpc/pcm.ts",
  "http-not-to-grpc: src/http/routes.ts → src/kit/grpc.ts",
  "no-circular: src/log/a.ts → src/log/b.ts → src/log/a.ts",
  "not-to-unresolvable: src/config/settings.ts → ./missing.ts",
  "only-wiring-to-app: src/core/context.ts → src/app/wire.ts",
  "only-wiring-to-app: src/http/health.ts → src/app/wire.ts",
].sort();

describe("layering rules", () => {
  const tree = tempDir("sawt-layering-");
  afterAll(() => tree.remove());

  test("does flag each deliberately wrong import when the rules check a tree that breaks them", async () => {
    for (const [file, imports] of Object.entries(FIXTURE)) {
      const path = join(tree.path, file);
      mkdirSync(dirname(path), { recursive: true });
      const lines = imports.map((target, i) => `import * as m${i} from "${specifier(file, target)}";`);
      writeFileSync(path, `${lines.join("\n")}\nexport const name = ${JSON.stringify(file)};\n`);
    }
    expect(await cruise(tree.path)).toEqual(EXPECTED);
  }, 120_000);
});

/** The import specifier for `to` written in `from` (both relative to the tree root). */
function specifier(from: string, to: string): string {
  const path = relative(dirname(from), to);
  return path.startsWith(".") ? path : `./${path}`;
}
