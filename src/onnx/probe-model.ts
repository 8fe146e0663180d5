/**
 * A minimal ONNX model (y = Identity(x), float32 [1]) encoded here, so `sawt doctor` can prove a
 * real onnxruntime session opens without any model pack installed.
 */

function varint(value: number): number[] {
  const out: number[] = [];
  let v = value;
  while (v > 0x7f) {
    out.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  out.push(v);
  return out;
}

function field(no: number, payload: number[] | string): number[] {
  const bytes = typeof payload === "string" ? [...new TextEncoder().encode(payload)] : payload;
  return [...varint((no << 3) | 2), ...varint(bytes.length), ...bytes];
}

function intField(no: number, value: number): number[] {
  return [...varint(no << 3), ...varint(value)];
}

function valueInfo(name: string): number[] {
  const dim = field(1, intField(1, 1));
  const shape = field(2, dim);
  const tensorType = field(1, [...intField(1, 1), ...shape]);
  return [...field(1, name), ...field(2, tensorType)];
}

/** Bytes of the probe model: input `x`, output `y`, both float32 [1]. */
export function probeModelBytes(): Uint8Array {
  const node = [...field(1, "x"), ...field(2, "y"), ...field(4, "Identity")];
  const graph = [
    ...field(1, node),
    ...field(2, "sawt_probe"),
    ...field(11, valueInfo("x")),
    ...field(12, valueInfo("y")),
  ];
  const opset = [...field(1, ""), ...intField(2, 17)];
  return new Uint8Array([...intField(1, 8), ...field(8, opset), ...field(7, graph)]);
}
