/**
 * Starts a real in-process Sawt with the MRCPv2 door on free ports and an API key the loopback
 * peer maps to (`mrcp.peers`), created in the data directory before the start since peers are
 * read once.
 */
import { join } from "node:path";
import { closeDatabase, openDatabase } from "../../src/store/database.ts";
import { KeyStore } from "../../src/store/keys.ts";
import { startInProcess, type InProcessSawt } from "../support/in-process.ts";
import { tempDir } from "../support/sawt.ts";

/** A running Sawt with MRCP, its key and its ports. */
export interface MrcpSawt {
  readonly sawt: InProcessSawt;
  readonly key: string;
  readonly keyId: string;
  readonly sipPort: number;
  readonly mrcpPort: number;
  close(): Promise<void>;
}

/** Starts Sawt with MRCP enabled; `env` adds settings (models dir, limits). */
export async function startMrcpSawt(env: Record<string, string> = {}): Promise<MrcpSawt> {
  const dir = tempDir("sawt-mrcp-");
  const dataDir = join(dir.path, "data");
  const db = openDatabase(dataDir);
  const created = new KeyStore(db).create({ name: "ivr", rpm: 10_000 });
  closeDatabase(db);
  const sawt = await startInProcess({
    SAWT_DATA_DIR: dataDir,
    SAWT_MRCP_ENABLED: "true",
    SAWT_MRCP_SIP_PORT: "0",
    SAWT_MRCP_MRCP_PORT: "0",
    SAWT_MRCP_PEERS: `127.0.0.1/32=${created.id}`,
    SAWT_RUNTIME_METRICS_OPEN: "true",
    ...env,
  });
  const mrcp = sawt.server.mrcp!;
  return {
    sawt,
    key: created.key,
    keyId: created.id,
    sipPort: mrcp.sipPort,
    mrcpPort: mrcp.mrcpPort,
    async close() {
      await sawt.close();
      dir.remove();
    },
  };
}
