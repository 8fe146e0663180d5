/**
 * chan_websocket's control messages (Asterisk's `channels/chan_websocket.c` and the "WebSocket
 * channel driver" page of docs.asterisk.org), in both of its formats: plain text — one line, the
 * name, then `key:value` parameters (`MEDIA_START connection_id:… channel_id:… format:slin16
 * optimal_frame_size:640 ptime:20`, `DTMF_END digit:5 channel_id:…`) or a bare value
 * (`MEDIA_MARK_PROCESSED <correlation id>`) — and JSON (Asterisk 20.18, 22.8, 23.2 and later, with
 * `f(json)`): `{"event": …, "channel_id": …, …}` from Asterisk, `{"command": …, …}` to it.
 * Commands are case-sensitive, and Asterisk reads at most 128 bytes of one.
 */

/** An event from Asterisk: its name and parameters (strings, numbers, or MEDIA_START's variables). */
export interface AsteriskEvent {
  readonly event: string;
  readonly params: Readonly<Record<string, unknown>>;
  /** The bare value after the name in plain text (`MEDIA_MARK_PROCESSED <id>`). */
  readonly value?: string;
  /** Whether it came as JSON (the call's control format then is JSON). */
  readonly json: boolean;
}

/** Reads a TEXT message Elysia handed over (JSON already parsed, plain text as a string); undefined when it is neither. */
export function parseEvent(message: unknown): AsteriskEvent | undefined {
  if (typeof message === "string") {
    const text = message.trim();
    if (text.startsWith("{")) {
      try {
        return parseEvent(JSON.parse(text));
      } catch {
        return undefined;
      }
    }
    const [event, ...rest] = text.split(/\s+/);
    if (!event || !/^[A-Z_]+$/.test(event)) return undefined;
    const params: Record<string, string> = {};
    for (const part of rest) {
      const colon = part.indexOf(":");
      if (colon > 0) params[part.slice(0, colon)] = part.slice(colon + 1);
    }
    const value = rest.length === 1 && !rest[0]!.includes(":") ? rest[0] : undefined;
    return { event, params, ...(value !== undefined ? { value } : {}), json: false };
  }
  if (typeof message !== "object" || message === null || Array.isArray(message)) return undefined;
  const { event, ...params } = message as Record<string, unknown>;
  if (typeof event !== "string") return undefined;
  return { event, params, json: true };
}

/** A parameter as text ("" when absent). */
export function param(event: AsteriskEvent, name: string): string {
  const value = event.params[name];
  return typeof value === "string" ? value : typeof value === "number" ? String(value) : "";
}

/** The correlation id of a MEDIA_MARK_PROCESSED, in either format. */
export function correlationId(event: AsteriskEvent): string {
  return param(event, "correlation_id") || event.value || "";
}

/** A command to Asterisk in the call's control format; `correlationId` rides MARK_MEDIA. */
export function command(name: "MARK_MEDIA" | "FLUSH_MEDIA" | "HANGUP", json: boolean, correlationId?: string): string {
  if (json)
    return JSON.stringify({ command: name, ...(correlationId !== undefined ? { correlation_id: correlationId } : {}) });
  return correlationId !== undefined ? `${name} ${correlationId}` : name;
}
