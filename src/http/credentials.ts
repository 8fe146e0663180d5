/**
 * Where borrowed protocols carry the API key, read so a door can hand it to the edge's check
 * (src/edge/auth.ts `verify`, src/http/auth.ts `authorize`): Deepgram clients send
 * `Authorization: Token <key>` (or `Bearer`), and browsers, which cannot set headers on a
 * WebSocket, the `token` subprotocol (`Sec-WebSocket-Protocol: token, <key>`); ElevenLabs clients
 * send `xi-api-key`. Sawt's own `X-API-Key` and `Bearer` work beside each, so one key works on
 * every door. Shared by the TTS and STT doors of those protocols.
 */
import { presentedKey } from "../edge/auth.ts";
import type { HeaderGetter } from "../edge/headers.ts";

/** Subprotocols a WebSocket client offered, in order. */
export function offeredProtocols(headers: HeaderGetter): string[] {
  return (headers.get("sec-websocket-protocol") ?? "")
    .split(",")
    .map((p) => p.trim())
    .filter((p) => p !== "");
}

/** Deepgram's `Authorization: Token <key>`, else Sawt's own (`X-API-Key`, `Bearer`). */
export function tokenKey(headers: HeaderGetter): string | undefined {
  const token = /^Token\s+(\S+)\s*$/i.exec(headers.get("authorization") ?? "");
  return token?.[1] ?? presentedKey(headers);
}

/** The scheme of a key carried as subprotocols (`token, <key>` or `bearer, <key>`), and the key. */
function protocolCredential(headers: HeaderGetter): { scheme: string; key: string } | undefined {
  const offered = offeredProtocols(headers);
  for (let i = 0; i + 1 < offered.length; i++) {
    const scheme = offered[i]!.toLowerCase();
    if (scheme === "token" || scheme === "bearer") return { scheme: offered[i]!, key: offered[i + 1]! };
  }
  return undefined;
}

/** A Deepgram WebSocket's key: its headers, else the `token` (or `bearer`) subprotocol pair. */
export function deepgramSocketKey(headers: HeaderGetter): string | undefined {
  return tokenKey(headers) ?? protocolCredential(headers)?.key;
}

/**
 * The 101's `Sec-WebSocket-Protocol` for a client that sent its key as subprotocols: the scheme
 * it offered (a browser fails the handshake unless the server picks one of its offers).
 */
export function deepgramSocketProtocol(headers: HeaderGetter): Record<string, string> {
  const credential = protocolCredential(headers);
  return credential ? { "sec-websocket-protocol": credential.scheme } : {};
}

/** ElevenLabs' `xi-api-key`, else Sawt's own (`X-API-Key`, `Bearer`). */
export function xiApiKey(headers: HeaderGetter): string | undefined {
  return headers.get("xi-api-key")?.trim() || presentedKey(headers);
}
