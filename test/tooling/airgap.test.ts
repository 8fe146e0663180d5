/**
 * Issue 39, acceptance 4: the README says nothing is downloaded at run time and no byte leaves the
 * box except to hosts the operator configured. `npm test` (and `.ci/run`'s interop suite) run
 * through test/offline.sh, inside a network namespace that has only loopback, after the install
 * step: the suite passing there is the proof that no test, and no server a test starts, needs
 * the network. This file checks the namespace is what it claims — only `lo`, no route, a
 * connection to any other address refused at once while loopback works — and that CI cannot lose
 * it silently. (Inside the ordinary namespace, test/reliability/doors.test.ts watches the server's
 * sockets during the fuzz for any to a non-loopback address.)
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../support/sawt.ts";

/** Interfaces and IPv4 routes of the namespace `/proc` shows. */
function network(dev: string, route: string): { interfaces: string[]; routes: number } {
  const interfaces = dev
    .split("\n")
    .slice(2)
    .map((line) => line.split(":")[0]!.trim())
    .filter(Boolean);
  return {
    interfaces,
    routes: route
      .split("\n")
      .slice(1)
      .filter((l) => l.trim()).length,
  };
}

/** Run inside the namespace: a local server answers; a TEST-NET address cannot even be tried. */
const PROBE = `
const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("here") });
const local = await (await fetch("http://127.0.0.1:" + server.port + "/")).text();
const started = performance.now();
const far = await fetch("http://192.0.2.1:9/", { signal: AbortSignal.timeout(5000) }).then(() => "answered", (e) => e.code ?? e.name);
console.log(JSON.stringify({ local, far, ms: Math.round(performance.now() - started) }));
server.stop(true);
`;

test("does run a command through test/offline.sh where only loopback exists", () => {
  const run = Bun.spawnSync(
    [
      "sh",
      join(ROOT, "test/offline.sh"),
      "sh",
      "-c",
      'cat /proc/net/dev; echo ==; cat /proc/net/route; echo ==; "$0" -e "$1"',
      process.execPath,
      PROBE,
    ],
    { stdout: "pipe", stderr: "pipe", env: { ...process.env, SAWT_TEST_NETNS: "1" } },
  );
  expect(run.stderr.toString()).toBe("");
  expect(run.exitCode).toBe(0);
  const [dev, route, probe] = run.stdout.toString().split("==\n") as [string, string, string];
  expect(network(dev, route)).toEqual({ interfaces: ["lo"], routes: 0 });
  const result = JSON.parse(probe.trim()) as { local: string; far: string; ms: number };
  expect(result.local).toBe("here");
  // No route: the kernel refuses at once; nothing waits for a timeout and nothing is sent.
  expect(result.far).not.toBe("answered");
  expect(result.far).not.toBe("TimeoutError");
  expect(result.ms).toBeLessThan(2000);
});

test("does run this suite inside that namespace under CI", () => {
  const here = network(readFileSync("/proc/net/dev", "utf8"), readFileSync("/proc/net/route", "utf8"));
  if (process.env.SAWT_TEST_OFFLINE === "1") {
    expect(here).toEqual({ interfaces: ["lo"], routes: 0 });
  } else {
    // Outside the wrapper (a targeted run): only CI must never be here.
    expect(process.env.CI ?? "", "CI runs the suite through test/offline.sh (npm test)").not.toMatch(/^(true|1)$/);
  }
});
