import { expect, test } from "bun:test";
import { log } from "../log/logger.ts";
import { EngineState } from "../serving/engine-state.ts";
import type { Notifier } from "../serving/sd-notify.ts";
import type { RunningServer } from "./server.ts";
import { until } from "../../test/support/sawt.ts";
import { describeEngines, superviseServer } from "./supervision.ts";

function harness() {
  const sent: string[] = [];
  const notifier: Notifier = { enabled: true, backend: "libc", notify: (s) => (sent.push(s), true), close: () => {} };
  const tts = new EngineState("tts");
  const asr = new EngineState("asr");
  let settle!: () => void;
  const engines = new Promise<void>((resolve) => (settle = resolve));
  const server = { ctx: { engines: { tts, asr }, log }, enginesSettled: engines } as unknown as RunningServer;
  return { sent, notifier, tts, asr, settle, server };
}

test("does send READY=1 only when the engines have settled", async () => {
  const h = harness();
  const supervision = superviseServer(h.server, { env: {}, notifier: h.notifier });
  await Bun.sleep(0);
  expect(h.sent).toEqual([]);
  h.tts.ready();
  h.asr.fail("no ASR pack");
  h.settle();
  await h.server.enginesSettled;
  await Bun.sleep(0);
  expect(h.sent).toEqual(["READY=1\nSTATUS=degraded: tts ready, asr failed (no ASR pack)"]);
  supervision.stopping();
  expect(h.sent.at(-1)).toBe("STOPPING=1\nSTATUS=draining");
  supervision.close();
});

test("does withhold WATCHDOG=1 when an engine fails after being ready, but not for one that never came up", async () => {
  const h = harness();
  h.tts.ready();
  h.asr.fail("no ASR pack");
  const supervision = superviseServer(h.server, { env: { WATCHDOG_USEC: "20000" }, notifier: h.notifier });
  const pings = () => h.sent.filter((s) => s === "WATCHDOG=1").length;
  await until(() => pings() >= 2, "two watchdog pings");
  h.tts.fail("CUDA context lost");
  const frozen = pings();
  // Five ping intervals pass without a ping.
  await Bun.sleep(50);
  expect(pings()).toBe(frozen);
  supervision.close();
});

test("does describe disabled engines as such", () => {
  const tts = new EngineState("tts");
  tts.ready();
  const asr = new EngineState("asr");
  asr.setDetails({ enabled: false });
  expect(describeEngines([tts.snapshot(), asr.snapshot()])).toBe("serving: tts ready, asr disabled");
});
