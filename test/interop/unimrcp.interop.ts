/**
 * UniMRCP 1.8.0's client, the real MRCPv2 peer Asterisk and FreeSWITCH use (../shared/tools/unimrcp,
 * built by `bun run interop`, test/interop/run.ts, which passes its prefix in SAWT_UNIMRCP_PREFIX).
 * Sawt has no MRCP server yet: these tests hold the peer ready — built, runnable, loading its
 * scenarios on a private loopback root — so the MRCP tests can drive it against Sawt.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/sawt.ts";

const prefix = process.env.SAWT_UNIMRCP_PREFIX ?? "";
const work = tempDir("sawt-interop-umc-");
afterAll(() => work.remove());

/** Runs one of UniMRCP's tools with its libraries, bounded in time, `stdin` written to it. */
async function tool(name: string, args: string[], stdin = "") {
  const proc = Bun.spawn(["timeout", "20", join(prefix, "bin", name), ...args], {
    env: { ...process.env, LD_LIBRARY_PATH: join(prefix, "lib") },
    stdin: new TextEncoder().encode(stdin),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { stdout, stderr, code };
}

/** A private umc root (conf, data, var, log) on loopback, with its own SIP and RTP ports. */
function umcRoot(): string {
  const root = join(work.path, "umc");
  for (const dir of ["conf", "data"]) cpSync(join(prefix, dir), join(root, dir), { recursive: true });
  for (const dir of ["var", "log"]) mkdirSync(join(root, dir), { recursive: true });
  const sip = 20_000 + Math.floor(Math.random() * 10_000);
  const config = join(root, "conf", "unimrcpclient.xml");
  writeFileSync(
    config,
    readFileSync(config, "utf8")
      .replace('<ip type="auto"/>', "<ip>127.0.0.1</ip>")
      .replace("<sip-port>8062</sip-port>", `<sip-port>${sip}</sip-port>`)
      .replace("<rtp-port-min>4000</rtp-port-min>", `<rtp-port-min>${sip + 2}</rtp-port-min>`)
      .replace("<rtp-port-max>5000</rtp-port-max>", `<rtp-port-max>${sip + 200}</rtp-port-max>`),
  );
  return root;
}

describe("UniMRCP's client tools", () => {
  test("does find umc and asrclient built, each answering --help with its options", async () => {
    expect(prefix).not.toBe("");
    for (const name of ["umc", "asrclient"]) {
      expect(existsSync(join(prefix, "bin", name))).toBe(true);
      const help = await tool(name, ["--help"]);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain(`${name} [options]`);
      expect(help.stdout).toContain("--root-dir");
    }
  });

  test("does start umc on a private loopback root, load the synth and recog scenarios and quit on command", async () => {
    const run = await tool("umc", ["-r", umcRoot(), "-o", "1", "-l", "6"], "quit\n");
    const log = run.stdout + run.stderr;
    expect(run.code).toBe(0);
    expect(log).toContain("Load Scenario Name [synth]");
    expect(log).toContain("Load Scenario Name [recog]");
    expect(log).toContain("MRCP Client Terminated");
  });
});
