/**
 * ONNX wire facts shared by the pack validator (onnx-metadata.ts) and the test model builder:
 * protobuf field numbers from onnx.proto and the TensorProto.DataType codes. Only the fields Sawt
 * reads or writes are named.
 */

/** ModelProto field numbers. */
export const ModelField = {
  IR_VERSION: 1,
  PRODUCER_NAME: 2,
  PRODUCER_VERSION: 3,
  DOC_STRING: 6,
  GRAPH: 7,
  OPSET_IMPORT: 8,
  METADATA_PROPS: 14,
} as const;

/** OperatorSetIdProto field numbers. */
export const OpsetField = { DOMAIN: 1, VERSION: 2 } as const;

/** StringStringEntryProto field numbers (metadata_props entries). */
export const EntryField = { KEY: 1, VALUE: 2 } as const;

/** GraphProto field numbers. */
export const GraphField = {
  NODE: 1,
  NAME: 2,
  INITIALIZER: 5,
  INPUT: 11,
  OUTPUT: 12,
  VALUE_INFO: 13,
} as const;

/** NodeProto field numbers. */
export const NodeField = { INPUT: 1, OUTPUT: 2, NAME: 3, OP_TYPE: 4, ATTRIBUTE: 5, DOMAIN: 7 } as const;

/** AttributeProto field numbers. */
export const AttributeField = {
  NAME: 1,
  F: 2,
  I: 3,
  S: 4,
  T: 5,
  G: 6,
  FLOATS: 7,
  INTS: 8,
  GRAPHS: 11,
  TYPE: 20,
} as const;

/** AttributeProto.AttributeType values. */
export const AttributeType = {
  FLOAT: 1,
  INT: 2,
  STRING: 3,
  TENSOR: 4,
  FLOATS: 6,
  INTS: 7,
} as const;

/** TensorProto field numbers. */
export const TensorField = { DIMS: 1, DATA_TYPE: 2, NAME: 8, RAW_DATA: 9, DATA_LOCATION: 14 } as const;

/** TensorProto.DataLocation values. */
export const DataLocation = { DEFAULT: 0, EXTERNAL: 1 } as const;

/** ValueInfoProto field numbers. */
export const ValueInfoField = { NAME: 1, TYPE: 2 } as const;

/** TypeProto field numbers (only the tensor arm; sequences and maps are reported as non-tensors). */
export const TypeField = { TENSOR_TYPE: 1 } as const;

/** TypeProto.Tensor field numbers. */
export const TensorTypeField = { ELEM_TYPE: 1, SHAPE: 2 } as const;

/** TensorShapeProto field numbers. */
export const ShapeField = { DIM: 1 } as const;

/** TensorShapeProto.Dimension field numbers. */
export const DimField = { VALUE: 1, PARAM: 2 } as const;

/**
 * TensorProto.DataType codes by the element-type names onnxruntime-node uses for tensors
 * (`Tensor.Type`), so a type read from a file compares directly with a session's metadata.
 */
export const ElemTypeCode = {
  float32: 1,
  uint8: 2,
  int8: 3,
  uint16: 4,
  int16: 5,
  int32: 6,
  int64: 7,
  string: 8,
  bool: 9,
  float16: 10,
  float64: 11,
  uint32: 12,
  uint64: 13,
  complex64: 14,
  complex128: 15,
  bfloat16: 16,
} as const;

/** An element-type name with a known DataType code. */
export type OnnxElemType = keyof typeof ElemTypeCode;

const NAMES_BY_CODE = new Map<number, OnnxElemType>(
  Object.entries(ElemTypeCode).map(([name, code]) => [code, name as OnnxElemType]),
);

/**
 * The element-type name of a DataType code; codes this table does not know (newer float8/int4
 * kinds) come back as `type<N>` so that reading a model never fails on them.
 */
export function elemTypeName(code: number): OnnxElemType | `type${number}` {
  return NAMES_BY_CODE.get(code) ?? `type${code}`;
}
