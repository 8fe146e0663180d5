/**
 * The cluster's shell scripts and HAProxy template: POSIX sh (dash, shellcheck), and a rendered
 * configuration that Debian's HAProxy accepts without a warning, for any number of boxes.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, tempDir, testTool } from "../support/sawt.ts";
import { haproxyBinary } from "./cluster.ts";

const SCRIPTS = ["deploy/haproxy/render.sh", "installer/rolling-upgrade.sh"];
const temp = tempDir("sawt-render-");
afterAll(() => temp.remove());

function run(args: string[]) {
  const proc = Bun.spawnSync(args, { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  return { code: proc.exitCode, stdout: proc.stdout.toString(), stderr: proc.stderr.toString() };
}

describe("cluster scripts", () => {
  test("does parse under dash and pass shellcheck as POSIX sh", () => {
    const dash = testTool("dash", "dash");
    const shellcheck = testTool("shellcheck", "shellcheck");
    for (const script of SCRIPTS) expect(run([dash, "-n", script]), script).toMatchObject({ code: 0, stderr: "" });
    expect(run([shellcheck, "--shell=sh", ...SCRIPTS])).toMatchObject({ code: 0, stdout: "" });
  });

  test("does render a configuration HAProxy accepts without warnings when given five boxes", () => {
    const haproxy = haproxyBinary();
    const map = join(temp.path, "rpm.map");
    writeFileSync(map, "abcdefghijkl 30\n");
    const boxes = [1, 2, 3, 4, 5].map((i) => `box${i}=10.0.0.${10 + i}`);
    for (const mode of [["--foreground"], []]) {
      const rendered = run([
        "sh",
        "deploy/haproxy/render.sh",
        ...mode,
        "--rpm-map",
        map,
        "--socket",
        join(temp.path, "s.sock"),
        ...boxes,
      ]);
      expect(rendered.code).toBe(0);
      expect(rendered.stdout).not.toMatch(/@[A-Z_]+@/);
      // Three backends per box, plus one for the box's jobs (routed by job id).
      expect(rendered.stdout.match(/^ {4}server box\d /gm)).toHaveLength(20);
      expect(rendered.stdout).toContain("backend sawt_job_box5 from sawt_boxes");
      expect(rendered.stdout).toContain("server box5 10.0.0.15:8080 no-check");
      expect(rendered.stdout).toContain("server box5 10.0.0.15:9102 proto h2 check port 8080 check-proto h1");
      const cfg = join(temp.path, `haproxy${mode.length}.cfg`);
      writeFileSync(cfg, rendered.stdout);
      const checked = run([haproxy, "-c", "-f", cfg]);
      expect(checked.stderr).not.toContain("WARNING");
      expect(checked.stderr).not.toContain("ALERT");
      expect(checked.code).toBe(0);
    }
  });

  test("does refuse a box without a host and explain its usage when asked", () => {
    expect(run(["sh", "deploy/haproxy/render.sh", "box1"]).code).toBe(2);
    expect(run(["sh", "deploy/haproxy/render.sh", "box1=10.0.0.1:http"]).stderr).toContain("bad port");
    expect(run(["sh", "deploy/haproxy/render.sh", "--help"]).stdout).toContain("NAME=HOST");
    const usage = run(["sh", "installer/rolling-upgrade.sh", "--help"]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("state drain");
  });
});
