/**
 * The fuzzer's frames against the borrowed protocols' TTS sockets (issue 40): Deepgram's
 * `/v1/speak` and ElevenLabs' input-streaming routes. They answer in their own shapes, so what
 * holds is: every text frame is JSON; Deepgram's are typed (`Metadata`, `Flushed`, `Cleared`,
 * `Warning`, `Error` with `err_code`/`err_msg`), ElevenLabs' carry `audio`, `isFinal` or an
 * `error` with a `message`; nothing leaks; a session ends only with a close frame of a known code
 * (never a dropped socket); an unauthenticated upgrade never opens.
 */
import { borrowedProtocol, checkBorrowedError, leaks, type Secrets } from "./contract.ts";
import type { WsOutcome } from "./ws.ts";

/** Close codes these doors end a session with: normal, unsupported data, policy, too big, server error, try later. */
const CLOSE_CODES = new Set([1000, 1003, 1008, 1009, 1011, 1013]);
const DEEPGRAM_TYPES = new Set(["Metadata", "Flushed", "Cleared", "Warning", "Error"]);

/** Runs one session of `frames` against a borrowed protocol's socket at `url`. */
export function runBorrowedWsSession(
  url: string,
  key: string,
  frames: ReadonlyArray<string | Uint8Array>,
  authorised: boolean,
  secrets: Secrets,
): Promise<WsOutcome> {
  const protocol = borrowedProtocol(new URL(url).pathname)!;
  const problems: string[] = [];
  return new Promise((resolve) => {
    const headers = authorised ? { "x-api-key": key } : { "x-api-key": `${key.slice(0, -3)}zzz` };
    const ws = new WebSocket(url, { headers } as unknown as string[]);
    ws.binaryType = "arraybuffer";
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
      if (protocol === "deepgram") {
        if (!DEEPGRAM_TYPES.has(String(message.type))) problems.push(`deepgram message ${String(message.type)}`);
        if (message.type === "Error") problems.push(...checkBorrowedError("deepgram", message));
        return;
      }
      const known = typeof message.audio === "string" || message.isFinal === true || typeof message.error === "string";
      if (!known) problems.push(`elevenlabs message ${Object.keys(message).sort().join(",")}`);
      if (message.error !== undefined && typeof message.message !== "string") problems.push("error without a message");
    };
    ws.onclose = (event) => {
      if (opened && !done && !CLOSE_CODES.has(event.code)) problems.push(`closed ${event.code}`);
      finish();
    };
  });
}
