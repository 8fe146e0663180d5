/**
 * Tashkeel (Arabic diacritisation) before phonemisation, as Piper does for `espeak.voice = ar`
 * with libtashkeel: espeak reads undiacritised Arabic poorly, so a small model restores the
 * harakat first. The pack contract is ./config.ts. Existing harakat are stripped first (the
 * model predicts them afresh); text longer than the model's window is processed in windows.
 */
import type { Tensor } from "onnxruntime-node";
import { loadOrt } from "../../runtime/ort.ts";
import { createSession, type CreatedSession } from "../../runtime/sessions.ts";
import { readTashkeelConfig, type TashkeelShape } from "./config.ts";

const PAD_ID = 0;
const UNKNOWN_ID = 1;
/** Fathatan … sukun: the marks the model predicts. */
const HARAKAT = /[\u064B-\u0652]/gu;

/** A loaded diacritiser. */
export interface Tashkeel {
  /** Adds harakat to Arabic text. */
  diacritize(text: string): Promise<string>;
  release(): Promise<void>;
}

/** Loads and validates the tashkeel pack in `dir`; throws PackError when it breaks the contract. */
export async function loadTashkeel(dir: string): Promise<Tashkeel> {
  const config = readTashkeelConfig(dir);
  const created = await createSession(config.modelPath);
  const ort = await loadOrt();
  return new OnnxTashkeel(created.session, ort, config.shape, config.inputIds, config.targets);
}

class OnnxTashkeel implements Tashkeel {
  constructor(
    private readonly session: CreatedSession["session"],
    private readonly ort: typeof import("onnxruntime-node"),
    private readonly shape: TashkeelShape,
    private readonly inputIds: ReadonlyMap<string, number>,
    private readonly targets: ReadonlyMap<number, string>,
  ) {}

  async diacritize(text: string): Promise<string> {
    const chars = Array.from(text.replace(HARAKAT, ""));
    let out = "";
    for (let from = 0; from < chars.length; from += this.shape.window) {
      const piece = chars.slice(from, from + this.shape.window);
      const marks = await this.predict(piece);
      piece.forEach((char, i) => (out += char + (marks[i] ?? "")));
    }
    return out;
  }

  private async predict(chars: readonly string[]): Promise<string[]> {
    const length = this.shape.padTo ? this.shape.window : chars.length;
    const ids = new Array<number>(length).fill(PAD_ID);
    chars.forEach((char, i) => (ids[i] = this.inputIds.get(char) ?? UNKNOWN_ID));
    const data = this.shape.inputType === "float32" ? Float32Array.from(ids) : BigInt64Array.from(ids, BigInt);
    const feeds = { [this.shape.input]: new this.ort.Tensor(this.shape.inputType, data, [1, length]) };
    const result = ((await this.session.run(feeds)) as Record<string, Tensor | undefined>)[this.shape.output];
    if (!result) throw new Error("tashkeel model returned no output");
    const dims = result.dims.map(Number);
    const predicted: number[] = [];
    if (result.data instanceof Float32Array && dims.length === 3) {
      const classes = dims[2]!;
      for (let i = 0; i < Math.min(chars.length, dims[1]!); i++) {
        let best = 0;
        for (let k = 1; k < classes; k++) if (result.data[i * classes + k]! > result.data[i * classes + best]!) best = k;
        predicted.push(best);
      }
    } else if (result.data instanceof BigInt64Array) {
      for (let i = 0; i < Math.min(chars.length, result.data.length); i++) predicted.push(Number(result.data[i]));
    } else throw new Error(`tashkeel output has an unsupported shape [${dims.join(", ")}]`);
    return predicted.map((id) => (id === UNKNOWN_ID ? "" : (this.targets.get(id) ?? "")));
  }

  release(): Promise<void> {
    return this.session.release();
  }
}
