/**
 * `sawt __jobs-worker`: the process the jobs feature starts to run transcription jobs away from
 * live work (src/asr/jobs/worker/). Not a command for people: it is started by the service with
 * an IPC channel, takes the service's resolved settings from its first message, takes background
 * CPU priority (src/serving/background-process.ts), loads the ASR engine alone (over an in-memory database,
 * never the service's store), and transcribes the files the service sends
 * until idle or told to stop.
 */
import type { SawtConfig } from "../config/config.ts";
import { serveJobFiles, type WorkerChannel } from "../asr/jobs/worker/child.ts";
import { JOBS_WORKER_COMMAND, type FromWorker, type ToWorker } from "../asr/jobs/worker/protocol.ts";
import { dieWithParent, runInBackground } from "../serving/background-process.ts";
import { createAppContext } from "./context.ts";
import { engineLoaders } from "./engine-loaders.ts";
import { startEngines } from "./engines.ts";
import { closeDatabase } from "../store/database.ts";
// The model families every engine load reads (as the service's entry imports them).
import "./families.ts";

/** Exit code when the worker's ASR engine cannot serve (the service reports it and retries later). */
const EXIT_ENGINE_FAILED = 3;

/**
 * The IPC channel, with messages kept until a listener takes them. `first()` resolves with the
 * first message, or undefined when the service is gone before it sent one.
 */
function ipcChannel(): WorkerChannel & { first(): Promise<ToWorker | undefined> } {
  const pending: ToWorker[] = [];
  let listener: ((message: ToWorker) => void) | undefined;
  let waiting: ((message: ToWorker | undefined) => void) | undefined;
  process.on("message", (message: ToWorker) => {
    if (waiting) {
      const take = waiting;
      waiting = undefined;
      take(message);
    } else if (listener) listener(message);
    else pending.push(message);
  });
  process.once("disconnect", () => waiting?.(undefined));
  return {
    send: (message: FromWorker) => process.send?.(message),
    first: () =>
      new Promise((resolve) =>
        pending.length > 0 ? resolve(pending.shift()!) : process.connected ? (waiting = resolve) : resolve(undefined),
      ),
    onMessage(next) {
      listener = next;
      for (const message of pending.splice(0)) next(message);
    },
    onDisconnect: (next) => process.on("disconnect", next),
  };
}

/** Runs the worker; resolves with the exit code. */
export async function runJobsWorker(): Promise<number> {
  if (!process.send) {
    process.stderr.write(`sawt ${JOBS_WORKER_COMMAND}: started by the service only (no IPC channel)\n`);
    return 2;
  }
  const bonded = await dieWithParent();
  await runInBackground();
  const channel = ipcChannel();
  channel.send({ type: "hello" });
  const start = await channel.first();
  if (start?.type !== "start") return 0; // the service is gone
  const ctx = createAppContext(start.config as SawtConfig, { role: "jobs-worker" });
  const engines = startEngines(
    ctx,
    engineLoaders.filter((loader) => loader.engine === "asr"),
  );
  await engines.settled;
  // Threads the engine's start-up made from threads older than the first call.
  const priority = await runInBackground();
  ctx.log.debug("jobs worker priority", { ...priority, dies_with_parent: bonded });
  const state = ctx.engines.asr.snapshot();
  if (state.status !== "ready") {
    channel.send({ type: "failed", reason: state.reason ?? `ASR engine ${state.status}` });
    await engines.close(1000);
    closeDatabase(ctx.db);
    return EXIT_ENGINE_FAILED;
  }
  channel.send({ type: "ready" });
  const code = await serveJobFiles(ctx, channel);
  await engines.close(1000);
  closeDatabase(ctx.db);
  return code;
}
