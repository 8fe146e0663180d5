/**
 * libespeak-ng, in-process through bun:ffi (decisions §1: the same library piper-phonemize wraps),
 * but never on the main thread. espeak's calls are synchronous — a 10,600-character synthesis
 * held the event loop for a second, stalling HTTP, gRPC, health checks, queue timeouts and the
 * systemd watchdog — and its state is process-global and not thread-safe. So ONE worker thread
 * (espeak-worker.ts) owns the library: it is started on first use, initialises espeak, and serves
 * requests one at a time. Every use goes through {@link withEspeak}, a FIFO queue that also runs
 * one task at a time even when tasks await in the middle (a task may make several requests).
 */

import { AppError, Detail } from "../../errors/taxonomy.ts";
import { log } from "../../log/logger.ts";
import { isCompiledBinary } from "../../onnx/ort.ts";
import type { Sentence } from "../frontend/sentences.ts";
import { EspeakUnavailableError } from "./locate.ts";
import type {
  EspeakInfo,
  EspeakRequest,
  FromEspeakWorker,
  SynthSettings,
  ToEspeakWorker,
  WireFailure,
} from "./protocol.ts";

export {
  cstring,
  DEFAULT_LIBRARY_PATHS,
  EspeakUnavailableError,
  libraryCandidates,
  locateLibrary,
  resolveDataPath,
  type LocatedLibrary,
} from "./locate.ts";
export type { EspeakInfo, SynthSettings } from "./protocol.ts";

/** An initialised espeak-ng in its worker. Use only inside {@link withEspeak}. */
export interface Espeak extends EspeakInfo {
  /** Phonemes (code points) per sentence, Piper style, with espeak voice `voice` ("ar", "en-us"). */
  phonemize(sentences: readonly Sentence[], voice: string): Promise<string[][]>;
  /** Mono 16-bit PCM of `text` at {@link EspeakInfo.sampleRate}. */
  synthesize(text: string, settings: SynthSettings): Promise<Int16Array>;
}

/** What `sawt doctor` and health details report about espeak-ng. */
export type EspeakStatus =
  | {
      readonly available: true;
      readonly version: string;
      readonly libraryPath: string;
      readonly dataPath: string;
      readonly sampleRate: number;
    }
  | { readonly available: false; readonly reason: string; readonly tried: readonly string[] };

/**
 * Where the worker script is. In a checkout it sits beside this file. In the compiled binary this
 * file's code lives in the main bundle (`/$bunfs/root/<exe>`), and installer/build.ts embeds the
 * worker entry under its path relative to the entries' common root `src/`:
 * `/$bunfs/root/tts/espeak/espeak-worker.ts`. (The binary test's tts run proves it.)
 */
function workerUrl(): string {
  return isCompiledBinary()
    ? new URL("./tts/espeak/espeak-worker.ts", import.meta.url).href
    : new URL("./espeak-worker.ts", import.meta.url).href;
}

function toError(failure: WireFailure): Error {
  switch (failure.kind) {
    case "unavailable":
      return new EspeakUnavailableError(failure.reason, failure.tried);
    case "voice":
      return new AppError("internal", Detail.internal, { cause: new Error(failure.message) });
    case "error":
      return new Error(failure.message);
  }
}

type Reply = FromEspeakWorker & { ok: true };

/** Sees each request as it is posted to the espeak worker (the text it will speak or phonemise). */
export type EspeakRequestObserver = (request: Readonly<EspeakRequest>) => void;
const observers = new Set<EspeakRequestObserver>();

/**
 * Registers `observer` for every request handed to the espeak worker from now on; returns the
 * function that removes it. A seam on the real path, for tests that must know exactly which
 * text espeak-ng received (never used to log text: D18).
 */
export function observeEspeakRequests(observer: EspeakRequestObserver): () => void {
  observers.add(observer);
  return () => observers.delete(observer);
}

/** The worker and its outstanding requests. */
class EspeakWorker {
  private readonly worker = new Worker(workerUrl());
  private readonly pending = new Map<number, { resolve: (reply: Reply) => void; reject: (error: Error) => void }>();
  private nextId = 1;
  /** Set once the worker is gone; later requests reject with it. */
  dead: Error | undefined;
  private handle: Espeak | undefined;

