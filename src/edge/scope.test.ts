import { describe, expect, test } from "bun:test";
import type { AppContext } from "../core/context.ts";
import { AppError } from "../errors/taxonomy.ts";
import { openScope, type CallObservation } from "./scope.ts";

/** A context whose logger records lines; the scope reads nothing else unless it authenticates. */
function recordingContext(): {
  ctx: AppContext;
  lines: Array<{ level: string; msg: string; fields: Record<string, unknown> }>;
} {
  const lines: Array<{ level: string; msg: string; fields: Record<string, unknown> }> = [];
  const log = {
    info: (msg: string, fields: Record<string, unknown>) => lines.push({ level: "info", msg, fields }),
    error: (msg: string, fields: Record<string, unknown>) => lines.push({ level: "error", msg, fields }),
  };
  return { ctx: { log } as unknown as AppContext, lines };
}

describe("CallScope", () => {
  test("does abort with a TimeoutError when the deadline passes, and report it as timeoutMs", async () => {
    const { ctx } = recordingContext();
    const scope = openScope(ctx, { event: "test", method: "m", requestId: "r", deadlineMs: Date.now() + 20 });
    expect(scope.options.timeoutMs).toBeLessThanOrEqual(20);
    await Bun.sleep(40);
    expect((scope.signal.reason as DOMException).name).toBe("TimeoutError");
    scope.dispose();
  });

  test("does count a client cancel as a cancel, or as the deadline when it comes at the deadline", () => {
    const { ctx } = recordingContext();
    const early = openScope(ctx, { event: "test", method: "m", requestId: "r", deadlineMs: Date.now() + 60_000 });
    early.cancel();
    expect((early.signal.reason as DOMException).name).toBe("AbortError");
    early.dispose();
    const late = openScope(ctx, { event: "test", method: "m", requestId: "r", deadlineMs: Date.now() + 50 });
    late.cancel();
    expect((late.signal.reason as DOMException).name).toBe("TimeoutError");
    late.dispose();
  });

  test("does end with its parent signal (a closing connection)", () => {
    const { ctx } = recordingContext();
    const connection = new AbortController();
    const scope = openScope(ctx, { event: "test", method: "m", requestId: "r", parent: connection.signal });
    expect(scope.options.timeoutMs).toBeUndefined();
    connection.abort(new Error("closed"));
    expect(scope.signal.aborted).toBe(true);
  });

  test("does log and observe a finished call once, as an error only when the failure was unexpected", () => {
    const { ctx, lines } = recordingContext();
    const seen: CallObservation[] = [];
    const ok = openScope(ctx, { event: "test", method: "m", requestId: "r1", observe: (o) => seen.push(o) });
    ok.finish("OK");
    ok.finish("OK");
    openScope(ctx, { event: "test", method: "m", requestId: "r2" }).finish(
      "UNAVAILABLE",
      new AppError("unavailable", "busy"),
    );
    openScope(ctx, { event: "test", method: "m", requestId: "r3" }).finish("INTERNAL", new Error("boom"));
    expect(seen.map((o) => [o.method, o.code])).toEqual([["m", "OK"]]);
    expect(lines.map((l) => [l.level, l.msg, l.fields.request_id, l.fields.code])).toEqual([
      ["info", "test", "r1", "OK"],
      ["info", "test", "r2", "UNAVAILABLE"],
      ["error", "test call failed", "r3", "INTERNAL"],
    ]);
    expect(Object.keys(lines[0]!.fields).sort()).toEqual(["code", "method", "ms", "request_id"]);
  });
});
