/**
 * The key's policy on every ASR door (issue 37, acceptance 1), from one table (./doors.ts): each
 * door sends what its wire sends by default — no `redact`, no phrases — and the engine applies the
 * policy itself. Under `asr.redact = ["pci"]` a spoken Luhn-valid card (the tone CTC recogniser's
 * digit words, read over two utterances) comes back redacted from every door, and no door's
 * answer holds a digit of it; with the key's stored phrase list, the near-miss pack's phrase wins
 * on every door, where it loses without the list.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { closeDatabase, openDatabase } from "../../../src/store/database.ts";
import { KeyStore } from "../../../src/store/keys.ts";
import { writeToneCtcPack } from "../../support/models/ctc.ts";
import { NEAR_MISS_GREEDY, NEAR_MISS_PHRASE, writeNearMissCtcPack } from "../../support/models/near-miss.ts";
import { startSawt, tempDir } from "../../support/sawt.ts";
import { callAudio, leaks, UTTERANCES } from "../format-support.ts";
import { concat, silence, sine } from "../support.ts";
import { DOORS, type PolicyServer, removeDoorFiles } from "./doors.ts";

const temp = tempDir("sawt-policy-");
const servers: PolicyServer[] = [];

/** A `sawt serve` with the MRCP and call doors, `pack` as its recogniser, and a key the loopback IVR and PBX map to. */
async function start(name: string, pack: (dir: string) => Promise<unknown>, env: Record<string, string> = {}) {
  const models = join(temp.path, name, "models");
  await pack(join(models, name));
  const dataDir = join(temp.path, name, "data");
  const db = openDatabase(dataDir);
  const created = new KeyStore(db).create({ name: "policy", rpm: 100_000 });
  closeDatabase(db);
  const sipPort = 30000 + Math.floor(Math.random() * 5000);
  const sawt = await startSawt({
    dataDir,
    env: {
      SAWT_MODELS_DIR: models,
      SAWT_STREAMING_MAX_BUFFER_S: "120",
      SAWT_MRCP_ENABLED: "true",
      SAWT_MRCP_SIP_PORT: String(sipPort),
      SAWT_MRCP_MRCP_PORT: "0",
      SAWT_MRCP_PEERS: `127.0.0.1/32=${created.id}`,
      SAWT_CALLS_ENABLED: "true",
      SAWT_CALLS_AUDIOSOCKET_PORT: "0",
      SAWT_CALLS_PEERS: `127.0.0.1/32=${created.id}`,
      ...env,
    },
  });
  const server = { sawt, key: created.key, sipPort };
  servers.push(server);
  return server;
}

let floor: PolicyServer;
let phrases: PolicyServer;

beforeAll(async () => {
  [floor, phrases] = await Promise.all([
    start("tone-ctc", writeToneCtcPack, { SAWT_ASR_REDACT: "pci" }),
    start("near-ctc", writeNearMissCtcPack),
  ]);
}, 60_000);

afterAll(async () => {
  await Promise.all(servers.map((s) => s.sawt.stop("SIGKILL")));
  removeDoorFiles();
  temp.remove();
});

describe("the redaction floor on every door", () => {
  // The card, read over two utterances with a hesitation.
  const card = callAudio(UTTERANCES.slice(0, 2));

  test.each(DOORS.map((row) => [row.door, row] as const))(
    "does redact a spoken card on %s",
    async (_, row) => {
      const texts = await row.transcribe(floor, card);
      expect(texts.length).toBeGreaterThan(0);
      expect(texts.join(" ")).toContain("[REDACTED:card]");
      for (const text of texts) expect({ text, leaks: leaks(text) }).toEqual({ text, leaks: false });
    },
    60_000,
  );
});

describe("the key's phrase list on every door", () => {
  const tone = concat(silence(0.5), sine(440, 1), silence(1.2));

  beforeAll(async () => {
    const put = await fetch(`${phrases.sawt.baseUrl}/v1/asr/phrases`, {
      method: "PUT",
      headers: { "x-api-key": phrases.key, "content-type": "application/json" },
      body: JSON.stringify({ phrases: [{ phrase: NEAR_MISS_PHRASE }] }),
    });
    expect(put.status).toBe(200);
  });

  test("does lose to the greedy reading without the list", async () => {
    const other = await phrases.sawt.createKey({ name: "no-list", rpm: 100_000 });
    const texts = await DOORS[0]!.transcribe({ ...phrases, key: other.key }, tone);
    expect(texts).toContain(NEAR_MISS_GREEDY);
  }, 60_000);

  test.each(DOORS.map((row) => [row.door, row] as const))(
    "does make the key's phrase win on %s",
    async (_, row) => {
      const texts = await row.transcribe(phrases, tone);
      expect(texts.join(" ")).toContain(NEAR_MISS_PHRASE);
      expect(texts.join(" ")).not.toContain(NEAR_MISS_GREEDY);
    },
    60_000,
  );
});
