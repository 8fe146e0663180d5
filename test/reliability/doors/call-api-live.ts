/**
 * What the call API door (./call-api.ts) drives: a call kept up on the AudioSocket door (UUID, then
 * a 20 ms frame of silence every 200 ms so it never goes idle; Sawt's speech read and dropped),
 * the REST bodies and WebSocket commands it sends with the statuses each calls for, and the
 * statuses the OpenAPI document lists per route.
 */
import { connect, type Socket } from "node:net";
import openapi from "../../rest/openapi.json";
import type { Box } from "../box.ts";
import { NASTY_STRINGS, type Random } from "../fuzz/random.ts";
import { audioFrame, HANGUP, uuidFrame } from "./audiosocket-wire.ts";
import type { newTally } from "./door.ts";

/** `METHOD /route` → the statuses the OpenAPI document lists for it (500 is never the contract). */
export const DOCUMENTED: ReadonlyMap<string, ReadonlySet<number>> = new Map(
  Object.entries(openapi.paths as Record<string, Record<string, { responses?: Record<string, unknown> }>>)
    .filter(([path]) => path.startsWith("/v1/calls"))
    .flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => [
        `${method.toUpperCase()} ${path}`,
        new Set(
          Object.keys(operation.responses ?? {})
            .map(Number)
            .filter((s) => s !== 500),
        ),
      ]),
    ),
);

/** A call up on the AudioSocket door for the API to act on. */
export class LiveCall {
  /** A hangup was accepted for it: it is ending. */
  ending = false;
  closed = false;
  private readonly keepAlive: ReturnType<typeof setInterval>;

  private constructor(
    readonly id: string,
    private readonly socket: Socket,
  ) {
    socket.on("data", () => undefined);
    socket.on("error", () => undefined);
    socket.once("close", () => {
      this.closed = true;
    });
    const silence = audioFrame(0x10, { int: () => 0 } as unknown as Random, 320);
    this.keepAlive = setInterval(() => {
      if (!socket.destroyed) socket.write(silence);
    }, 200);
  }

  static async open(box: Box, tally: ReturnType<typeof newTally>): Promise<LiveCall> {
    const id = crypto.randomUUID();
    const socket = connect({ host: "127.0.0.1", port: box.calls.audiosocket, noDelay: true });
    await new Promise<void>((resolve, reject) => {
      socket.once("connect", () => resolve());
      socket.once("error", reject);
    });
    const call = new LiveCall(id, socket);
    socket.write(Buffer.concat([uuidFrame(id), audioFrame(0x10, { int: () => 0 } as unknown as Random, 320)]));
    const deadline = performance.now() + 5000;
    for (;;) {
      const list = (await (
        await fetch(`${box.sawt.baseUrl}/v1/calls`, { headers: { "x-api-key": box.key } })
      ).json()) as { data?: { id: string }[] };
      if (list.data?.some((c) => c.id === id)) return call;
      if (performance.now() > deadline) {
        tally.breach("an AudioSocket call for the API never opened");
        return call;
      }
      await Bun.sleep(20);
    }
  }

  /** Hangs up (the 0x00 frame) and closes. */
  stop(): void {
    clearInterval(this.keepAlive);
    if (!this.socket.destroyed) this.socket.write(HANGUP);
    setTimeout(() => this.socket.destroy(), 200);
  }
}

/** A call id that is no call: mangled, path-like, long, odd characters. */
export function nastyId(r: Random): string {
  return r.pick(["..", "%2e%2e", "x".repeat(300), " ", "a/b", "-", r.pick(NASTY_STRINGS)]).toWellFormed() || "-";
}

const CONTEXTS = ["default", "a", "b.c"];
const SPEECH = ["مرحبا بكم", "شكرا لك", "hello 42"];

