/** The one JSON reply of REST routes that answer stored data (never cached: it is per key). */

/** `body` as an `application/json` response with `status`, `Cache-Control: no-store`. */
export function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", "cache-control": "no-store" },
  });
}
