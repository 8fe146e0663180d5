/**
 * Signed cluster files: what `sawt keys export` and `sawt voices export` write and `… import` reads,
 * so every box behind a load balancer shares the same keys and cloned voices (docs/scale-out.md).
 *
 * A file is JSON: `{format, kind, generation, created_at, items, signature}`. The signature is
 * HMAC-SHA256 with the cluster secret (`cluster.secret`) over the canonical serialisation of every
 * other field (object keys sorted, no whitespace), so reordering or re-indenting the file keeps it
 * valid while changing any value breaks it. The generation grows with every export; a box refuses
 * to import a file older than the last one it applied (replaying an old file would undo revocations).
 */
import type { Database } from "bun:sqlite";
import { createHmac, timingSafeEqual } from "node:crypto";
import * as v from "valibot";
import { ConfigError, type SawtConfig } from "../config/config.ts";

/** The format tag of version 1 of the cluster file. */
export const CLUSTER_FORMAT = "sawt-cluster/1";
/** Shortest cluster secret accepted: 32 characters (about 190 bits when generated randomly). */
export const MIN_SECRET_CHARS = 32;

/** What a cluster file carries. */
export type ClusterKind = "keys" | "voices";

/** The signed part of a cluster file. */
export interface ClusterBody<T> {
  readonly format: typeof CLUSTER_FORMAT;
  readonly kind: ClusterKind;
  readonly generation: number;
  readonly created_at: string;
  readonly items: readonly T[];
}

/** A cluster file as written to disk. */
export interface ClusterFile<T> extends ClusterBody<T> {
  readonly signature: string;
}

/** A file that must not be imported; `message` says why in one line. */
export class ClusterFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ClusterFileError";
  }
}

/** The configured cluster secret; a {@link ConfigError} (exit 78) when it is unset or too short. */
export function clusterSecret(config: Pick<SawtConfig, "cluster">): string {
  const secret = config.cluster.secret;
  if (secret.length === 0) {
    throw new ConfigError(
      "config: cluster.secret (env SAWT_CLUSTER_SECRET): must be set, the same on every box, to export or import cluster files",
    );
  }
  if (secret.length < MIN_SECRET_CHARS) {
    throw new ConfigError(
      `config: cluster.secret: must be at least ${MIN_SECRET_CHARS} characters, got ${secret.length}`,
    );
  }
  return secret;
}

/** JSON with object keys sorted at every level and no whitespace: the bytes the signature covers. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

function mac(body: ClusterBody<unknown>, secret: string): Buffer {
  return createHmac("sha256", secret).update(canonicalJson(body), "utf8").digest();
}

/** Signs a body with the cluster secret. */
export function signClusterFile<T>(body: ClusterBody<T>, secret: string): ClusterFile<T> {
  return { ...body, signature: `hmac-sha256:${mac(body, secret).toString("hex")}` };
}

/**
 * Checks a parsed file: its format, kind and signature (compared in constant time). Returns the
 * signed body; throws {@link ClusterFileError} when anything is off.
 */
export function verifyClusterFile(raw: unknown, kind: ClusterKind, secret: string): ClusterBody<unknown> {
  const refuse = (why: string): never => {
    throw new ClusterFileError(why);
  };
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) refuse("not a Sawt cluster file");
  const { signature, ...body } = raw as Record<string, unknown>;
  if (body.format !== CLUSTER_FORMAT) refuse(`not a ${CLUSTER_FORMAT} file (format ${JSON.stringify(body.format)})`);
  if (body.kind !== kind) refuse(`this file holds ${JSON.stringify(body.kind)}, not ${kind}`);
  if (!Number.isSafeInteger(body.generation) || (body.generation as number) < 1)
    refuse("generation must be a positive integer");
  if (!Array.isArray(body.items)) refuse("items must be a list");
  const presented = typeof signature === "string" ? /^hmac-sha256:([0-9a-f]{64})$/.exec(signature) : null;
  const expected = mac(body as unknown as ClusterBody<unknown>, secret);
  const actual = presented ? Buffer.from(presented[1]!, "hex") : Buffer.alloc(expected.length);
  if (!timingSafeEqual(expected, actual) || !presented) {
    throw new ClusterFileError("bad signature: the file was changed, or signed with another cluster.secret");
  }
  return body as unknown as ClusterBody<unknown>;
}

/**
 * Builds and signs an export in one immediate transaction with the kind's next generation, so two
 * exports running at once never share a generation.
 */
export function exportSigned<T>(
  db: Database,
  kind: ClusterKind,
  secret: string,
  items: () => readonly T[],
  now = Date.now(),
): ClusterFile<T> {
  return db
    .transaction(() => {
      const body = {
        format: CLUSTER_FORMAT,
        kind,
        items: items(),
        generation: new ClusterGenerations(db).nextExport(kind),
      } as const;
      return signClusterFile({ ...body, created_at: new Date(now).toISOString() }, secret);
    })
    .immediate();
}

/**
 * Checks every item of a verified file against `schema`; the first problem is a
 * {@link ClusterFileError} naming the item (`key #3: rpm: …`).
 */
export function parseItems<S extends v.GenericSchema>(
  items: readonly unknown[],
  schema: S,
  label: string,
): v.InferOutput<S>[] {
  return items.map((item, index) => {
    const result = v.safeParse(schema, item);
    if (result.success) return result.output;
    const issue = result.issues[0];
    const path = v.getDotPath(issue);
    throw new ClusterFileError(`${label} #${index + 1}: ${path ? `${path}: ` : ""}${issue.message}`);
  });
}

/** Epoch milliseconds in a cluster file. */
export const EpochMs = v.pipe(v.number("must be epoch milliseconds"), v.safeInteger("must be epoch milliseconds"));

/** The export and import generations a box keeps per kind (table `cluster_generations`). */
export class ClusterGenerations {
  constructor(private readonly db: Database) {}

  private row(kind: ClusterKind): { exported: number; imported: number } {
    this.db.query("INSERT OR IGNORE INTO cluster_generations (kind) VALUES (?)").run(kind);
    return this.db.query("SELECT exported, imported FROM cluster_generations WHERE kind = ?").get(kind) as {
      exported: number;
      imported: number;
    };
  }

  /** The generation for a new export: above everything this box exported or imported. */
  nextExport(kind: ClusterKind): number {
    const { exported, imported } = this.row(kind);
    const next = Math.max(exported, imported) + 1;
    this.db.query("UPDATE cluster_generations SET exported = ? WHERE kind = ?").run(next, kind);
    return next;
  }

  /** The last generation imported (0 when none). */
  lastImported(kind: ClusterKind): number {
    return this.row(kind).imported;
  }

  /** Refuses a generation older than the last one imported; records it otherwise. */
  recordImport(kind: ClusterKind, generation: number): void {
    const last = this.lastImported(kind);
    if (generation < last) {
      throw new ClusterFileError(`generation ${generation} is older than generation ${last} already imported here`);
    }
    this.db
      .query("UPDATE cluster_generations SET imported = ?, imported_at = ? WHERE kind = ?")
      .run(generation, Date.now(), kind);
  }
}
