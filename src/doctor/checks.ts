/**
 * `sawt doctor` checks. Each check looks at one thing an install needs and, when it is wrong,
 * says how to fix it. Checks never throw: a failure to look is itself reported.
 */
import { existsSync, statfsSync } from "node:fs";
import { createServer } from "node:net";
import { localHost, type SawtConfig } from "../config/config.ts";
import type { CheckResult, DoctorCheck } from "./check.ts";
import { chooseDevice, CUDA_PROVIDER_LIBRARIES, deviceDetails, type GpuInfo } from "../onnx/devices.ts";
import { loadOrt, ortVersion } from "../onnx/ort.ts";
import { probeModelBytes } from "../onnx/probe-model.ts";
import { createSession, useDevice } from "../onnx/sessions.ts";
import { builtinAsrPackDir } from "../asr/builtin/locate.ts";
import { ARABIC_MODELS_DOC } from "../asr/languages.ts";
import { inspectAsrPacks } from "../asr/packs.ts";
import { describeModels } from "../models/catalog.ts";
import { ffmpegVersion } from "../audio/ffmpeg.ts";
import type { CodecLibraryStatus } from "../audio/encoders/encoder.ts";
import { lameStatus } from "../audio/encoders/lame.ts";
import { opusStatus } from "../audio/encoders/opus.ts";
import { flacStatus } from "../audio/encoders/flac.ts";
import { probeEspeak } from "../tts/espeak/library.ts";
import { inspectTtsPacks } from "../tts/packs.ts";
import { gpuDriverCheck, installChecks, isApplianceInstall } from "./install-checks.ts";

export type { CheckResult, DoctorCheck } from "./check.ts";

async function onnxRuntimeCheck(config: SawtConfig): Promise<CheckResult> {
  try {
    const ort = await loadOrt();
    // Through the session factory, so the worker thread path that serving uses is proven too.
    useDevice(await chooseDevice(config.runtime.provider, config.runtime.intra_op_threads), {
      liftConvolutions: config.runtime.lift_convolutions,
    });
    const { session, provider } = await createSession(probeModelBytes(), { label: "doctor probe" });
    const out = await session.run({ x: new ort.Tensor("float32", new Float32Array([42]), [1]) });
    const echoed = (out.y?.data as Float32Array | undefined)?.[0];
    await session.release();
    const backends =
      (
        ort as unknown as { listSupportedBackends?: () => Array<{ name: string; bundled: boolean }> }
      ).listSupportedBackends?.() ?? [];
    const providers = backends.map((b) => b.name);
    return {
      name: "onnxruntime",
      status: echoed === 42 ? "ok" : "fail",
      detail: `onnxruntime ${await ortVersion()} opened a session on ${provider.toUpperCase()} in a worker thread and ran it (providers: ${providers.join(", ")})`,
      data: {
        version: await ortVersion(),
        session_ok: echoed === 42,
        session_provider: provider,
        providers,
        bundled: backends.filter((b) => b.bundled).map((b) => b.name),
      },
    };
  } catch (error) {
    return {
      name: "onnxruntime",
      status: "fail",
      detail: `cannot open an ONNX session: ${(error as Error).message.split("\n")[0]}`,
      fix: "reinstall Sawt; the onnxruntime library ships inside the binary",
    };
  }
}

function describeGpus(gpus: readonly GpuInfo[]): string {
  return gpus
    .map(
      (g) =>
        `${g.model}${g.memoryMb ? ` ${Math.round(g.memoryMb / 1024)} GiB` : ""}${g.driverVersion ? `, driver ${g.driverVersion}` : ""}`,
    )
    .join("; ");
}

async function deviceCheck(config: SawtConfig): Promise<CheckResult> {
  const choice = await chooseDevice(config.runtime.provider, config.runtime.intra_op_threads);
  const wantedCuda = config.runtime.provider === "cuda";
  const gpus = choice.gpus.length > 0 ? ` (GPU: ${describeGpus(choice.gpus)})` : "";
  return {
    name: "device",
    status:
      wantedCuda && choice.provider !== "cuda"
        ? "fail"
        : choice.provider === "cpu" && choice.gpus.length > 0 && config.runtime.provider === "auto"
          ? "warn"
          : "ok",
    detail: `${choice.provider.toUpperCase()} chosen: ${choice.reason}${gpus}; ${choice.intraOpThreads} thread(s) per session`,
    fix:
      choice.provider === "cpu" && choice.gpus.length > 0 && config.runtime.provider !== "cpu"
        ? `put ${CUDA_PROVIDER_LIBRARIES.join(" and ")} (with the CUDA 12 and cuDNN 9 libraries) in the bundle's lib/ directory`
        : wantedCuda && choice.gpus.length === 0
          ? "no NVIDIA GPU is visible (check the driver with nvidia-smi), or set runtime.provider = auto"
          : undefined,
    data: { ...deviceDetails(choice), reason: choice.reason },
  };
}

