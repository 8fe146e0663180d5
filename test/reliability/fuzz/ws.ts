/**
 * WebSocket frames drawn from a seed, sent over real connections to every WS route: speech
 * requests valid and not, garbage text, binary frames, two requests without waiting, frames over
 * the size limit, and upgrades with bad keys. Every server frame must be JSON of a known type, an
 * error frame must carry a contract status and the REST error shape, nothing may leak, and an
 * unauthenticated upgrade must never open.
 */
import { checkErrorObject, isNoAudio, leaks, type Secrets, ALLOWED_HTTP_STATUSES } from "./contract.ts";
import { NASTY_STRINGS, type Random } from "./random.ts";

/** One WS session's outcome: frames sent and the problems seen. */
export interface WsOutcome {
  readonly frames: number;
  readonly problems: string[];
}

const TYPES = new Set(["start", "end", "error"]);
/** Longer than the route's limit (512 KiB): the server must close with 1009, nothing else. */
const OVERSIZE = 600 * 1024;

/** Draws the frames of one session. */
export function drawFrames(random: Random): Array<string | Uint8Array> {
  const frames: Array<string | Uint8Array> = [];
  for (let i = random.int(1, 6); i > 0; i--) {
    const roll = random.next();
    if (roll < 0.45) frames.push(JSON.stringify(speech(random)));
    else if (roll < 0.6) frames.push(random.pick(["{", "null", "[]", "42", '"x"', random.text(30)]));
    else if (roll < 0.75) frames.push(random.bytes(random.int(0, 64)));
    else if (roll < 0.98)
      frames.push(
        JSON.stringify({
          input: random.text(random.int(1, 12)),
          response_format: random.pick(["pcm", "pcm", "wav", "mp3", "x"]),
        }),
      );
    else frames.push("x".repeat(OVERSIZE));
  }
  return frames;
}

function speech(random: Random): Record<string, unknown> {
  const body: Record<string, unknown> = {
    input: random.chance(0.5) ? random.pick(NASTY_STRINGS) : random.text(random.int(0, 20)),
  };
  if (random.chance(0.3)) body.voice = random.pick(NASTY_STRINGS);
  if (random.chance(0.3)) body.dialect = random.pick(NASTY_STRINGS);
  if (random.chance(0.3)) body.response_format = random.pick(["pcm", "wav", "ulaw", "", 5]);
  if (random.chance(0.2)) body.sample_rate = random.pick([8000, 16000, -1, "x"]);
  if (random.chance(0.2)) body.speed = random.pick([0.5, 9, "x"]);
  return body;
}

/** A socket to `url` with the key, or (not `authorised`) a wrong one that must never open. */
function openFuzzSocket(url: string, key: string, authorised: boolean): WebSocket {
  const headers = authorised ? { "x-api-key": key } : { "x-api-key": `${key.slice(0, -3)}zzz` };
  const ws = new WebSocket(url, { headers } as unknown as string[]);
  ws.binaryType = "arraybuffer";
  return ws;
}

/** Runs one session against `url`; `authorised` false sends a bad key and expects no open. */
export function runWsSession(
  url: string,
  key: string,
  frames: ReadonlyArray<string | Uint8Array>,
  authorised: boolean,
  secrets: Secrets,
): Promise<WsOutcome> {
  const problems: string[] = [];
  return new Promise((resolve) => {
    const ws = openFuzzSocket(url, key, authorised);
    let opened = false;
    let expected = 0;
    let terminal = 0;
    let sent = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const finish = () => {
      clearTimeout(timer);
      if (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING) ws.close();
      resolve({ frames: authorised ? Math.max(1, sent) : 1, problems });
    };
    const sendNext = () => {
      if (sent >= frames.length) return finish();
      const frame = frames[sent++]!;
      ws.send(frame);
      if (typeof frame === "string" && frame.length >= OVERSIZE) {
        // Answered by the close (1009), nothing else.
        timer = setTimeout(() => {
          problems.push("no close after an oversized frame");
          finish();
        }, 10_000);
        return;
      }
      expected++;
      // A request sometimes goes out before the previous answer: the server must refuse it politely.
      if (sent < frames.length && frames[sent]!.length < 1024 && sent % 3 === 0) return sendNext();
      clearTimeout(timer);
      timer = setTimeout(() => {
        problems.push(`no answer within 10 s to frame ${sent}`);
        finish();
      }, 10_000);
    };
    ws.onopen = () => {
      opened = true;
      if (!authorised) problems.push("opened with a bad key");
      sendNext();
    };
    ws.onmessage = (event) => {
      if (typeof event.data !== "string") return; // audio
      for (const leak of leaks(event.data, secrets)) problems.push(`leak: ${leak}`);
      let message: Record<string, unknown>;
      try {
        message = JSON.parse(event.data) as Record<string, unknown>;
      } catch {
        problems.push("text frame is not JSON");
        return;
      }
      if (!TYPES.has(String(message.type))) problems.push(`frame type ${String(message.type)}`);
      if (message.type === "error") {
        const { type: _type, status, retry_after: _retry, ...body } = message;
        const allowed =
          typeof status === "number" && (ALLOWED_HTTP_STATUSES.has(status) || isNoAudio(status, body.detail));
        if (!allowed) problems.push(`error frame status ${String(status)}`);
        else problems.push(...checkErrorObject(status, body));
      }
      if (message.type === "end" || message.type === "error") {
        terminal++;
        if (terminal >= expected) sendNext();
      }
    };
    ws.onclose = (event) => {
      const oversize = frames.slice(0, sent).some((f) => typeof f === "string" && f.length >= OVERSIZE);
      if (opened && terminal < expected && !(oversize && event.code === 1009))
        problems.push(`closed ${event.code} with answers pending`);
      finish();
    };
  });
}

