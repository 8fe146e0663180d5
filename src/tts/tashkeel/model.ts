/**
 * Tashkeel (Arabic diacritisation) before phonemisation, as Piper does for `espeak.voice = ar`
 * with libtashkeel: espeak reads undiacritised Arabic poorly, so a small model restores the
 * harakat first. The pack contract is ./config.ts, the text contract ./marks.ts: marks the author
 * wrote are kept (and given to the model as hints when its graph takes `diac_inputs`).
 */
import type { Tashkeel } from "../../core/tashkeel.ts";
import {
  argmax,
  dimsOf,
  f32,
  i64,
  intValues,
  openSession,
  output,
  type Session,
  type Tensor,
  type Tensors,
} from "../../onnx/runner.ts";
import { readTashkeelConfig, type TashkeelConfig } from "./config.ts";
import { hintFor, readWritten, writeBack } from "./marks.ts";

export type { Tashkeel } from "../../core/tashkeel.ts";

/** Loads and validates the tashkeel pack in `dir`; throws PackError when it breaks the contract. */
export async function loadTashkeel(dir: string): Promise<Tashkeel> {
  return openTashkeel(readTashkeelConfig(dir));
}

/** Opens a session on a validated config (a pack's or the built-in model's). */
export async function openTashkeel(config: TashkeelConfig): Promise<Tashkeel> {
  const label = typeof config.model === "string" ? config.model : "built-in tashkeel";
  // One thread: the model is small (the built-in one 2 MB), and for small models a second
  // intra-op thread costs more in hand-over than it gains (measured 8.3 vs 10.3 ms a sentence).
  const created = await openSession(config.model, { label, intraOpThreads: 1 });
  return new OnnxTashkeel(created.session, config, created.provider);
}

class OnnxTashkeel implements Tashkeel {
  constructor(
    private readonly session: Session,
    private readonly config: TashkeelConfig,
    /** Where its session runs (the install record reads it). */
    readonly provider: "cpu" | "cuda",
  ) {}

  async diacritize(text: string): Promise<string> {
    const chars = readWritten(text, this.config.inputIds);
    const seen = chars.filter((c) => c.modelSymbol !== undefined);
    const predicted: string[] = [];
    const { window } = this.config.graph;
    for (let from = 0; from < seen.length; from += window) {
      predicted.push(...(await this.predict(seen.slice(from, from + window))));
    }
    // The maps write shadda before its vowel; canonical order (NFC) puts the vowel first, as
    // the front-end's own NFKC text and libtashkeel's published reference output do.
    return writeBack(chars, predicted).normalize("NFC");
  }

  /** The model's marks for each character of one window. */
  private async predict(chars: ReturnType<typeof readWritten>): Promise<string[]> {
    const { graph, inputIds, hints, targets } = this.config;
    const length = graph.padTo ? graph.window : chars.length;
    const ids = new Array<number>(length).fill(0);
    chars.forEach((c, i) => (ids[i] = inputIds.get(c.modelSymbol!) ?? 0));
    const feeds: Tensors = {
      [graph.chars]: graph.charType === "float32" ? f32(ids, [1, length]) : i64(ids, [1, length]),
    };
    if (graph.lengths) feeds[graph.lengths] = i64([chars.length], [1]);
    if (graph.hints && hints) {
      const hintIds = new Array<number>(length).fill(hints.get("_") ?? 0);
      chars.forEach((c, i) => (hintIds[i] = hintFor(c.marks, hints)));
      feeds[graph.hints] = i64(hintIds, [1, length]);
    }
    const result = output(await this.session.run(feeds), graph.output, "tashkeel model");
    return classesOf(result, chars.length).map((id) => targets.get(id) ?? "");
  }

  release(): Promise<void> {
    return this.session.release();
  }
}

/** The class of each of the first `count` characters: ids as given, or the argmax of scores. */
function classesOf(result: Tensor, count: number): number[] {
  const dims = dimsOf(result);
  const data = result.data;
  if (data instanceof Float32Array && dims.length === 3) {
    const k = dims[2]!;
    return Array.from({ length: Math.min(count, dims[1]!) }, (_, i) => Math.max(0, argmax(data, i * k, (i + 1) * k)));
  }
  if (data instanceof Float32Array) throw new Error(`tashkeel output has an unsupported shape [${dims.join(", ")}]`);
  return intValues(result, "tashkeel output").slice(0, count);
}
