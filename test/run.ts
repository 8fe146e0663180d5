/**
 * The test command (`npm test` → `bun test/run.ts`): runs `bun test` over the suite and prints a
 * last line `N passed, N failed` that CI recognises (bun's own summary is not). Exit code is bun's,
 * or 1 when nothing ran.
 */
// A 60 s default for every test and hook: integration tests start real servers, ffmpeg and ONNX
// sessions. Only the flag applies to every file (bun 1.4.5 ignores bunfig's [test] timeout, and
// setDefaultTimeout in a preload reaches the first file only).
const TIMEOUT = ["--timeout", "60000"];
const given = process.argv.slice(2);
const args = given.some((a) => a.startsWith("--timeout")) ? given : [...TIMEOUT, ...given];
const proc = Bun.spawn([process.execPath, "test", ...args], {
  cwd: `${import.meta.dir}/..`,
  stdout: "pipe",
  stderr: "pipe",
  env: { ...process.env, FORCE_COLOR: "0", NO_COLOR: "1" },
});
let passed = 0;
let failed = 0;
let skipped = 0;

async function pump(stream: ReadableStream<Uint8Array>, out: NodeJS.WriteStream): Promise<void> {
  const decoder = new TextDecoder();
  let pending = "";
  for await (const chunk of stream) {
    out.write(chunk);
    pending += decoder.decode(chunk, { stream: true });
    const lines = pending.split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) count(line);
  }
  count(pending);
}

function count(line: string): void {
  const m = /^\s*(\d+) (pass|fail|skip)\s*$/.exec(line);
  if (!m) return;
  const n = Number(m[1]);
  if (m[2] === "pass") passed += n;
  else if (m[2] === "fail") failed += n;
  else skipped += n;
}

await Promise.all([pump(proc.stdout, process.stdout), pump(proc.stderr, process.stderr)]);
const code = await proc.exited;
if (code !== 0 && failed === 0) failed = 1; // a crash or a load error is a failure too
console.log(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(code !== 0 ? code : passed === 0 ? 1 : 0);
