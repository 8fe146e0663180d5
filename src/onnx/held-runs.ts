/**
 * The worker's side of held sessions (session.ts HeldSession): the tensors each hold keeps by
 * input name between its runs, so a decoder's encoder output and caches stay on the worker's
 * thread instead of crossing to the main thread and back on every step (issue 38: that copy,
 * about 13 MB a step for Moonshine tiny on 20 s of audio, made decoding 2.2× raw onnxruntime).
 */
import type { InferenceSession, Tensor } from "onnxruntime-node";
import type { Ort } from "./ort-native.ts";
import type { WireHeldRun, WireTensor } from "./session-protocol.ts";

/** A run's outputs on the wire and the buffers that move with them. */
export interface HeldResult {
  readonly outputs: Record<string, WireTensor>;
  readonly transfer: ArrayBuffer[];
  readonly seconds: number;
}

/** The kept tensors of every hold open on one worker's session. */
export class HeldTensors {
  private readonly holds = new Map<number, Map<string, Tensor>>();

  constructor(
    private readonly ort: Ort,
    private readonly session: InferenceSession,
  ) {}

  /** Runs `request` for `hold` (see HeldRun); outputs not fetched never leave this thread. */
  async run(hold: number, request: WireHeldRun): Promise<HeldResult> {
    let kept = this.holds.get(hold);
    if (kept === undefined) this.holds.set(hold, (kept = new Map()));
    for (const [name, t] of Object.entries(request.feeds))
      kept.set(name, new this.ort.Tensor(t.type as "float32", t.data as Float32Array, t.dims));
    const inputs: Record<string, Tensor> = {};
    for (const name of this.session.inputNames) {
      const tensor = kept.get(name);
      if (tensor !== undefined) inputs[name] = tensor;
    }
    const fetches = [...new Set([...request.fetch, ...Object.keys(request.keep)])];
    const started = performance.now();
    const out = await this.session.run(inputs, fetches);
    const seconds = (performance.now() - started) / 1000;
    for (const [output, input] of Object.entries(request.keep)) {
      const tensor = out[output] as Tensor | undefined;
      if (tensor === undefined) throw new Error(`the model returned no ${output}`);
      kept.set(input, tensor);
    }
    const outputs: Record<string, WireTensor> = {};
    const transfer: ArrayBuffer[] = [];
    for (const name of request.fetch) {
      const t = out[name] as Tensor | undefined;
      if (t === undefined) throw new Error(`the model returned no ${name}`);
      let data = t.data as ArrayBufferView;
      // A fetched output that is also kept stays here, so the caller gets a copy of it.
      if (Object.hasOwn(request.keep, name) && ArrayBuffer.isView(data))
        data = (data as Float32Array).slice() as ArrayBufferView;
      outputs[name] = { type: t.type, data, dims: [...t.dims] };
      if (data.buffer instanceof ArrayBuffer && !transfer.includes(data.buffer)) transfer.push(data.buffer);
    }
    return { outputs, transfer, seconds };
  }

  /** Forgets what `hold` kept (its tensors are collected with the next garbage collection). */
  drop(hold: number): void {
    this.holds.delete(hold);
  }

  /** Holds open now. */
  get size(): number {
    return this.holds.size;
  }
}
