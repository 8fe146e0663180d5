/**
 * SIPp (Debian's sip-tester, 3.6) as the SIP side of the interop suite: it runs one of the
 * scenarios in ../sipp/ against a SIP address, with its own loopback port, an injection file of
 * per-call fields (`-inf`, read in order) and globals (`-set`). Session scenarios write one line per
 * answered call (`key=value` pairs: the MRCP port, channels and audio port of Sawt's SDP answer)
 * to the run's calls file with `<exec>`, which the test reads while the call holds (`-d`, the
 * length of the scenario's `<pause/>`) before SIPp sends its BYE. The evidence is SIPp's exit code,
 * its statistics, and its `-trace_msg`/`-trace_err` files; every run is bounded in time.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { testTool } from "../../support/sawt.ts";

const SCENARIOS = join(import.meta.dir, "..", "sipp");

/** How to run a scenario. */
export interface SippOptions {
  /** A file in test/interop/sipp/. */
  readonly scenario: string;
  /** `host:port` of the SIP server. */
  readonly target: string;
  /** Calls to place (-m), at most this many at once (-l), at this many per second (-r). */
  readonly calls?: number;
  readonly limit?: number;
  readonly rate?: number;
  /** Milliseconds a call holds after its ACK (the scenario's `<pause/>`, -d). */
  readonly holdMs?: number;
  /** Per-call fields, one row per call in order (`[field0]`, `[field1]`, …). */
  readonly rows?: readonly (readonly (string | number)[])[];
  /** SIPp's own address (default 127.0.0.1) and port (default: a free one, never a port an earlier run used). */
  readonly localIp?: string;
  readonly localPort?: number;
  /** `u1` (UDP, default) or `t1` (TCP). */
  readonly transport?: "u1" | "t1";
  /** Globals of the scenario (`-set name value`). */
  readonly vars?: Readonly<Record<string, string>>;
  /** The whole run's bound. */
  readonly timeoutMs?: number;
}

/** A call SIPp placed and Sawt answered, as the scenario wrote it. */
export type SippCall = Readonly<Record<string, string>>;

/** What a finished run reports. */
export interface SippResult {
  readonly code: number;
  readonly successful: number;
  readonly failed: number;
  readonly stdout: string;
  /** -trace_msg: every message sent and received. */
  readonly messages: string;
  /** -trace_err: unexpected messages and errors (empty on a clean run). */
  readonly errors: string;
}

/** A running SIPp. */
export interface SippRun {
  /** The first `count` calls written, waiting for them as they come. */
  calls(count: number, timeoutMs?: number): Promise<SippCall[]>;
  readonly done: Promise<SippResult>;
  kill(): void;
}

let nextPort = Math.floor(Math.random() * 4000);

/** SIPp's final statistics line for `name` (cumulative column). */
function statistic(stdout: string, name: string): number {
  const line = stdout.split("\n").findLast((l) => l.trimStart().startsWith(name));
  const cells = line?.split("|").map((c) => c.trim()) ?? [];
  return Number(cells.at(-1) ?? Number.NaN);
}

/** Starts SIPp; see the file comment. */
export function runSipp(options: SippOptions): SippRun {
  // A port of its own: SIPp's default (5060) would take a late retransmission meant for an earlier run.
  const localPort = options.localPort ?? 61_000 + ((nextPort += 7) % 4000);
  const sipp = testTool("sipp", "sip-tester");
  const dir = mkdtempSync(join(tmpdir(), "sawt-sipp-"));
  const callsFile = join(dir, "calls.txt");
  const scenario = join(SCENARIOS, options.scenario);
  // Only session scenarios declare the calls file (SIPp refuses a global no scenario declares).
  const writesCalls = readFileSync(scenario, "utf8").includes('<Global variables="callsfile"/>');
  const args = [
    "-sf",
    scenario,
    "-m",
    String(options.calls ?? 1),
    "-l",
    String(options.limit ?? options.calls ?? 1),
    "-r",
    String(options.rate ?? 10),
    "-d",
    String(options.holdMs ?? 1000),
    "-i",
    options.localIp ?? "127.0.0.1",
    "-t",
    options.transport ?? "u1",
    "-nostdin",
    "-trace_msg",
    "-message_file",
    join(dir, "messages.log"),
    "-trace_err",
    "-error_file",
    join(dir, "errors.log"),
  ];
  if (writesCalls) args.push("-set", "callsfile", callsFile);
  args.push("-p", String(localPort));
  for (const [name, value] of Object.entries(options.vars ?? {})) args.push("-set", name, value);
  if (options.rows) {
    const file = join(dir, "fields.csv");
    writeFileSync(file, ["SEQUENTIAL", ...options.rows.map((row) => row.join(";"))].join("\n") + "\n");
    args.push("-inf", file);
  }
  args.push(options.target);
  const proc = Bun.spawn([sipp, ...args], { cwd: dir, stdout: "pipe", stderr: "pipe" });
  const timer = setTimeout(() => proc.kill("SIGKILL"), options.timeoutMs ?? 60_000);
  const read = (name: string) => (existsSync(join(dir, name)) ? readFileSync(join(dir, name), "utf8") : "");
  let finished = false;
  let lastCalls = "";
  const done = (async (): Promise<SippResult> => {
    const [stdout, stderr, code] = await Promise.all([
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
      proc.exited,
    ]);
    clearTimeout(timer);
    const result = {
      code,
      successful: statistic(stdout, "Successful call"),
      failed: statistic(stdout, "Failed call"),
      stdout: stdout + stderr,
      messages: read("messages.log"),
      errors: read("errors.log"),
    };
    lastCalls = read("calls.txt");
    rmSync(dir, { recursive: true, force: true });
    return result;
  })();
  void done.then(() => (finished = true));
  return {
    done,
    kill: () => proc.kill("SIGKILL"),
    async calls(count, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const lines = (finished ? lastCalls : read("calls.txt")).split("\n").filter(Boolean);
        if (lines.length >= count) {
          return lines
            .slice(0, count)
            .map((line) => Object.fromEntries(line.split(" ").map((pair) => pair.split("=") as [string, string])));
        }
        if (finished || Date.now() > deadline) {
          throw new Error(`SIPp wrote ${lines.length} of ${count} calls${finished ? " and ended" : ""}`);
        }
        await Bun.sleep(20);
      }
    },
  };
}