// The same lookups the engines use (FFMPEG_BIN → ffmpeg-static → PATH; SAWT_ESPEAK_LIB → the
// usual library paths), so doctor reports what Sawt will really run.
async function ffmpegCheck(): Promise<CheckResult> {
  const found = await ffmpegVersion();
  return found.ok
    ? {
        name: "ffmpeg",
        status: "ok",
        detail: `ffmpeg ${found.version} at ${found.binary}`,
        data: { path: found.binary, version: found.version },
      }
    : {
        name: "ffmpeg",
        status: "fail",
        detail: `${found.binary}: ${found.reason}`,
        fix: "apt-get install ffmpeg, or set FFMPEG_BIN to a static ffmpeg",
      };
}

/** libmp3lame, libopus and libFLAC encode mp3/opus/flac in-process; without them Sawt falls back to ffmpeg processes. */
function codecLibraryCheck(name: string, status: CodecLibraryStatus, pkg: string): CheckResult {
  return status.ok
    ? {
        name,
        status: "ok",
        detail: `${status.version} at ${status.path}`,
        data: { path: status.path, version: status.version },
      }
    : {
        name,
        status: "warn",
        detail: `${status.reason}; this format is encoded by an ffmpeg process per response`,
        fix: `apt-get install ${pkg}`,
        data: { tried: status.tried },
      };
}

async function espeakCheck(): Promise<CheckResult> {
  const status = await probeEspeak();
  return status.available
    ? {
        name: "espeak-ng",
        status: "ok",
        detail: `libespeak-ng ${status.version} at ${status.libraryPath} (data ${status.dataPath})`,
        data: { path: status.libraryPath, version: status.version },
      }
    : {
        name: "espeak-ng",
        status: "fail",
        detail: `libespeak-ng unavailable: ${status.reason}`,
        fix: "apt-get install libespeak-ng1 espeak-ng-data (or the .deb files in the bundle)",
        data: { tried: status.tried },
      };
}

async function modelsCheck(config: SawtConfig): Promise<CheckResult> {
  const packs = describeModels(config.paths.models_dir);
  const broken = packs.filter((p) => p.problems.length > 0);
  return {
    name: "models",
    status: broken.length > 0 ? "warn" : "ok",
    detail: `${packs.length} pack(s) in ${config.paths.models_dir}${broken.length ? `; with problems: ${broken.map((b) => `${b.name} (${b.problems.join("; ")})`).join(", ")}` : ""}${packs.length === 0 ? " (TTS speaks with the built-in espeak-ng engine)" : ""}`,
    fix: broken.length ? "see `sawt models list`; fix or remove those folders" : undefined,
    data: { packs: packs.map((p) => ({ name: p.name, serves: p.serves ?? null, problems: p.problems })) },
  };
}

async function ttsPacksCheck(config: SawtConfig): Promise<CheckResult> {
  const { loaded, broken, tashkeel } = inspectTtsPacks(config.paths.models_dir);
  const serving = loaded.map((p) => `${p.voice} (${p.family}, ${p.sampleRate} Hz)`).join(", ");
  return {
    name: "tts voices",
    status: broken.length > 0 ? "warn" : "ok",
    detail:
      `${loaded.length > 0 ? `neural packs: ${serving}` : "no neural voice pack: espeak-ng speaks every voice"}${tashkeel ? "; tashkeel installed" : ""}` +
      (broken.length > 0 ? `; broken (skipped): ${broken.map((b) => `${b.pack}: ${b.reason}`).join("; ")}` : ""),
    fix:
      broken.length > 0
        ? "fix or remove the broken pack folders; voices without a pack fall back to Yara's pack, then espeak-ng"
        : undefined,
    data: { packs: loaded, broken, tashkeel },
  };
}

