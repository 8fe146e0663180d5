/** Browser scripts imported `with { type: "text" }` resolve to their source (embedded when compiled). */
declare module "*.browser.js" {
  const source: string;
  export default source;
}
