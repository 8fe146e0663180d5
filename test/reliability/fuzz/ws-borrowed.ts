/**
 * The fuzzer's frames against the borrowed protocols' TTS sockets (issue 40): Deepgram's
 * `/v1/speak` and ElevenLabs' input-streaming routes. They answer in their own shapes, so what
 * holds is: every text frame is JSON; Deepgram's are typed (`Metadata`, `Flushed`, `Cleared`,
 * `Warning`, `Error` with `err_code`/`err_msg`), ElevenLabs' carry `audio`, `isFinal` or an
 * `error` with a `message`; nothing leaks; a session ends only with a close frame of a known code
 * (never a dropped socket); an unauthenticated upgrade never opens.
 */
import { borrowedProtocol, checkBorrowedError, type Secrets } from "./contract.ts";
import { type EventDoorContract, runEventWsSession, type WsOutcome } from "./ws.ts";

/** Close codes these doors end a session with: normal, unsupported data, policy, too big, server error, try later. */
const CLOSE_CODES = new Set([1000, 1003, 1008, 1009, 1011, 1013]);
const DEEPGRAM_TYPES = new Set(["Metadata", "Flushed", "Cleared", "Warning", "Error"]);

/** What Deepgram's and ElevenLabs' TTS sockets hold their frames and closes to. */
const CONTRACTS: Readonly<Record<"deepgram" | "elevenlabs", EventDoorContract>> = {
  deepgram: {
    closeCodes: CLOSE_CODES,
    check: (message) => [
      ...(DEEPGRAM_TYPES.has(String(message.type)) ? [] : [`deepgram message ${String(message.type)}`]),
      ...(message.type === "Error" ? checkBorrowedError("deepgram", message) : []),
    ],
  },
  elevenlabs: {
    closeCodes: CLOSE_CODES,
    check(message) {
      const known = typeof message.audio === "string" || message.isFinal === true || typeof message.error === "string";
      return [
        ...(known ? [] : [`elevenlabs message ${Object.keys(message).sort().join(",")}`]),
        ...(message.error !== undefined && typeof message.message !== "string" ? ["error without a message"] : []),
      ];
    },
  },
};

/** Runs one session of `frames` against a borrowed protocol's socket at `url`. */
export function runBorrowedWsSession(
  url: string,
  key: string,
  frames: ReadonlyArray<string | Uint8Array>,
  authorised: boolean,
  secrets: Secrets,
): Promise<WsOutcome> {
  const protocol = borrowedProtocol(new URL(url).pathname)!;
  return runEventWsSession(url, key, frames, authorised, secrets, CONTRACTS[protocol]);
}
