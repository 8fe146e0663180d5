/**
 * Where webhooks may go (issue #28): a job's `callback_url`, the calls' `calls.webhook_url`. The
 * URL must name a host the operator allowed (`jobs.callback_hosts`, `calls.webhook_hosts`: nothing
 * leaves the box otherwise, D18), over http or https, without credentials in it.
 */

/** Longest webhook URL accepted. */
const MAX_URL_CHARS = 2048;

/**
 * Why `url` may not receive webhooks under `allowedHosts`, or undefined when it may; `setting`
 * names the host list in the answer.
 */
export function webhookUrlProblem(
  url: string,
  allowedHosts: readonly string[],
  setting = "jobs.callback_hosts",
): string | undefined {
  if (url.length > MAX_URL_CHARS) return `Must be at most ${MAX_URL_CHARS} characters`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "Must be an absolute http or https URL";
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return "Must be an absolute http or https URL";
  if (parsed.username !== "" || parsed.password !== "") return "Must not carry credentials";
  const host = parsed.hostname.toLowerCase().replace(/^\[|\]$/g, "");
  const port = parsed.port;
  const allowed = allowedHosts.some((entry) => {
    const [name, entryPort] = entry.toLowerCase().split(":");
    return name === host && (entryPort === undefined || entryPort === port);
  });
  return allowed ? undefined : `Host is not allowed (${setting})`;
}
