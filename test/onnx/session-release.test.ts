/**
 * Releasing sessions with runs in flight (a pool's background warm-up, a request whose client left,
 * a hot reload or shutdown right after a request): the runs end first, later runs are refused, and
 * the process lives. Terminating the worker inside onnxruntime's run used to abort the process.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";

describe("session release with runs in flight", () => {
  test("does let the runs finish, refuse later ones and keep the process alive", async () => {
    const proc = Bun.spawn([process.execPath, join(import.meta.dir, "session-release-child.ts")], {
      stdout: "pipe",
      stderr: "pipe",
      env: { ...process.env, SAWT_LOG_LEVEL: "warn" },
    });
    const [out, err, code] = await Promise.all([
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
      proc.exited,
    ]);
    expect({ code, aborted: err.includes("terminate called") }).toEqual({ code: 0, aborted: false });
    expect(JSON.parse(out.trim())).toEqual({
      inFlight: [1, 2, 3, 4],
      afterPlain: expect.stringMatching(/^rejected: session for .* is released$/),
      first: [1, 2, 3, 4],
      afterPool: expect.stringMatching(/^rejected: session for .* is released$/),
    });
  });
});
