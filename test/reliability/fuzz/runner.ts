/**
 * Runs a seeded fuzz campaign against a live server over every door: REST (from the app's route
 * table), WebSocket frames on every WS route, gRPC messages. All tasks are drawn from the seed
 * before any is sent (each with its own derived seed), so a run reproduces exactly whatever the
 * order replies come back in. Returns counts per door, statuses seen and every violation.
 */
import * as grpc from "@grpc/grpc-js";
import { borrowedProtocol, checkHttpReply, NO_AUDIO_DETAIL, type Secrets, type Violation } from "./contract.ts";
import { runBorrowedWsSession } from "./ws-borrowed.ts";
import { runGrpcCall, type GrpcStubs } from "./grpc.ts";
import { Random } from "./random.ts";
import { drawRestRequest, type FuzzRequest, type RouteSpec } from "./rest.ts";
import { drawFrames, runLiveWsSession, runWsSession } from "./ws.ts";

/** What a campaign runs against. */
export interface FuzzTarget {
  readonly baseUrl: string;
  readonly key: string;
  readonly routes: readonly RouteSpec[];
  readonly grpc: GrpcStubs;
  readonly wav: Uint8Array;
  readonly pcm: Uint8Array;
  readonly secrets: Secrets;
}

/** Campaign settings. */
export interface FuzzOptions {
  readonly seed: number;
  /** Requests to send in all (a WebSocket frame and a gRPC call count as one each). */
  readonly requests: number;
  readonly concurrency: number;
  /** Go on past `requests` until every door has at least this many (bun run reliability: 10,000). */
  readonly minPerDoor?: number;
}

/** A campaign's figures. */
export interface FuzzReport {
  readonly seed: number;
  readonly requests: { rest: number; ws: number; grpc: number; total: number };
  readonly statuses: Record<string, number>;
  readonly violations: Violation[];
  readonly seconds: number;
}

type Task = { door: "rest"; request: FuzzRequest } | { door: "ws"; seed: number } | { door: "grpc"; seed: number };

/** Runs the campaign. */
export async function runFuzz(target: FuzzTarget, options: FuzzOptions): Promise<FuzzReport> {
  const started = performance.now();
  const master = new Random(options.seed);
  const wsRoutes = target.routes.filter((r) => r.method === "WS");
  const tasks: Task[] = [];
  const draw = (door?: Task["door"]) => {
    const roll = master.next();
    if ((door ?? (roll < 0.04 ? "ws" : roll < 0.22 ? "grpc" : "rest")) === "ws" && wsRoutes.length > 0)
      return { door: "ws" as const, seed: master.int(1, 2 ** 31) };
    if ((door ?? (roll < 0.22 ? "grpc" : "rest")) === "grpc")
      return { door: "grpc" as const, seed: master.int(1, 2 ** 31) };
    return { door: "rest" as const, request: drawRestRequest(master, target) };
  };
  // WS sessions send ~3.5 frames on average: 4% of tasks give about 12% of the requests.
  // Spare tasks: fetch itself refuses a few drawn requests, which then do not count.
  for (let i = 0; i < options.requests * 1.2; i++) tasks.push(draw());
  const report = { rest: 0, ws: 0, grpc: 0 };
  const minimum = options.minPerDoor ?? 0;
  // The doors still short of the minimum once the drawn tasks ran out (drawn from the same seed).
  const short = (): Task["door"] | undefined =>
    report.ws < minimum && wsRoutes.length > 0
      ? "ws"
      : report.grpc < minimum
        ? "grpc"
        : report.rest < minimum
          ? "rest"
          : undefined;
  const statuses: Record<string, number> = {};
  const violations: Violation[] = [];
  const count = (label: string) => (statuses[label] = (statuses[label] ?? 0) + 1);
  let next = 0;
  let sent = 0;
  const worker = async () => {
    for (;;) {
      let task: Task;
      if (next < tasks.length && sent < options.requests) task = tasks[next++]!;
      else {
        const door = short();
        if (door === undefined) break;
        task = draw(door);
      }
      if (task.door === "rest") {
        const problems = await sendRest(target, task.request, count);
        if (problems === undefined) continue;
        report.rest++;
        sent++;
        for (const what of problems) violations.push({ door: "rest", what, request: describe(task.request) });
      } else if (task.door === "ws") {
        const random = new Random(task.seed);
        const route = random.pick(wsRoutes);
        const authorised = random.chance(0.9);
        // /v1/realtime upgrades only for transcription, as OpenAI's endpoint does.
        const query = route.path === "/v1/realtime" ? "?intent=transcription" : "";
        const url = `${target.baseUrl.replace(/^http/, "ws")}${route.path}${query}`;
        const session =
          route.path === "/v1/tts/ws"
            ? runWsSession
            : borrowedProtocol(route.path)
              ? runBorrowedWsSession
              : runLiveWsSession;
        const outcome = await session(url, target.key, drawFrames(random), authorised, target.secrets);
        report.ws += outcome.frames;
        sent += outcome.frames;
        count(`ws ${authorised ? "session" : "refused"}`);
        for (const what of outcome.problems) violations.push({ door: "ws", what, request: `ws seed ${task.seed}` });
      } else {
        const { code, problems } = await runGrpcCall(new Random(task.seed), target.grpc, target, target.secrets);
        report.grpc++;
        sent++;
        // Any INTERNAL other than the pinned no-audio answer is a violation, listed below.
        count(`grpc ${grpc.status[code] ?? code}${code === grpc.status.INTERNAL ? " (no audio)" : ""}`);
        for (const what of problems) violations.push({ door: "grpc", what, request: `grpc seed ${task.seed}` });
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  return {
    seed: options.seed,
    requests: { ...report, total: report.rest + report.ws + report.grpc },
    statuses,
    violations,
    seconds: (performance.now() - started) / 1000,
  };
}

/** Sends one request and checks the reply; undefined when fetch refused to send it. */
async function sendRest(
  target: FuzzTarget,
  request: FuzzRequest,
  count: (label: string) => void,
): Promise<string[] | undefined> {
  let response: Response;
  try {
    response = await fetch(`${target.baseUrl}${request.path}`, {
      method: request.method,
      headers: request.headers,
      body: request.body,
    });
  } catch (error) {
    // fetch refuses some requests itself (e.g. a body on GET); the server never saw them.
    count("client refused");
    if ((error as Error).name === "TypeError") return undefined;
    return [`connection failed: ${(error as Error).message}`];
  }
  const audio =
    response.status === 200 && /^audio\/|octet-stream|event-stream/.test(response.headers.get("content-type") ?? "");
  const body = audio ? (await response.arrayBuffer(), "") : await response.text();
  count(`http ${response.status}${response.status === 500 && body.includes(NO_AUDIO_DETAIL) ? " (no audio)" : ""}`);
  return checkHttpReply(request.method, response.status, response.headers, body, target.secrets, request.path);
}

function describe(request: FuzzRequest): string {
  const headers = Object.entries(request.headers).map(([k, v]) => `${k}: ${v.length > 60 ? `${v.slice(0, 60)}…` : v}`);
  const body =
    request.body === undefined
      ? ""
      : typeof request.body === "string"
        ? request.body.slice(0, 200)
        : `<${request.body.byteLength} bytes>`;
  return `${request.method} ${request.path.slice(0, 120)} [${headers.join("; ")}] ${body}`;
}
