/**
 * UniMRCP's sample client `umc` (../shared/tools/unimrcp, built once by its build.sh) as the real
 * peer of Sawt's MRCPv2 door: a private root per run (loopback only, its own SIP and RTP ports,
 * the "uni2" profile pointed at the server under test), a scenario run through stdin, its log and
 * the files it wrote. Every run is bounded by a timeout.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const TOOL = resolve(import.meta.dir, "../../../shared/tools/unimrcp");

/**
 * The built UniMRCP prefix (SAWT_UNIMRCP_PREFIX from `bun run interop`, else build.sh, which
 * only prints it once built), or a one-line reason why there is none.
 */
export function umcPrefix(): { prefix: string } | { missing: string } {
  const given = process.env.SAWT_UNIMRCP_PREFIX;
  if (given && existsSync(join(given, "bin", "umc"))) return { prefix: given };
  if (!existsSync(join(TOOL, "build.sh"))) return { missing: `UniMRCP tool not found at ${TOOL}` };
  const result = Bun.spawnSync(["sh", join(TOOL, "build.sh")], { stdout: "pipe", stderr: "pipe" });
  const prefix = result.stdout.toString().trim().split("\n").at(-1) ?? "";
  if (result.exitCode !== 0 || !existsSync(join(prefix, "bin", "umc"))) {
    return { missing: `UniMRCP build failed: ${result.stderr.toString().trim().split("\n").at(-1)}` };
  }
  return { prefix };
}

let nextPort = 24000 + ((process.pid * 7) % 2000) * 4;

/** One umc root. */
export interface UmcRoot {
  readonly dir: string;
  /** Writes a data file (grammar, text, audio) into the root. */
  data(name: string, content: string | Uint8Array): void;
  /** Replaces a scenario file's text. */
  scenario(name: string, xml: string): void;
  /** Runs umc: `commands` are written to stdin one per `gapMs`, then quit. Resolves its log. */
  run(commands: readonly string[], options?: { gapMs?: number; waitMs?: number }): Promise<string>;
  /** Files umc wrote under var/. */
  outputs(): { name: string; bytes: Uint8Array }[];
  remove(): void;
}

/**
 * Makes a private root pointing the "uni2" profile at `sipPort`; `codecs` replaces the offer's
 * codec list (umc's `<codecs>`, e.g. `L16/96/16000 telephone-event/101/16000`).
 */
export function umcRoot(prefix: string, sipPort: number, codecs?: string): UmcRoot {
  const dir = mkdtempSync(join(tmpdir(), "sawt-umc-"));
  cpSync(join(prefix, "conf"), join(dir, "conf"), { recursive: true });
  cpSync(join(prefix, "data"), join(dir, "data"), { recursive: true });
  mkdirSync(join(dir, "var"));
  mkdirSync(join(dir, "log"));
  const ownSip = nextPort;
  const rtpMin = nextPort + 2;
  nextPort += 4;
  const clientConf = join(dir, "conf", "unimrcpclient.xml");
  writeFileSync(
    clientConf,
    readFileSync(clientConf, "utf8")
      .replace('<ip type="auto"/>', "<ip>127.0.0.1</ip>")
      .replace("<sip-port>8062</sip-port>", `<sip-port>${ownSip}</sip-port>`)
      .replace("<rtp-port-min>4000</rtp-port-min>", `<rtp-port-min>${rtpMin}</rtp-port-min>`)
      .replace("<rtp-port-max>5000</rtp-port-max>", `<rtp-port-max>${rtpMin + 1}</rtp-port-max>`)
      .replace(/<codecs>[^<]*<\/codecs>/, (list) => (codecs ? `<codecs>${codecs}</codecs>` : list)),
  );
  const profile = join(dir, "conf", "client-profiles", "unimrcp.xml");
  writeFileSync(
    profile,
    readFileSync(profile, "utf8")
      .replace("<server-port>8060</server-port>", `<server-port>${sipPort}</server-port>`)
      .replace(/<server-ip>[^<]*<\/server-ip>/g, "<server-ip>127.0.0.1</server-ip>"),
  );
  return {
    dir,
    data: (name, content) => writeFileSync(join(dir, "data", name), content),
    scenario: (name, xml) => writeFileSync(join(dir, "conf", "umc-scenarios", name), xml),
    async run(commands, options = {}) {
      const child = Bun.spawn([join(prefix, "bin", "umc"), "-r", dir, "-o", "1", "-l", "6"], {
        env: { ...process.env, LD_LIBRARY_PATH: join(prefix, "lib") },
        stdin: "pipe",
        stdout: "pipe",
        stderr: "pipe",
      });
      const killer = setTimeout(() => child.kill(), 60_000);
      await Bun.sleep(500);
      for (const command of commands) {
        child.stdin.write(`${command}\n`);
        child.stdin.flush();
        await Bun.sleep(options.gapMs ?? 500);
      }
      await Bun.sleep(options.waitMs ?? 0);
      child.stdin.write("quit\n");
      child.stdin.end();
      const [out, err] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()]);
      await child.exited;
      clearTimeout(killer);
      return out + err;
    },
    outputs: () =>
      readdirSync(join(dir, "var")).map((name) => ({
        name,
        bytes: new Uint8Array(readFileSync(join(dir, "var", name))),
      })),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
