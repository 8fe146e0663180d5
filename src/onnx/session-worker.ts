/**
 * Worker entry: owns one onnxruntime session and runs it off the main thread. onnxruntime-node's
 * `run` executes synchronously on the calling JS thread, so running it here keeps the server's
 * event loop (HTTP, gRPC, health, admission timers) responsive during inference.
 *
 * A separate entry point of the compiled binary (installer/build.ts lists it).
 */
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { concatSamples } from "../audio/concat.ts";
import type { InferenceSession, Tensor } from "onnxruntime-node";
import { liftConv1d } from "./conv-lift.ts";
import { HeldTensors } from "./held-runs.ts";
import { trimThreadArena } from "./native-heap.ts";
import { shareTransposedWeights } from "./tied-transpose.ts";
import { importOrt, type Ort } from "./ort-native.ts";
import type { FromWorker, ToWorker, WireScan, WireTensor, WireValueMetadata } from "./session-protocol.ts";

declare const self: Worker;

let ort: Ort | undefined;
let session: InferenceSession | undefined;
let held: HeldTensors | undefined;

function reply(message: FromWorker, transfer: Bun.Transferable[] = []): void {
  try {
    self.postMessage(message, transfer);
  } catch {
    self.postMessage(message); // a buffer that cannot be transferred is copied instead
  }
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split("\n")[0]!.trim();
}

/**
 * A rewritten model written to a temporary file (remove `dir` once the session is created). The
 * file is mapped, not read, and the rewrite goes to disk piece by piece: a model-sized buffer for
 * each, held in the worker, stayed in the process after the session no longer needed them
 * (measured: tens of MB more per lane of the 60 MB voice).
 */
