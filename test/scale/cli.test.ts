/** `sawt voices export|import` and `sawt keys export` through the real CLI: files, exit codes, messages. */
import { afterAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { closeDatabase, openDatabase } from "../../src/store/database.ts";
import { ClonedVoiceStore } from "../../src/voices/store.ts";
import { runCli, tempDir } from "../support/sawt.ts";
import { TEST_SECRET } from "./cluster.ts";

const dirs = [tempDir("sawt-cli-a-"), tempDir("sawt-cli-b-"), tempDir("sawt-cli-files-")];
const [a, b, files] = dirs as [ReturnType<typeof tempDir>, ReturnType<typeof tempDir>, ReturnType<typeof tempDir>];
const envA = { SAWT_DATA_DIR: a.path, SAWT_CLUSTER_SECRET: TEST_SECRET };
const envB = { SAWT_DATA_DIR: b.path, SAWT_CLUSTER_SECRET: TEST_SECRET };

afterAll(() => dirs.forEach((d) => d.remove()));

test("does move a cloned voice between boxes when its keys go first", async () => {
  const created = JSON.parse((await runCli(["keys", "create", "--name", "owner", "--json"], { env: envA })).stdout);
  const db = openDatabase(a.path);
  const store = new ClonedVoiceStore(db);
  const voice = store.create(created.id, "Amal");
  store.markReady(voice.id, new Float32Array([0.5, 0.25]));
  closeDatabase(db);

  const voicesFile = join(files.path, "voices.json");
  const exported = await runCli(["voices", "export", "--out", voicesFile], { env: envA });
  expect(exported.code).toBe(0);
  expect(exported.stderr).toContain("exported 1 voices, generation 1");
  expect(JSON.parse(readFileSync(voicesFile, "utf8")).signature).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);

  const early = await runCli(["voices", "import", voicesFile], { env: envB });
  expect(early.code).toBe(1);
  expect(early.stderr).toContain("import the keys first");

  const keys = await runCli(["keys", "export"], { env: envA });
  expect((await runCli(["keys", "import", "-"], { env: envB, stdin: keys.stdout })).code).toBe(0);
  const imported = await runCli(["voices", "import", voicesFile], { env: envB });
  expect(imported.stderr).toContain("1 added");
  expect(imported.code).toBe(0);
  const copy = openDatabase(b.path);
  expect(Array.from(new ClonedVoiceStore(copy).embedding(created.id, voice.id)!)).toEqual([0.5, 0.25]);
  closeDatabase(copy);
});

test("does exit 78 naming cluster.secret when it is unset, 2 without a file and 1 on a file that is not JSON", async () => {
  for (const args of [
    ["voices", "export"],
    ["keys", "export"],
    ["keys", "import", "x.json"],
  ]) {
    const result = await runCli(args, { env: { SAWT_DATA_DIR: a.path, SAWT_CLUSTER_SECRET: "" } });
    expect(result.code).toBe(78);
    expect(result.stderr).toContain("cluster.secret");
  }
  const missing = await runCli(["voices", "import"], { env: envA });
  expect(missing.code).toBe(2);
  const notJson = await runCli(["keys", "import", "-"], { env: envA, stdin: "nope" });
  expect(notJson.code).toBe(1);
  expect(notJson.stderr).toContain("is not JSON");
});
