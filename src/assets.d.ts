/** File assets imported `with { type: "file" }` resolve to their path (embedded when compiled). */
declare module "*.so.1" {
  const path: string;
  export default path;
}
/** ONNX models imported `with { type: "file" }` (the built-in diacritiser) resolve to their path. */
declare module "*.onnx" {
  const path: string;
  export default path;
}
