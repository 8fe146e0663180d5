/**
 * The deprecation headers of the v1 endpoints (D16): every response of a v1 route — errors
 * included — says it is deprecated: `Deprecation` (RFC 9745), `Sunset` (RFC 8594), `Link` to the
 * successor and the spec's `X-Deprecation-Warning`. The routes live with their features
 * (`src/tts/http/legacy.ts`, `src/asr/http/legacy.ts`).
 */

/** When v1 was deprecated (release 2.1.0, 2026-07) and when it goes (six months later, per the deprecation policy). */
const DEPRECATED_AT = Date.UTC(2026, 6, 1);
const SUNSET_AT = Date.UTC(2027, 0, 1);

/** The deprecation headers of the v1 route `POST <route>` whose successor is `POST <successor>`. */
export function deprecationHeaders(route: string, successor: string): Record<string, string> {
  const sunset = new Date(SUNSET_AT).toUTCString();
  return {
    deprecation: `@${DEPRECATED_AT / 1000}`,
    sunset,
    link: `<${successor}>; rel="successor-version"`,
    "x-deprecation-warning": `POST ${route} is deprecated and will be removed after ${sunset}; use POST ${successor}`,
  };
}

/** Puts a route's deprecation headers on its response; a transform, so before auth and on every error too. */
export function deprecated(headers: Record<string, string>) {
  return ({ set }: { set: { headers: Record<string, unknown> } }) => void Object.assign(set.headers, headers);
}