/** A REST command body: its text and the statuses it calls for on a call that is up. */
export function restBody(
  r: Random,
  type: "say" | "clear" | "hangup",
): { label: string; text: string; statuses: number[] } {
  const roll = r.next();
  if (roll < 0.08) return { label: "malformed", text: r.pick(["{", '{"text":', "{'a':1}", "nope"]), statuses: [400] };
  if (roll < 0.14) return { label: "not an object", text: r.pick(["[1]", "5", '"x"', "true"]), statuses: [422] };
  if (roll < 0.18) {
    const big = JSON.stringify({ text: "ا".repeat(600_000) });
    return { label: "over max_json_bytes", text: big, statuses: [413] };
  }
  if (roll < 0.24)
    return { label: "empty", text: r.pick(["", "null", "{}"]), statuses: type === "say" ? [422] : [200] };
  if (type === "hangup") return { label: "fields", text: JSON.stringify({ x: r.int(0, 9) }), statuses: [200] };
  if (type === "clear") {
    const context = r.pick<unknown>([...CONTEXTS, "bad context", "", 5, "x".repeat(49)]);
    return {
      label: "context",
      text: JSON.stringify({ context }),
      statuses: CONTEXTS.includes(context as string) ? [200] : [422],
    };
  }
  if (roll < 0.6) {
    const fields: Record<string, unknown> = r.chance(0.5)
      ? { text: r.pick(SPEECH) }
      : { ssml: `<speak>${r.pick(SPEECH)}</speak>` };
    if (r.chance(0.3)) fields.voice = r.pick(["Yara", "yara"]);
    if (r.chance(0.3)) fields.context = r.pick(CONTEXTS);
    // 400: a say naming another voice opens another stream context, at most tts.stream_max_contexts (5) at once.
    return { label: "speech", text: JSON.stringify(fields), statuses: [200, 400] };
  }
  const broken = r.pick<Record<string, unknown>>([
    { text: 5 },
    { text: "a", ssml: "<speak>a</speak>" },
    { voice: "Yara" },
    { text: "a", context: "no spaces" },
    { ssml: ["x"] },
    { text: "a", dialect: 7 },
  ]);
  // Speech the schema takes but speech validation may refuse: a voice or dialect that does not exist, text it cannot read.
  const odd = r.pick<Record<string, unknown>>([
    { text: "مرحبا", voice: "nope" },
    { text: "مرحبا", dialect: r.pick(["xx", "msa", "gulf", "egy"]) },
    { text: r.pick(NASTY_STRINGS) },
    { ssml: "<speak><unknown/>a</speak>" },
    { ssml: "<speak" },
    { text: "" },
  ]);
  return r.chance(0.5)
    ? { label: "invalid", text: JSON.stringify(broken), statuses: [422] }
    : { label: "odd speech", text: JSON.stringify(odd), statuses: [200, 400, 404, 422] };
}

/** A WebSocket command the call runs (no immediate error event). */
export function goodCommand(r: Random): { data: string; hangup?: boolean } {
  const context = r.chance(0.5) ? { context: r.pick(CONTEXTS) } : {};
  const roll = r.next();
  if (roll < 0.35) {
    const speech = r.chance(0.6)
      ? { text: r.pick(SPEECH) }
      : { ssml: `<speak>${r.pick(SPEECH)}<mark name="m"/></speak>` };
    return {
      data: JSON.stringify({ type: "say", ...speech, ...(r.chance(0.3) ? { voice: "Yara" } : {}), ...context }),
    };
  }
  if (roll < 0.65)
    return { data: JSON.stringify({ type: "text", text: r.pick(SPEECH), flush: r.chance(0.4), ...context }) };
  if (roll < 0.95) return { data: JSON.stringify({ type: "clear", ...context }) };
  return { data: JSON.stringify({ type: "hangup" }), hangup: true };
}

/** A WebSocket command that is refused, with the status of its error event. */
export function badCommand(r: Random): { data: string | Uint8Array; status: number } {
  return r.pick<{ data: string | Uint8Array; status: number }>([
    { data: "{broken", status: 400 },
    { data: '{"type":"dance"}', status: 400 },
    { data: "[1,2]", status: 400 },
    { data: "42", status: 400 },
    { data: '"say"', status: 400 },
    { data: "", status: 400 },
    { data: r.bytes(r.int(0, 64)), status: 400 },
    { data: '{"type":"say"}', status: 422 },
    { data: '{"type":"say","text":5}', status: 422 },
    { data: '{"type":"say","text":"a","ssml":"<speak>a</speak>"}', status: 422 },
    { data: '{"type":"clear","context":"bad context"}', status: 422 },
    { data: '{"type":"text"}', status: 422 },
    { data: '{"type":"text","text":"x","flush":"yes"}', status: 422 },
    { data: '{"type":"say","text":"a","voice":["Yara"]}', status: 422 },
  ]);
}
