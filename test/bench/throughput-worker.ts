/**
 * Worker entry of the throughput benchmark's raw engine (throughput-engines.ts): one bare
 * onnxruntime-node session, opened with the options Sawt's session worker uses, that runs the
 * ids it is sent and answers with the audio's sample count. Not a benchmark itself.
 */
import type { InferenceSession, Tensor } from "onnxruntime-node";
import { loadOrt } from "../../src/onnx/ort.ts";

declare const self: Worker;

/** Messages to this worker. */
export type ToRawWorker =
  | { op: "open"; modelPath: string; threads: number }
  | { op: "run"; ids: number[]; lengthScale: number };

// Started before the first message is handled and awaited inside: a message that arrived during
// a top-level await would find no handler.
const loading = loadOrt();
let session: InferenceSession | undefined;

self.onmessage = async (event: MessageEvent<ToRawWorker>) => {
  const message = event.data;
  try {
    const ort = await loading;
    if (message.op === "open") {
      session = await ort.InferenceSession.create(message.modelPath, {
        executionProviders: ["cpu"],
        intraOpNumThreads: message.threads,
        interOpNumThreads: 1,
        graphOptimizationLevel: "all",
        logSeverityLevel: 3,
        extra: { session: { intra_op: { allow_spinning: "0" }, inter_op: { allow_spinning: "0" } } },
      });
      self.postMessage({ ok: true, samples: 0 });
      return;
    }
    const { ids } = message;
    const out = await session!.run({
      input: new ort.Tensor("int64", BigInt64Array.from(ids, BigInt), [1, ids.length]),
      input_lengths: new ort.Tensor("int64", BigInt64Array.of(BigInt(ids.length)), [1]),
      scales: new ort.Tensor("float32", Float32Array.of(0.667, message.lengthScale, 0.8), [3]),
    });
    self.postMessage({ ok: true, samples: (out.output as Tensor).data.length });
  } catch (error) {
    self.postMessage({ ok: false, error: error instanceof Error ? error.message : String(error) });
  }
};
