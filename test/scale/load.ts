/**
 * A small steady load through the balancer: REST speech, gRPC Synthesize over one client
 * connection, and WebSocket sessions, each from a few sequential workers. Every request's outcome
 * is recorded with its start and end time, so a test can tell which failures were in flight at a
 * given moment (the documented case: a request on a box that was killed). Bounded in time and count.
 */
import * as grpc from "@grpc/grpc-js";
import { bearer, clients, unary } from "../grpc/client.ts";

/** What was sent. */
export type LoadKind = "rest" | "grpc" | "ws";

/** One request's outcome. */
export interface Outcome {
  readonly kind: LoadKind;
  readonly start: number;
  readonly end: number;
  readonly ok: boolean;
  readonly detail: string;
}

/** Where to send and how much. */
export interface LoadOptions {
  readonly httpPort: number;
  readonly grpcTtsPort: number;
  readonly key: string;
  readonly workers?: Partial<Record<LoadKind, number>>;
  /** Hard stop, whatever happens (bounded tests). */
  readonly maxMs?: number;
}

const TEXT = "مرحبا بكم";

async function rest(options: LoadOptions): Promise<Outcome> {
  const start = Date.now();
  try {
    const response = await fetch(`http://127.0.0.1:${options.httpPort}/v1/tts/audio/speech`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": options.key },
      body: JSON.stringify({ input: TEXT, voice: "Yara", response_format: "pcm" }),
      signal: AbortSignal.timeout(20_000),
    });
    const body = await response.arrayBuffer();
    const ok = response.status === 200 && body.byteLength > 0;
    return {
      kind: "rest",
      start,
      end: Date.now(),
      ok,
      detail: `${response.status} ${ok ? body.byteLength : new TextDecoder().decode(body).slice(0, 200)}`,
    };
  } catch (error) {
    return { kind: "rest", start, end: Date.now(), ok: false, detail: String(error) };
  }
}

async function grpcCall(stub: ReturnType<typeof clients>["tts"], key: string): Promise<Outcome> {
  const start = Date.now();
  const outcome = await unary(stub, "Synthesize", { text: TEXT, voice: "Yara", response_format: "pcm" }, bearer(key), {
    deadline: Date.now() + 20_000,
  });
  const ok = !outcome.error && (outcome.response?.audio?.length ?? 0) > 0;
  const detail = outcome.error ? `${grpc.status[outcome.error.code]} ${outcome.error.details}` : "OK";
  return { kind: "grpc", start, end: Date.now(), ok, detail };
}

function wsSession(options: LoadOptions): Promise<Outcome> {
  const start = Date.now();
  return new Promise((resolve) => {
    let settled = false;
    const finish = (ok: boolean, detail: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      try {
        ws.close();
      } catch {
        // already closed
      }
      resolve({ kind: "ws", start, end: Date.now(), ok, detail });
    };
    const url = `ws://127.0.0.1:${options.httpPort}/v1/tts/ws`;
    const ws = new WebSocket(url, { headers: { "X-API-Key": options.key } } as unknown as string[]);
    const timer = setTimeout(() => finish(false, "timeout"), 20_000);
    let audio = 0;
    ws.onopen = () => ws.send(JSON.stringify({ input: TEXT, voice: "Yara" }));
    ws.onmessage = (event) => {
      if (typeof event.data !== "string") {
        audio++;
        return;
      }
      const message = JSON.parse(event.data) as { type: string; detail?: string };
      if (message.type === "end") finish(audio > 0, "end");
      else if (message.type === "error") finish(false, `error ${message.detail}`);
    };
    ws.onerror = () => finish(false, "socket error");
    ws.onclose = (event) => finish(false, `closed ${event.code}`);
  });
}

/** A running load; `stop` ends it and returns every outcome. */
export interface Load {
  readonly outcomes: Outcome[];
  stop(): Promise<Outcome[]>;
}

/** Starts the load: sequential workers per kind until stopped (or `maxMs` passes). */
export function startLoad(options: LoadOptions): Load {
  const outcomes: Outcome[] = [];
  const workers = { rest: 2, grpc: 1, ws: 1, ...options.workers };
  const deadline = Date.now() + (options.maxMs ?? 60_000);
  let running = true;
  const more = () => running && Date.now() < deadline;
  // One gRPC client connection for every gRPC worker: HAProxy must spread its calls.
  const grpcClients = clients(options.grpcTtsPort);
  const loops: Promise<void>[] = [];
  const loop = async (once: () => Promise<Outcome>) => {
    while (more()) {
      outcomes.push(await once());
      await Bun.sleep(50);
    }
  };
  for (let i = 0; i < workers.rest; i++) loops.push(loop(() => rest(options)));
  for (let i = 0; i < workers.grpc; i++) loops.push(loop(() => grpcCall(grpcClients.tts, options.key)));
  for (let i = 0; i < workers.ws; i++) loops.push(loop(() => wsSession(options)));
  return {
    outcomes,
    async stop() {
      running = false;
      await Promise.all(loops);
      grpcClients.close();
      return outcomes;
    },
  };
}

/** Outcomes that failed although no box was killed while they were in flight. */
export function unexplainedFailures(outcomes: readonly Outcome[], killedAt: readonly number[] = []): Outcome[] {
  return outcomes.filter((o) => !o.ok && !killedAt.some((t) => o.start <= t && o.end >= t));
}
