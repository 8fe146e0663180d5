/**
 * The install record's `provider` is what the loaded model says its sessions opened on, not a
 * guess: a family registered from test code whose model reports `cuda` is recorded as `cuda`, one
 * whose model cannot say is recorded `unknown`, and a built-in family (the constructed CTC
 * recogniser) records the provider its session really got (`cpu` on this machine).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Family, LoadedModel } from "../../src/models/family.ts";
import { installPack } from "../../src/models/install.ts";
import { readPackRecord } from "../../src/models/record.ts";
import { registerFamily } from "../../src/models/registry.ts";
import { writeToneCtcPack } from "../support/models/ctc.ts";
import { tempDir } from "../support/sawt.ts";

const work = tempDir("sawt-install-record-");
const models = join(work.path, "models");
const sources = join(work.path, "sources");
let unregister: () => void;

/** A family claiming folders that hold `device.txt`; its model reports that device, if any. */
const deviceFamily: Family<string, LoadedModel> = {
  name: "device-probe",
  role: "vad",
  claims: (pack) => pack.has("device.txt"),
  configure: (pack) => pack.text("device.txt").trim(),
  load: async (device) => ({ ...(device === "" ? {} : { provider: device }), release: async () => {} }),
  serves: (device) => `probe on ${device || "?"}`,
};

function source(name: string, device: string): string {
  const dir = join(sources, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "device.txt"), device);
  return dir;
}

beforeAll(() => {
  unregister = registerFamily(deviceFamily);
});

afterAll(() => {
  unregister?.();
  work.remove();
});

test("does record the provider the loaded model reports", async () => {
  await installPack(source("on-cuda", "cuda"), { modelsDir: models });
  await installPack(source("says-nothing", ""), { modelsDir: models });
  expect(readPackRecord(join(models, "on-cuda"))?.provider).toBe("cuda");
  expect(readPackRecord(join(models, "says-nothing"))?.provider).toBe("unknown");
});

test("does record the session's provider for a built-in family", async () => {
  const ctc = join(sources, "tone-ctc");
  await writeToneCtcPack(ctc);
  await installPack(ctc, { modelsDir: models });
  expect(readPackRecord(join(models, "tone-ctc"))).toMatchObject({ family: "nemo-ctc", provider: "cpu" });
});
