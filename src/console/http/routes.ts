/**
 * The operator console's door: `GET /console` (the page), `/console/app.js` and `/console/app.css`
 * (docs/console.md). No key is needed to load the page; every action it takes goes through the
 * public and admin APIs with the key the operator typed, so hiding a button protects nothing and
 * the APIs refuse what a key may not do. Every response carries a strict Content-Security-Policy:
 * scripts and styles from this origin only (the page has no inline script or style), media from
 * blob: URLs the page made, network to this origin only (fetch and the realtime WebSocket).
 */
import { Elysia } from "elysia";
import type { AppContext } from "../../core/context.ts";
import { CONSOLE_SCRIPT, CONSOLE_STYLES } from "./assets.ts";

/** The Content-Security-Policy of every console response. */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "media-src 'self' blob:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const SECURITY_HEADERS = {
  "content-security-policy": CONSOLE_CSP,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cross-origin-opener-policy": "same-origin",
  "x-frame-options": "DENY",
};

/** The page's languages; the first is the default. */
const LANGS = ["ar", "en"] as const;

/** The HTML shell: the script builds everything else. `lang` only sets the first paint's direction. */
function page(lang: (typeof LANGS)[number]): string {
  const dir = lang === "ar" ? "rtl" : "ltr";
  const title = lang === "ar" ? "صوت: لوحة التشغيل" : "Sawt console";
  return `<!doctype html>
<html lang="${lang}" dir="${dir}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>${title}</title>
<link rel="stylesheet" href="/console/app.css">
<script type="module" src="/console/app.js"></script>
</head>
<body><main id="app" aria-live="polite"></main></body>
</html>
`;
}

function asset(body: string, type: string, cache: string): Response {
  return new Response(body, { headers: { ...SECURITY_HEADERS, "content-type": type, "cache-control": cache } });
}

/** The console plugin. */
export function consoleRoutes(_ctx: AppContext) {
  return new Elysia({ name: "console" })
    .get(
      "/console",
      ({ query }) => {
        const lang = LANGS.find((l) => l === query.lang) ?? LANGS[0];
        return asset(page(lang), "text/html; charset=utf-8", "no-store");
      },
      { detail: { hide: true } },
    )
    .get("/console/app.js", () => asset(CONSOLE_SCRIPT, "text/javascript; charset=utf-8", "no-cache"), {
      detail: { hide: true },
    })
    .get("/console/app.css", () => asset(CONSOLE_STYLES, "text/css; charset=utf-8", "no-cache"), {
      detail: { hide: true },
    });
}
