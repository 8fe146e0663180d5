/** File assets imported `with { type: "file" }` resolve to their path (embedded when compiled). */
declare module "*.so.1" {
  const path: string;
  export default path;
}
