/**
 * The client messages of the TTS WebSocket (./routes.ts has the protocol): today's one-request
 * message (a speech request, no `type`) and the streaming text-in messages `text`, `flush`,
 * `clear` and `close`. Parsed here into what the connection does; a message Sawt cannot read is a
 * 400 (or the speech schema's 422 for a context's settings) naming the problem.
 */
import { AppError } from "../../errors/taxonomy.ts";

/** The context a message without `context` speaks in (the one-request message's too). */
export const DEFAULT_CONTEXT = "default";

/** Fields of a `text` message that are not speech settings. */
const TEXT_FIELDS = new Set(["type", "text", "context", "flush"]);

/** What a client message asks for. */
export type ClientMessage =
  | { readonly kind: "request"; readonly fields: Record<string, unknown> }
  | {
      readonly kind: "text";
      readonly context: string;
      readonly text: string;
      readonly flush: boolean;
      /** Speech settings (`voice`, `response_format`, …): taken when the message opens its context. */
      readonly settings: Record<string, unknown>;
    }
  | { readonly kind: "flush" | "clear" | "close"; readonly context: string };

function contextOf(message: Record<string, unknown>): string {
  const context = message.context ?? DEFAULT_CONTEXT;
  if (typeof context !== "string" || context === "")
    throw new AppError("bad_request", "context must be a non-empty string");
  return context;
}

/** Reads one client frame (Elysia hands JSON text over parsed, binary as bytes). */
export function parseClientMessage(frame: unknown): ClientMessage {
  if (frame instanceof Uint8Array || frame instanceof ArrayBuffer)
    throw new AppError("bad_request", "Binary frames are not accepted on a TTS socket: send JSON text messages");
  if (typeof frame !== "object" || frame === null || Array.isArray(frame))
    throw new AppError("bad_request", "Expected a JSON object message");
  const message = frame as Record<string, unknown>;
  const type = message.type;
  if (type === undefined) return { kind: "request", fields: message };
  if (type === "text") {
    if (typeof message.text !== "string") throw new AppError("bad_request", "text must be a string");
    if (message.flush !== undefined && typeof message.flush !== "boolean")
      throw new AppError("bad_request", "flush must be true or false");
    const settings = Object.fromEntries(Object.entries(message).filter(([name]) => !TEXT_FIELDS.has(name)));
    return { kind: "text", context: contextOf(message), text: message.text, flush: message.flush === true, settings };
  }
  if (type === "flush" || type === "clear" || type === "close") return { kind: type, context: contextOf(message) };
  throw new AppError(
    "bad_request",
    `Unknown message type ${JSON.stringify(String(type)).slice(0, 40)}: expected text, flush, clear or close (or a speech request without type)`,
  );
}
