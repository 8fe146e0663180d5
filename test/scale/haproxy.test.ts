/**
 * Issue #17 acceptance 1, 3 and 4: three real `sawt serve` boxes behind Debian's HAProxy started
 * from deploy/haproxy/: keys made on box 1 and imported on boxes 2-3 work through the balancer (a
 * tampered export is refused), gRPC calls from one connection spread over every box, and the
 * per-key limit holds across boxes at the balancer with a 429 in Sawt's own shape.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { bearer, clients, unary } from "../grpc/client.ts";
import { closeDatabase, openDatabase } from "../../src/store/database.ts";
import { ClonedVoiceStore } from "../../src/voices/store.ts";
import { runCli } from "../support/sawt.ts";
import { boxCli, haproxyBinary, metric, startCluster, type Cluster } from "./cluster.ts";

const haproxy = haproxyBinary();
let cluster: Cluster;
let loadKey: string;
let limitedKey: string;
let exportPath: string;

async function createKey(cluster: Pick<Cluster, "boxes">, name: string, rpm: number): Promise<string> {
  const created = await boxCli(cluster.boxes[0]!, ["keys", "create", "--name", name, "--rpm", String(rpm), "--json"]);
  expect(created.code).toBe(0);
  return JSON.parse(created.stdout).key;
}

beforeAll(async () => {
  cluster = await startCluster(haproxy, {
    count: 3,
    async prepare(c) {
      loadKey = await createKey(c, "load", 100_000);
      limitedKey = await createKey(c, "limited", 30);
      exportPath = join(c.dir, "keys.json");
      const exported = await boxCli(c.boxes[0]!, ["keys", "export", "--out", exportPath, "--haproxy-map", c.rpmMap]);
      expect(exported.code).toBe(0);
      for (const box of c.boxes.slice(1)) {
        const imported = await boxCli(box, ["keys", "import", exportPath]);
        expect(imported.stderr).toContain("2 added");
        expect(imported.code).toBe(0);
      }
    },
  });
}, 90_000);

afterAll(async () => {
  await cluster?.stop();
});

describe("Sawt behind HAProxy", () => {
  test("does authenticate keys made on box 1 on every box and through the balancer when imported", async () => {
    for (const box of cluster.boxes) {
      const direct = await fetch(`${box.url}/v1/tts/voices`, { headers: { "x-api-key": loadKey } });
      expect(direct.status).toBe(200);
    }
    const before = await Promise.all(
      cluster.boxes.map((b) => metric(b, "sawt_http_requests_total", { route: "/v1/tts/voices", status: "200" })),
    );
    for (let i = 0; i < 9; i++) {
      const headers: Record<string, string> = i % 2 ? { "x-api-key": loadKey } : { authorization: `Bearer ${loadKey}` };
      const response = await fetch(`http://127.0.0.1:${cluster.front.http}/v1/tts/voices`, { headers });
      expect(response.status).toBe(200);
    }
    const after = await Promise.all(
      cluster.boxes.map((b) => metric(b, "sawt_http_requests_total", { route: "/v1/tts/voices", status: "200" })),
    );
    // Every box answered some of them, with a key it never issued.
    after.forEach((n, i) => expect(n - before[i]!).toBeGreaterThan(0));
    const wrong = await fetch(`http://127.0.0.1:${cluster.front.http}/v1/tts/voices`, {
      headers: { "x-api-key": `${loadKey.slice(0, -2)}xx` },
    });
    expect(wrong.status).toBe(401);
  });

  test("does refuse a tampered export, an older generation and a file signed with another secret", async () => {
    const box2 = cluster.boxes[1]!;
    const original = JSON.parse(readFileSync(exportPath, "utf8"));
    const tampered = structuredClone(original);
    tampered.items[0].rpm = 1_000_000;
    const tamperedPath = join(cluster.dir, "tampered.json");
    writeFileSync(tamperedPath, JSON.stringify(tampered));
    const refused = await boxCli(box2, ["keys", "import", tamperedPath]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("bad signature");

    const again = await boxCli(box2, ["keys", "import", exportPath]);
    expect(again.code).toBe(0); // the same file again: same generation, accepted (idempotent)
    expect(again.stderr).toContain("2 unchanged");
    const wrongSecret = await runCli(["keys", "import", exportPath], {
      env: { ...box2.env, SAWT_CLUSTER_SECRET: "another-cluster-secret-0123456789abcdef" },
    });
    expect(wrongSecret.code).toBe(1);
    expect(wrongSecret.stderr).toContain("bad signature");

    const newer = join(cluster.dir, "keys-newer.json");
    expect((await boxCli(cluster.boxes[0]!, ["keys", "export", "--out", newer])).code).toBe(0);
    expect((await boxCli(box2, ["keys", "import", newer])).code).toBe(0);
    const older = await boxCli(box2, ["keys", "import", exportPath]);
    expect(older.code).toBe(1);
    expect(older.stderr).toMatch(/generation 1 is older than generation 2/);

    const unset = await runCli(["keys", "export"], { env: { ...box2.env, SAWT_CLUSTER_SECRET: "" } });
    expect(unset.code).toBe(78);
    expect(unset.stderr).toContain("cluster.secret");
  });

  test("does list a voice cloned on box 1 on every box when its export is imported", async () => {
    const owner = cluster.boxes[0]!;
    const keyId = loadKey.split("_")[1]!;
    const db = openDatabase(owner.dataDir);
    const store = new ClonedVoiceStore(db);
    const voice = store.create(keyId, "Amal");
    store.markReady(voice.id, new Float32Array([0.1, 0.2, 0.3]));
    closeDatabase(db);
    const file = join(cluster.dir, "voices.json");
    expect((await boxCli(owner, ["voices", "export", "--out", file])).code).toBe(0);
    for (const box of cluster.boxes.slice(1)) {
      const imported = await boxCli(box, ["voices", "import", file]);
      expect(imported.stderr).toContain("1 added");
    }
    for (const box of cluster.boxes) {
      const listed = await (await fetch(`${box.url}/v1/tts/voices`, { headers: { "x-api-key": loadKey } })).text();
      expect(listed).toContain(voice.id);
    }
  });

  test("does spread gRPC calls from one client connection over every healthy box", async () => {
    const labels = { method: "tts.Synthesize", code: "OK" };
    const before = await Promise.all(cluster.boxes.map((b) => metric(b, "sawt_grpc_requests_total", labels)));
    const grpcClients = clients(cluster.front.grpc_tts);
    try {
      for (let i = 0; i < 9; i++) {
        const outcome = await unary(
          grpcClients.tts,
          "Synthesize",
          { text: "مرحبا", voice: "Yara", response_format: "pcm" },
          bearer(loadKey),
        );
        expect(outcome.error).toBeUndefined();
      }
    } finally {
      grpcClients.close();
    }
    const after = await Promise.all(cluster.boxes.map((b) => metric(b, "sawt_grpc_requests_total", labels)));
    const perBox = after.map((n, i) => n - before[i]!);
    console.info(`gRPC calls per box from one connection: ${perBox.join(", ")}`);
    expect(perBox.reduce((a, b) => a + b, 0)).toBe(9);
    for (const n of perBox) expect(n).toBeGreaterThanOrEqual(2);
  });

  test("does hold a 30 rpm key to 30 requests across three boxes and answer 429 in Sawt's shape", async () => {
    const route = { route: "/v1/tts/voices", status: "200" };
    const before = await Promise.all(cluster.boxes.map((b) => metric(b, "sawt_http_requests_total", route)));
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) {
      // Both ways of presenting a key count against the same budget.
      const headers: Record<string, string> =
        i < 15 ? { "x-api-key": limitedKey } : { authorization: `Bearer ${limitedKey}` };
      statuses.push((await fetch(`http://127.0.0.1:${cluster.front.http}/v1/tts/voices`, { headers })).status);
    }
    expect(statuses.every((s) => s === 200)).toBe(true);
    const after = await Promise.all(cluster.boxes.map((b) => metric(b, "sawt_http_requests_total", route)));
    const perBox = after.map((n, i) => n - before[i]!);
    console.info(`30 rpm key, admitted per box: ${perBox.join(", ")}`);
    for (const n of perBox) expect(n).toBeGreaterThan(0);

    const refused = await fetch(`http://127.0.0.1:${cluster.front.http}/v1/tts/voices`, {
      headers: { authorization: `Bearer ${limitedKey}`, "x-request-id": "limit-check-1" },
    });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(refused.headers.get("x-request-id")).toBe("limit-check-1");
    expect(refused.headers.get("x-ratelimit-limit")).toBe("30");
    expect(refused.headers.get("content-type")).toContain("application/json");
    const body = await refused.json();
    // The same shape a box's own limiter answers (src/http/errors.ts, auth shape).
    expect(body).toEqual({ error: "rate_limit_exceeded", detail: "Rate limit exceeded" });
    const generated = await fetch(`http://127.0.0.1:${cluster.front.http}/v1/tts/voices`, {
      headers: { "x-api-key": limitedKey },
    });
    expect(generated.status).toBe(429);
    expect(generated.headers.get("x-request-id")).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);

    // gRPC shares the budget: RESOURCE_EXHAUSTED with retry-after, as a box answers it.
    const grpcClients = clients(cluster.front.grpc_tts);
    try {
      const outcome = await unary(grpcClients.tts, "Synthesize", { text: "مرحبا" }, bearer(limitedKey));
      expect(outcome.error?.code).toBe(8);
      expect(outcome.error?.details).toBe("Rate limit exceeded");
      expect(outcome.error?.metadata.get("retry-after")).toEqual(["60"]);
    } finally {
      grpcClients.close();
    }
    // Another key is not affected.
    expect(
      (await fetch(`http://127.0.0.1:${cluster.front.http}/v1/tts/voices`, { headers: { "x-api-key": loadKey } }))
        .status,
    ).toBe(200);
  });
});
