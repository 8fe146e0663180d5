/** Request ids (D9): echo a well-formed client id, otherwise generate one. */
import type { HeaderGetter } from "./headers.ts";

const CLIENT_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The id for a request: the client's `x-request-id` (header or metadata) when valid, else a new UUID. */
export function requestIdFrom(headers: HeaderGetter): string {
  const sent = headers.get("x-request-id");
  return sent !== null && CLIENT_ID.test(sent) ? sent : crypto.randomUUID();
}
