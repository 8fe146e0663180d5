/** `.proto` files imported `with { type: "file" }` resolve to a readable path (embedded when compiled). */
declare module "*.proto" {
  const path: string;
  export default path;
}