/** Close codes a live transcription door may end a session with (normal, policy, too big, try later). */
const LIVE_CLOSE_CODES = new Set([1000, 1005, 1008, 1009, 1013]);

/** What a door that answers with its own events holds its text frames and its close to. */
export interface EventDoorContract {
  /** Close codes the door may end a session with. */
  readonly closeCodes: ReadonlySet<number>;
  /** The problems of one parsed text frame (already JSON, already checked for leaks). */
  check(message: Record<string, unknown>): string[];
}

/**
 * Runs one session of `frames` against a door that answers with its own events rather than one
 * reply per frame: every text frame must be JSON and pass the door's `check`; nothing may leak;
 * the session ends only with one of its close codes; an unauthenticated upgrade never opens.
 */
export function runEventWsSession(
  url: string,
  key: string,
  frames: ReadonlyArray<string | Uint8Array>,
  authorised: boolean,
  secrets: Secrets,
  contract: EventDoorContract,
): Promise<WsOutcome> {
  const problems: string[] = [];
  return new Promise((resolve) => {
    const ws = openFuzzSocket(url, key, authorised);
    let opened = false;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(deadline);
      if (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING) ws.close();
      resolve({ frames: authorised ? Math.max(1, frames.length) : 1, problems });
    };
    const deadline = setTimeout(finish, 10_000);
    ws.onopen = async () => {
      opened = true;
      if (!authorised) problems.push("opened with a bad key");
      for (const frame of frames) {
        if (ws.readyState !== WebSocket.OPEN) break;
        ws.send(frame);
        await Bun.sleep(5);
      }
      // Time for the answers to the last frames, then a clean close from our side.
      setTimeout(finish, 200);
    };
    ws.onmessage = (event) => {
      if (typeof event.data !== "string") return;
      for (const leak of leaks(event.data, secrets)) problems.push(`leak: ${leak}`);
      let message: Record<string, unknown>;
      try {
        message = JSON.parse(event.data) as Record<string, unknown>;
      } catch {
        problems.push("text frame is not JSON");
        return;
      }
      problems.push(...contract.check(message));
    };
    ws.onclose = (event) => {
      if (opened && !done && !contract.closeCodes.has(event.code)) problems.push(`closed ${event.code}`);
      finish();
    };
  });
}

/**
 * A live transcription door (OpenAI Realtime, jambonz, the call API): every event has a string
 * `type`; an `error` event carries OpenAI's error object (a `message`, and Sawt's REST body under
 * `sawt` when present), jambonz's error string, or the call API's `code` and `message`.
 */
const LIVE_DOOR: EventDoorContract = {
  closeCodes: LIVE_CLOSE_CODES,
  check(message) {
    if (typeof message.type !== "string") return ["event without a type"];
    if (message.type !== "error") return [];
    const error = message.error;
    if (typeof error === "string") return []; // jambonz
    // The call API's `error` event: `code` and `message` beside its type (issue 41).
    if (error === undefined && typeof message.message === "string" && message.code !== undefined) return [];
    if (error === null || typeof error !== "object" || typeof (error as { message?: unknown }).message !== "string")
      return ["error event without an error message"];
    const sawt = (error as { sawt?: Record<string, unknown> }).sawt;
    if (sawt === undefined) return [];
    const { status, ...body } = sawt;
    // Sawt's body always carries its status (src/http/ws-route.ts errorStatusBody), as deepgramErrorProblems holds.
    return typeof status === "number" ? checkErrorObject(status, body) : ["error.sawt without a status"];
  },
};

/** The same frames against a live transcription door; see {@link LIVE_DOOR}. */
export function runLiveWsSession(
  url: string,
  key: string,
  frames: ReadonlyArray<string | Uint8Array>,
  authorised: boolean,
  secrets: Secrets,
): Promise<WsOutcome> {
  return runEventWsSession(url, key, frames, authorised, secrets, LIVE_DOOR);
}
