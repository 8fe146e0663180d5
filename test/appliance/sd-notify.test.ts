import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { createNotifier, watchdogIntervalMs } from "../../src/serving/sd-notify.ts";
import { writeToneCtcPack } from "../support/models/ctc.ts";
import { startSawt, tempDir } from "../support/sawt.ts";
import { listenNotifySocket, type NotifyListener } from "./notify-listener.ts";

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

function listener(abstract = false): NotifyListener {
  const dir = tempDir("sawt-notify-");
  const path = abstract
    ? `@sawt-test-notify-${process.pid}-${Math.random().toString(36).slice(2)}`
    : join(dir.path, "notify.sock");
  const l = listenNotifySocket(path);
  cleanups.push(
    () => dir.remove(),
    () => l.close(),
  );
  return l;
}

describe("sawt serve under a Type=notify service manager", () => {
  test("does send READY=1 once engines are ready, WATCHDOG=1 pings, and STOPPING=1 on SIGTERM", async () => {
    const notify = listener();
    // With a recogniser pack installed the ASR engine loads too, so READY=1 waits for both engines.
    const models = tempDir("sawt-notify-models-");
    cleanups.push(() => models.remove());
    await writeToneCtcPack(join(models.path, "tone-ctc"));
    const server = await startSawt({
      env: { NOTIFY_SOCKET: notify.path, WATCHDOG_USEC: "1000000", SAWT_MODELS_DIR: models.path },
    });
    cleanups.push(() => server.proc.kill("SIGKILL"));
    const ready = await notify.waitFor((m) => m.split("\n").includes("READY=1"));
    // READY=1 is only sent after the engines settled, so readiness must already be reported.
    const readiness = await fetch(`${server.baseUrl}/ready`);
    expect(readiness.status).toBe(200);
    expect(ready).toMatch(/^STATUS=serving: tts ready, asr ready$/m);
    expect(notify.messages.some((m) => m.startsWith("STOPPING=1"))).toBe(false);

    // WATCHDOG_USEC=1 s → a ping every 500 ms; wait for a few.
    const pingsBefore = notify.messages.filter((m) => m === "WATCHDOG=1").length;
    await notify.waitFor(() => notify.messages.filter((m) => m === "WATCHDOG=1").length >= pingsBefore + 2);

    expect(await server.stop("SIGTERM")).toBe(0);
    const stopping = await notify.waitFor((m) => m.split("\n").includes("STOPPING=1"));
    expect(stopping).toContain("STATUS=draining");
    expect(notify.messages.indexOf(stopping)).toBeGreaterThan(notify.messages.indexOf(ready));
    expect(server.logs.some((l) => l.includes('"notified systemd"') && l.includes('"backend":"libsystemd"'))).toBe(
      true,
    );
  }, 60_000);

  test("does not ping the watchdog when WATCHDOG_PID names another process", async () => {
    const notify = listener();
    const server = await startSawt({ env: { NOTIFY_SOCKET: notify.path, WATCHDOG_USEC: "200000", WATCHDOG_PID: "1" } });
    cleanups.push(() => server.proc.kill("SIGKILL"));
    await notify.waitFor((m) => m.split("\n").includes("READY=1"));
    // An enabled watchdog pings at once when it starts (before READY=1), so one would be here by now.
    expect(await server.stop("SIGTERM")).toBe(0);
    await notify.waitFor((m) => m.startsWith("STOPPING=1"));
    expect(notify.messages.filter((m) => m === "WATCHDOG=1")).toEqual([]);
  }, 60_000);
});

describe("notifier backends", () => {
  const module = join(import.meta.dir, "..", "..", "src", "serving", "sd-notify.ts");
  for (const backend of ["libsystemd", "libc"] as const) {
    for (const abstract of [false, true]) {
      test(`does deliver a datagram through ${backend} to a ${abstract ? "abstract" : "filesystem"} socket`, async () => {
        const notify = listener(abstract);
        // A child process, because libsystemd reads NOTIFY_SOCKET from the real process environment.
        const script = `const { createNotifier } = await import(${JSON.stringify(module)});
          const n = createNotifier({ backend: ${JSON.stringify(backend)} });
          console.log(JSON.stringify({ enabled: n.enabled, backend: n.backend, sent: n.notify("STATUS=hello\\nREADY=1") }));`;
        const child = Bun.spawnSync([process.execPath, "-e", script], {
          env: { ...process.env, NOTIFY_SOCKET: notify.path },
          stdout: "pipe",
          stderr: "pipe",
        });
        expect(child.stderr.toString()).toBe("");
        expect(JSON.parse(child.stdout.toString())).toEqual({ enabled: true, backend, sent: true });
        expect(await notify.waitFor((m) => m.includes("READY=1"))).toBe("STATUS=hello\nREADY=1");
      });
    }
  }

  test("does fall back to libc when the socket is not the process's own", async () => {
    const notify = listener();
    const notifier = createNotifier({ env: { NOTIFY_SOCKET: notify.path } });
    cleanups.push(() => notifier.close());
    expect(notifier.backend).toBe("libc");
    expect(notifier.notify("READY=1")).toBe(true);
    expect(await notify.waitFor((m) => m === "READY=1")).toBe("READY=1");
  });

  test("does nothing when NOTIFY_SOCKET is unset", () => {
    const notifier = createNotifier({ env: {} });
    expect(notifier.enabled).toBe(false);
    expect(notifier.notify("READY=1")).toBe(false);
  });

  test("does report a send failure when nobody listens on NOTIFY_SOCKET", () => {
    const dir = tempDir("sawt-notify-");
    cleanups.push(() => dir.remove());
    const notifier = createNotifier({ env: { NOTIFY_SOCKET: join(dir.path, "absent.sock") }, backend: "libc" });
    expect(notifier.notify("READY=1")).toBe(false);
  });

  test("does ping at half of WATCHDOG_USEC and only for the named process", () => {
    expect(watchdogIntervalMs({ WATCHDOG_USEC: "30000000" }, 42)).toBe(15_000);
    expect(watchdogIntervalMs({ WATCHDOG_USEC: "30000000", WATCHDOG_PID: "42" }, 42)).toBe(15_000);
    expect(watchdogIntervalMs({ WATCHDOG_USEC: "30000000", WATCHDOG_PID: "7" }, 42)).toBeUndefined();
    expect(watchdogIntervalMs({}, 42)).toBeUndefined();
    expect(watchdogIntervalMs({ WATCHDOG_USEC: "0" }, 42)).toBeUndefined();
  });
});
