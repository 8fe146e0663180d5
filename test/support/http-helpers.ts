/**
 * The requests many tests make of a running server, written once: a speech request over REST and a
 * /metrics scrape (parsed into samples, summed over label sets when asked).
 */

/** POST /v1/tts/audio/speech with `body` as JSON and the key as X-API-Key; the raw response. */
export function postSpeech(baseUrl: string, key: string, body: Record<string, unknown>): Promise<Response> {
  return fetch(`${baseUrl}/v1/tts/audio/speech`, {
    method: "POST",
    headers: { "x-api-key": key, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

/** Parses Prometheus text into `name{labels}` → value (labels as written by the exposition). */
export function parseMetrics(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const at = line.lastIndexOf(" ");
    samples.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return samples;
}

/** GET /metrics (with `key` when the route is closed), as text. */
export async function scrapeMetricsText(baseUrl: string, key?: string): Promise<string> {
  const response = await fetch(`${baseUrl}/metrics`, key ? { headers: { "x-api-key": key } } : {});
  return response.text();
}

/** GET /metrics, parsed. */
export async function scrapeMetrics(baseUrl: string, key?: string): Promise<Map<string, number>> {
  return parseMetrics(await scrapeMetricsText(baseUrl, key));
}

/** The sum of every sample of metric `name` (all label sets; 0 when absent). */
export function metricTotal(samples: ReadonlyMap<string, number>, name: string): number {
  let total = 0;
  for (const [sample, value] of samples) if (sample === name || sample.startsWith(`${name}{`)) total += value;
  return total;
}
