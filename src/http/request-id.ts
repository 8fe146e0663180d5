/** Request ids (D9): echo a well-formed client id, otherwise generate one. */

const CLIENT_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The id for a request: the client's `X-Request-ID` when valid, else a new UUID. */
export function requestIdFor(request: Request): string {
  const sent = request.headers.get("x-request-id");
  return sent !== null && CLIENT_ID.test(sent) ? sent : crypto.randomUUID();
}