  constructor() {
    this.worker.addEventListener("message", (event: MessageEvent<FromEspeakWorker>) => this.onMessage(event.data));
    // A worker that throws outside a request or exits is treated as espeak becoming unavailable;
    // the next use starts a fresh worker.
    this.worker.addEventListener("error", (event: ErrorEvent) =>
      this.die(new EspeakUnavailableError(`espeak-ng worker failed: ${event.message}`, [])),
    );
    this.worker.addEventListener("close", () => this.die(new EspeakUnavailableError("espeak-ng worker exited", [])));
    this.worker.unref();
  }

  /** Initialises espeak in the worker (once) and returns the handle tasks use. */
  async open(): Promise<Espeak> {
    if (this.handle !== undefined) return this.handle;
    const { SAWT_ESPEAK_LIB, SAWT_ESPEAK_DATA } = process.env;
    const reply = await this.request({ op: "open", env: { SAWT_ESPEAK_LIB, SAWT_ESPEAK_DATA } });
    if (!("info" in reply)) throw new Error("espeak worker answered open without info");
    const { info } = reply;
    log.info("espeak-ng loaded", {
      component: "espeak",
      version: info.version,
      library: info.libraryPath,
      data_path: info.dataPath,
      sample_rate: info.sampleRate,
    });
    this.handle = {
      ...info,
      phonemize: async (sentences, voice) => {
        const answer = await this.request({ op: "phonemize", sentences, voice });
        if (!("phonemes" in answer)) throw new Error("espeak worker answered phonemize without phonemes");
        return answer.phonemes;
      },
      synthesize: async (text, settings) => {
        const answer = await this.request({ op: "synthesize", text, settings });
        if (!("samples" in answer)) throw new Error("espeak worker answered synthesize without samples");
        return answer.samples;
      },
    };
    return this.handle;
  }

  /** Terminates espeak, then the worker; gives up waiting on a stuck worker after 5 s. */
  async close(): Promise<void> {
    if (this.dead === undefined) {
      let timer: Timer | undefined;
      const deadline = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, 5000);
      });
      await Promise.race([this.request({ op: "close" }).catch(() => undefined), deadline]);
      clearTimeout(timer);
    }
    this.die(new EspeakUnavailableError("espeak-ng is closed", []));
    this.worker.terminate();
  }

  private request(request: EspeakRequest): Promise<Reply> {
    if (this.dead !== undefined) return Promise.reject(this.dead);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      // Keep the process alive only while work is outstanding (offline CLI runs await it).
      this.worker.ref();
      for (const observer of observers) observer(request);
      this.worker.postMessage({ ...request, id } satisfies ToEspeakWorker);
    });
  }

  private onMessage(reply: FromEspeakWorker): void {
    const waiter = this.pending.get(reply.id);
    if (waiter === undefined) return;
    this.pending.delete(reply.id);
    if (this.pending.size === 0) this.worker.unref();
    if (reply.ok) waiter.resolve(reply);
    else waiter.reject(toError(reply.failure));
  }

  private die(error: Error): void {
    this.dead ??= error;
    for (const waiter of this.pending.values()) waiter.reject(this.dead);
    this.pending.clear();
    this.worker.unref();
  }
}

let current: EspeakWorker | undefined;
let queue: Promise<unknown> = Promise.resolve();

function worker(): EspeakWorker {
  if (current?.dead !== undefined) current = undefined;
  current ??= new EspeakWorker();
  return current;
}

/**
 * Runs `task` with exclusive use of espeak-ng, after every task queued before it. Starts the
 * worker and initialises the library on first use; rejects with {@link EspeakUnavailableError}
 * when it cannot (and tries again on the next use). A failing task does not block the queue.
 */
export function withEspeak<T>(task: (espeak: Espeak) => T | Promise<T>): Promise<T> {
  const run = queue.then(async () => task(await worker().open()));
  queue = run.catch(() => undefined);
  return run;
}

/** Loads espeak-ng if needed and reports whether it works (for `sawt doctor` and health). */
export async function probeEspeak(): Promise<EspeakStatus> {
  try {
    return await withEspeak((e) => ({
      available: true as const,
      version: e.version,
      libraryPath: e.libraryPath,
      dataPath: e.dataPath,
      sampleRate: e.sampleRate,
    }));
  } catch (error) {
    if (error instanceof EspeakUnavailableError) return { available: false, reason: error.reason, tried: error.tried };
    return { available: false, reason: error instanceof Error ? error.message : String(error), tried: [] };
  }
}

/** Terminates espeak-ng and ends its worker (shutdown, tests); the next use starts a new one. */
export function closeEspeak(): Promise<void> {
  const run = queue.then(async () => {
    const closing = current;
    current = undefined;
    await closing?.close();
  });
  queue = run.catch(() => undefined);
  return run;
}