function writeRewrite(prefix: string, pieces: readonly Uint8Array[]): { dir: string; path: string } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const path = join(dir, "model.onnx");
  try {
    const fd = openSync(path, "w", 0o600);
    try {
      for (const piece of pieces) writeSync(fd, piece);
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return { dir, path };
}

function modelBytes(model: string | Uint8Array): Uint8Array {
  return typeof model === "string" ? Bun.mmap(model, { shared: false }) : model;
}

/** The model with its 1-D convolution chains lifted to 2-D (conv-lift.ts) in a temporary file, if it has any chain. */
function lifted(model: string | Uint8Array): { dir?: string; path?: string; lift: FromWorkerLift } {
  try {
    const result = liftConv1d(modelBytes(model));
    if (result.pieces === undefined) return { lift: { skipped: result.reason, failed: false } };
    return { ...writeRewrite("sawt-lift-", result.pieces), lift: { convolutions: result.convolutions } };
  } catch (error) {
    return { lift: { skipped: `the graph could not be rewritten: ${firstLine(error)}`, failed: true } };
  }
}

/**
 * The model with its tied weights stored once (tied-transpose.ts) in a temporary file, or
 * undefined when it has none or cannot be rewritten (the original graph then runs as written).
 */
function untied(model: string | Uint8Array): { dir: string; path: string } | undefined {
  try {
    const result = shareTransposedWeights(modelBytes(model));
    return result.pieces === undefined ? undefined : writeRewrite("sawt-tied-", result.pieces);
  } catch {
    return undefined;
  }
}

type FromWorkerLift = NonNullable<Extract<FromWorker, { op: "opened" }>["lift"]>;

async function open(message: Extract<ToWorker, { op: "open" }>): Promise<void> {
  const { libraryPath, model, provider, intraOpThreads } = message;
  ort = await importOrt(libraryPath);
  const options = (p: "cpu" | "cuda"): InferenceSession.SessionOptions => ({
    executionProviders: p === "cuda" ? [{ name: "cuda", deviceId: 0 }, "cpu"] : ["cpu"],
    intraOpNumThreads: intraOpThreads,
    interOpNumThreads: 1,
    graphOptimizationLevel: "all",
    logSeverityLevel: 3,
    // Off where the main thread tuned the C heap: an arena keeps the peak of every run for good,
    // the heap is trimmed when the sessions idle (native-heap.ts).
    enableCpuMemArena: message.arena,
    // Nor one planned block per run for every intermediate tensor: without the arena that block
    // (hundreds of MB for a Whisper-small decoder step) is more than a worker thread's malloc
    // arena holds (64 MB heaps), so glibc maps and unmaps it on every run (a 98-step decode spent
    // 6 s in page faults, against 0.4 s with tensors allocated one by one).
    enableMemPattern: message.arena,
    // Sessions of several engines run at once in their own workers; spinning intra-op threads
    // would burn the cores the others need (measured: a busy neighbour core made a 2-thread
    // spinning session 1.6x slower, a non-spinning one 1.5x faster than that).
    extra: { session: { intra_op: { allow_spinning: "0" }, inter_op: { allow_spinning: "0" } } },
  });
  // The tied rewrite's file, if any, is what the attempts below open first; removed once they are done.
  const tied = message.shareTransposedWeights ? untied(model) : undefined;
  // The rewrite's buffers and the mapped model are garbage now: collected before the session
  // loads, or the mapping and the transposed copy stay until the worker's next collection.
  if (message.shareTransposedWeights) Bun.gc(true);
  const create = async (p: "cpu" | "cuda") => {
    if (tied !== undefined) {
      try {
        return await ort!.InferenceSession.create(tied.path, options(p));
      } catch {
        // The original graph still runs: a rewrite must never cost a model.
      }
    }
    return typeof model === "string"
      ? ort!.InferenceSession.create(model, options(p))
      : ort!.InferenceSession.create(model, options(p));
  };
  try {
    await createSession(create, options, message);
  } finally {
    if (tied !== undefined) rmSync(tied.dir, { recursive: true, force: true });
  }
  // Once more from outside that frame: the collection above can still find the mapped model on the
  // stack (measured: a file it only scanned stayed mapped, 2.6 MB resident, until this one).
  if (message.shareTransposedWeights) Bun.gc(true);
}

/** Creates the worker's session (CUDA, then lifted or plain CPU) and replies with what opened. */
async function createSession(
  create: (p: "cpu" | "cuda") => Promise<InferenceSession>,
  options: (p: "cpu" | "cuda") => InferenceSession.SessionOptions,
  message: Extract<ToWorker, { op: "open" }>,
): Promise<void> {
  const { model, provider } = message;
  let used = provider;
  let fallback: string | undefined;
  if (provider === "cuda") {
    try {
      session = await create("cuda");
    } catch (error) {
      // A CUDA session that cannot be built falls back to CPU rather than taking the engine down.
      fallback = `CUDA session failed: ${firstLine(error)}`;
      used = "cpu";
    }
  }
  let lift: FromWorkerLift | undefined;
  // Only a session that runs on CPU (a CUDA one that could not be built included).
  if (session === undefined && message.liftConv1d) {
    const rewrite = lifted(model);
    lift = rewrite.lift;
    if (rewrite.path !== undefined) {
      try {
        session = await ort!.InferenceSession.create(rewrite.path, options("cpu"));
      } catch (error) {
        // The original graph still runs: a rewrite must never cost a voice.
        lift = { skipped: `onnxruntime rejected the lifted graph: ${firstLine(error)}`, failed: true };
      } finally {
        rmSync(rewrite.dir!, { recursive: true, force: true });
      }
    }
  }
  session ??= await create("cpu");
  held = new HeldTensors(ort!, session);
  const metadata = (list: readonly unknown[]) => list.map((m) => ({ ...(m as object) }) as WireValueMetadata);
  reply({
    op: "opened",
    provider: used,
    fallback,
    lift,
    inputNames: [...session.inputNames],
    outputNames: [...session.outputNames],
    inputMetadata: metadata(session.inputMetadata),
    outputMetadata: metadata(session.outputMetadata),
  });
}

async function run(
  id: number,
  feeds: Readonly<Record<string, WireTensor>>,
  fetches: readonly string[] | undefined,
): Promise<void> {
  const inputs: Record<string, Tensor> = {};
  for (const [name, t] of Object.entries(feeds))
    inputs[name] = new ort!.Tensor(t.type as "float32", t.data as Float32Array, t.dims);
  const started = performance.now();
  const out = fetches ? await session!.run(inputs, [...fetches]) : await session!.run(inputs);
  const seconds = (performance.now() - started) / 1000;
  const outputs: Record<string, WireTensor> = {};
  const transfer: Bun.Transferable[] = [];
  for (const [name, t] of Object.entries(out)) {
    const data = t.data as ArrayBufferView | string[];
    outputs[name] = { type: t.type, data, dims: [...t.dims] };
    if (ArrayBuffer.isView(data) && data.buffer instanceof ArrayBuffer && !transfer.includes(data.buffer))
      transfer.push(data.buffer);
  }
  reply({ op: "result", id, outputs, seconds }, transfer);
}

/**
 * Runs the steps of a scan back to back on this thread: a small recurrent model (Silero VAD, 32 ms
 * per step) would otherwise pay a thread round trip per step, which cost more than the model.
 */
async function scan(id: number, request: WireScan): Promise<void> {
  const inputs: Record<string, Tensor> = {};
  for (const [name, t] of Object.entries(request.feeds))
    inputs[name] = new ort!.Tensor(t.type as "float32", t.data as Float32Array, t.dims);
  const stepSize = request.step.dims.reduce((a, b) => a * b, 1);
  const collected = new Map<string, { parts: Float32Array[]; type: string; dims: readonly number[] }>();
  const fetches = [...new Set([...request.collect, ...Object.keys(request.carry)])];
  // Naming every output costs onnxruntime-node a lookup per step; asking for none gets them all.
  const everyOutput = session!.outputNames.every((name) => fetches.includes(name));
  let last: InferenceSession.OnnxValueMapType = {};
  const started = performance.now();
  for (let i = 0; i < request.steps; i++) {
    // A view, not a copy: onnxruntime reads the input during run() and keeps no reference.
    const slice = request.step.data.subarray(i * stepSize, (i + 1) * stepSize);
    inputs[request.step.name] = new ort!.Tensor("float32", slice, request.step.dims);
    last = everyOutput ? await session!.run(inputs) : await session!.run(inputs, fetches);
    for (const name of request.collect) {
      const t = last[name] as Tensor;
      const entry = collected.get(name) ?? { parts: [], type: t.type, dims: t.dims };
      entry.parts.push(t.data as Float32Array);
      collected.set(name, entry);
    }
    for (const [output, input] of Object.entries(request.carry)) inputs[input] = last[output] as Tensor;
  }
  const seconds = (performance.now() - started) / 1000;
  const outputs: Record<string, WireTensor> = {};
  for (const [name, { parts, type, dims }] of collected) {
    outputs[name] = { type, data: concatSamples(parts), dims: [request.steps, ...dims] };
  }
  for (const name of Object.keys(request.carry)) {
    const t = last[name] as Tensor | undefined;
    if (t !== undefined) outputs[name] = { type: t.type, data: (t.data as Float32Array).slice(), dims: [...t.dims] };
  }
  const transfer = Object.values(outputs).map((t) => (t.data as Float32Array).buffer as ArrayBuffer);
  reply({ op: "result", id, outputs, seconds }, transfer);
}

self.onmessage = async (event: MessageEvent<ToWorker>) => {
  const message = event.data;
  switch (message.op) {
    case "open":
      try {
        await open(message);
      } catch (error) {
        reply({ op: "open-failed", message: firstLine(error) });
      }
      return;
    case "run":
      try {
        await run(message.id, message.feeds, message.fetches);
      } catch (error) {
        reply({ op: "run-failed", id: message.id, message: firstLine(error) });
      }
      return;
    case "scan":
      try {
        await scan(message.id, message);
      } catch (error) {
        reply({ op: "run-failed", id: message.id, message: firstLine(error) });
      }
      return;
    case "held-run":
      try {
        const { outputs, transfer, seconds } = await held!.run(message.hold, message);
        reply({ op: "result", id: message.id, outputs, seconds }, transfer);
      } catch (error) {
        reply({ op: "run-failed", id: message.id, message: firstLine(error) });
      }
      return;
    case "unhold":
      held?.drop(message.hold);
      return;
    case "trim":
      trimThreadArena();
      reply({ op: "trimmed" });
      return;
    case "release":
      await session?.release().catch(() => undefined);
      session = undefined;
      held = undefined;
      reply({ op: "released" });
      return;
  }
};
