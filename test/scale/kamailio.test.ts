/**
 * deploy/kamailio/: render.sh writes a configuration Debian's Kamailio accepts (`kamailio -c`) and
 * one dispatcher line per box, refuses bad input, passes shellcheck as POSIX sh; and a Kamailio
 * started from it probes a real Sawt's MRCP door with OPTIONS: active while the box answers 200,
 * inactive while it drains (503), active again after; an INVITE a box refuses with 503 or does not
 * answer goes to the next box, and that box is marked inactive. (umc through it: test/interop/.)
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startMrcpSawt, type MrcpSawt } from "../mrcp/support.ts";
import { ROOT, tempDir, testTool } from "../support/sawt.ts";
import { answerOf, offer, SipClient } from "../mrcp/client.ts";
import { freePorts } from "./cluster.ts";
import { kamailioBinary, render, startKamailio, type Kamailio } from "./kamailio.ts";

const temp = tempDir("sawt-kamailio-");
let sawt: MrcpSawt | undefined;
let kamailio: Kamailio | undefined;
let spare: MrcpSawt | undefined;
let failover: Kamailio | undefined;

beforeAll(() => {
  kamailioBinary(); // fails here, naming the package, when Kamailio is missing
});

afterAll(async () => {
  await Promise.all([kamailio?.stop(), failover?.stop()]);
  await Promise.all([sawt?.close(), spare?.close()]);
  temp.remove();
});

describe("deploy/kamailio", () => {
  test("does render a configuration kamailio -c accepts and one dispatcher line per box", () => {
    for (const [i, mode] of [["--foreground"], []].entries()) {
      const list = join(temp.path, `dispatcher-${i}.list`);
      const rendered = render([
        ...mode,
        "--list",
        list,
        "--ctl",
        `unix:${join(temp.path, "ctl")}`,
        "box1=10.0.0.11",
        "box2=10.0.0.12:5070",
        "box-3=sawt3.example.net:8060",
      ]);
      expect(rendered).toMatchObject({ code: 0, stderr: "" });
      const cfg = join(temp.path, `kamailio-${i}.cfg`);
      writeFileSync(cfg, rendered.stdout);
      const lines = readFileSync(list, "utf8")
        .split("\n")
        .filter((l) => l && !l.startsWith("#"));
      expect(lines).toEqual([
        "1 sip:10.0.0.11:8060 8 0 name=box1",
        "1 sip:10.0.0.12:5070 8 0 name=box2",
        "1 sip:sawt3.example.net:8060 8 0 name=box-3",
      ]);
      expect(rendered.stdout).toContain(`modparam("dispatcher", "list_file", "${list}")`);
      expect(rendered.stdout).toContain("listen=udp:0.0.0.0:8060");
      const checked = Bun.spawnSync([kamailioBinary(), "-c", "-f", cfg], { stdout: "pipe", stderr: "pipe" });
      const output = checked.stdout.toString() + checked.stderr.toString();
      expect(output).toContain("config file ok");
      expect(checked.exitCode).toBe(0);
    }
  });

  test("does refuse a bad box, option or listen address with exit 2", () => {
    const list = ["--list", join(temp.path, "bad.list")];
    for (const args of [
      [],
      ["box1"],
      ["bad name=10.0.0.1"],
      ["box1=10.0.0.1:80a"],
      ["box1=10.0.0.1:8060:9"],
      ["box1=10.0.0.1;x=y"],
      ["--listen", "8060", "box1=10.0.0.1"],
      ["--ping-interval", "0", "box1=10.0.0.1"],
      ["--transport", "tls", "box1=10.0.0.1"],
      ["--nope", "box1=10.0.0.1"],
    ]) {
      const result = render([...list, ...args]);
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stderr).toStartWith("render.sh: ");
    }
    expect(render(["--list", "relative.list", "box1=10.0.0.1"]).code).toBe(2);
    expect(render(["--help"]).stdout).toContain("NAME=HOST[:SIP_PORT]");
  });

  test("does parse under dash and pass shellcheck as POSIX sh", () => {
    const script = join(ROOT, "deploy/kamailio/render.sh");
    const dash = Bun.spawnSync([testTool("dash", "dash"), "-n", script], { stderr: "pipe" });
    expect(dash.exitCode).toBe(0);
    const shellcheck = Bun.spawnSync([testTool("shellcheck", "shellcheck"), "--shell=sh", script], { stdout: "pipe" });
    expect(shellcheck.stdout.toString()).toBe("");
    expect(shellcheck.exitCode).toBe(0);
  });

  test("does probe a Sawt box with OPTIONS: active when ready, inactive while it drains, active after", async () => {
    sawt = await startMrcpSawt();
    await sawt.sawt.server.enginesSettled;
    const [port] = await freePorts(1);
    kamailio = await startKamailio(temp.path, port!, [`box1=127.0.0.1:${sawt.sipPort}`]);
    const uri = `sip:127.0.0.1:${sawt.sipPort}`;
    await kamailio.waitState([uri], "A");
    // What a SIGTERM with server.drain_grace_ms does first: OPTIONS answer 503 Draining.
    sawt.sawt.server.ctx.shuttingDown = true;
    await kamailio.waitState([uri], "I", 5000);
    sawt.sawt.server.ctx.shuttingDown = false;
    await kamailio.waitState([uri], "A", 5000);
  }, 60_000);

  test("does put a session on the next box when one refuses the INVITE with 503 or does not answer", async () => {
    // Probes every 30 s: what takes the boxes out here is the INVITE's own failure, not a probe.
    sawt ??= await startMrcpSawt();
    spare = await startMrcpSawt();
    await Promise.all([sawt.sawt.server.enginesSettled, spare.sawt.server.enginesSettled]);
    const [port, dead] = await freePorts(2);
    const dir = join(temp.path, "failover");
    mkdirSync(dir);
    failover = await startKamailio(
      dir,
      port!,
      [`dead=127.0.0.1:${dead}`, `draining=127.0.0.1:${spare.sipPort}`, `ready=127.0.0.1:${sawt.sipPort}`],
      ["--ping-interval", "30"],
    );
    sawt.sawt.server.ctx.shuttingDown = false;
    spare.sawt.server.ctx.shuttingDown = true; // OPTIONS and INVITE: 503
    const before = sawt.sawt.server.mrcp!.sessions;
    for (let i = 0; i < 3; i++) {
      const client = await SipClient.open(port!);
      try {
        client.raw(client.request("INVITE", { body: offer(["speechsynth"], 40000 + i * 2) }));
        const reply = await client.next((r) => r.status >= 200, 8000);
        expect(reply.status).toBe(200);
        expect(reply.header("contact")).toContain(`:${sawt.sipPort}>`);
        expect(answerOf(reply.text).mrcpPort).toBe(sawt.mrcpPort);
        // In-dialog requests go to the box's Contact; Kamailio relays them only from a box.
        client.raw(client.request("BYE", { toTag: /tag=([^;\s]+)/.exec(reply.header("to") ?? "")?.[1] }));
        expect((await client.next()).status).toBe(403);
      } finally {
        client.close();
      }
    }
    expect(sawt.sawt.server.mrcp!.sessions - before).toBe(3);
    expect(spare.sawt.server.mrcp!.sessions).toBe(0);
    const states = await failover.states();
    expect(states[`sip:127.0.0.1:${dead}`]).toStartWith("I");
    expect(states[`sip:127.0.0.1:${spare.sipPort}`]).toStartWith("I");
    expect(states[`sip:127.0.0.1:${sawt.sipPort}`]).toStartWith("A");
    console.info(failover.logs.filter((l) => l.includes("sawt:")).join("\n"));
  }, 60_000);
});