async function asrPacksCheck(config: SawtConfig): Promise<CheckResult> {
  const { usable, broken } = inspectAsrPacks(config.paths.models_dir);
  const recognizers = usable.filter((p) => p.role === "recognizer");
  const vad = usable.find((p) => p.role === "vad");
  const dialect = usable.find((p) => p.role === "dialect");
  const packs = usable.map(({ name, family, role }) => ({ name, family, role }));
  const builtin = config.asr.builtin && builtinAsrPackDir() !== null;
  const found =
    recognizers.length > 0
      ? `recognisers: ${recognizers.map((p) => `${p.name} (${p.family})`).join(", ")}; VAD: ${vad ? vad.name : "built-in energy splitter"}; dialect id: ${dialect ? dialect.name : "none"}`
      : builtin
        ? "no recogniser pack: the built-in recogniser transcribes English only; Arabic requests get 400"
        : "no recogniser pack and no built-in recogniser: the ASR engine is disabled";
  return {
    name: "asr packs",
    status: broken.length > 0 || recognizers.length === 0 ? "warn" : "ok",
    detail:
      found +
      (builtin && recognizers.length > 0 ? "; built-in English recogniser: on" : "") +
      (broken.length > 0 ? `; broken (skipped): ${broken.map((b) => `${b.pack}: ${b.reason}`).join("; ")}` : ""),
    fix:
      broken.length > 0
        ? "fix or remove the broken pack folders (see models/README.md for each family's files and metadata)"
        : recognizers.length === 0
          ? `install an Arabic recogniser pack with sawt models install: ${ARABIC_MODELS_DOC} lists the published Arabic models, their licences and how to fetch and pack each`
          : undefined,
    data: { packs, broken },
  };
}

function portFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once("error", () => resolve(false));
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve(true)));
  });
}

/** True when Sawt itself answers /health on `port` (so busy ports are its own). */
async function sawtAnswers(host: string, port: number): Promise<boolean> {
  try {
    const response = await fetch(`http://${localHost(host)}:${port}/health`, { signal: AbortSignal.timeout(2000) });
    const body = (await response.json()) as { status?: unknown };
    return response.headers.has("x-request-id") && (body.status === "healthy" || body.status === "draining");
  } catch {
    return false;
  }
}

async function portsCheck(config: SawtConfig): Promise<CheckResult> {
  const ports = {
    http: config.server.http_port,
    grpc_asr: config.server.grpc_asr_port,
    grpc_tts: config.server.grpc_tts_port,
  };
  const busy: string[] = [];
  for (const [name, port] of Object.entries(ports)) {
    if (port !== 0 && !(await portFree(config.server.host, port))) busy.push(`${name} ${port}`);
  }
  if (busy.length === 0)
    return {
      name: "ports",
      status: "ok",
      detail: `free on ${config.server.host}: ${Object.values(ports).join(", ")}`,
      data: ports,
    };
  if (ports.http !== 0 && (await sawtAnswers(config.server.host, ports.http))) {
    return {
      name: "ports",
      status: "ok",
      detail: `in use by the running Sawt on ${config.server.host}: ${busy.join(", ")}`,
      data: { ...ports, running: true },
    };
  }
  return {
    name: "ports",
    status: "warn",
    detail: `in use on ${config.server.host}: ${busy.join(", ")}, not by a Sawt that answers /health`,
    fix: "stop whatever holds them (ss -ltnp) or change server.*_port",
    data: ports,
  };
}

async function diskCheck(config: SawtConfig): Promise<CheckResult> {
  let dir = config.paths.data_dir;
  while (!existsSync(dir) && dir !== "/") dir = dir.replace(/\/[^/]*$/, "") || "/";
  try {
    const stats = statfsSync(dir);
    const freeMb = Math.floor((stats.bavail * stats.bsize) / 1024 / 1024);
    return freeMb < 1024
      ? {
          name: "disk",
          status: "warn",
          detail: `${freeMb} MB free at ${dir}`,
          fix: "free space: uploads are staged under paths.data_dir",
          data: { free_mb: freeMb },
        }
      : { name: "disk", status: "ok", detail: `${freeMb} MB free at ${dir}`, data: { free_mb: freeMb } };
  } catch (error) {
    return { name: "disk", status: "warn", detail: `cannot read free space at ${dir}: ${(error as Error).message}` };
  }
}

/** Every doctor check, in report order; the install checks only where install.sh installed Sawt. */
export const DOCTOR_CHECKS: readonly DoctorCheck[] = [
  deviceCheck,
  gpuDriverCheck(),
  onnxRuntimeCheck,
  () => ffmpegCheck(),
  () => espeakCheck(),
  async () => codecLibraryCheck("libmp3lame", lameStatus(), "libmp3lame0"),
  async () => codecLibraryCheck("libopus", opusStatus(), "libopus0"),
  async () => codecLibraryCheck("libFLAC", flacStatus(), "libflac12"),
  modelsCheck,
  ttsPacksCheck,
  asrPacksCheck,
  portsCheck,
  diskCheck,
  ...(isApplianceInstall() ? installChecks() : []),
];
