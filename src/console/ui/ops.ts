/**
 * Operations (admin keys): engines, load charts from /metrics, queues and live sessions, model
 * packs, keys, lexicons and cloned voices per key, recent errors by kind. Every action is an
 * admin API call (src/admin/http/*.ts), which refuses a key that is not an admin key.
 */
import { ApiError, call, json } from "./api.ts";
import { lineChart } from "./chart.ts";
import { h, replace, table } from "./dom.ts";
import { num, t } from "./i18n.ts";
import { parseMetrics, sum, type Scrape } from "./metrics.ts";
import { keysCard, packsCard } from "./ops-manage.ts";

interface Overview {
  engines: { name: string; status: string; reason?: string; details: Record<string, unknown> }[];
  lexicon_entries: Record<string, number>;
  cloned_voices: Record<string, number>;
  errors: {
    by_kind: Record<string, number>;
    recent: { at: string; method: string; route: string; status: number; kind: string }[];
  };
}

const POLL_MS = 2000;

/** An engine's details in one line: plain values as they are, a map as its keys and values, a list by its length. */
function summary(details: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(details)) {
    if (value === null || value === undefined || key.endsWith("_reason")) continue;
    if (Array.isArray(value)) parts.push(`${key}: ${value.length}`);
    else if (typeof value === "object")
      parts.push(
        `${key}: ${Object.entries(value as Record<string, unknown>)
          .filter(([, v]) => typeof v !== "object")
          .map(([k, v]) => `${k}=${String(v)}`)
          .join(" ")}`,
      );
    else parts.push(`${key}: ${String(value)}`);
  }
  return parts.join(" · ");
}

/** Mounts the operations page in `page`; returns its clean-up (stops polling). */
export function opsPage(page: HTMLElement): () => void {
  const rate = lineChart("chart-rate", t("requestRate"), 30, 2);
  const latency = lineChart("chart-latency", t("latency"), 30, 0);
  const gauges = h("p", { id: "ops-gauges", class: "facts" });
  const engines = h("div", { id: "ops-engines" });
  const perKey = h("div", { id: "ops-lexicons" });
  const errors = h("div", { id: "ops-errors" });
  const status = h("p", { class: "status", role: "status" });
  let previous: { scrape: Scrape; at: number } | undefined;

  async function scrape(): Promise<void> {
    const text = await (await call("/metrics")).text();
    const now = { scrape: parseMetrics(text), at: performance.now() };
    const queued = sum(now.scrape, "sawt_queue_depth");
    const running = sum(now.scrape, "sawt_running_jobs");
    const streams = sum(now.scrape, "sawt_asr_open_streams");
    replace(
      gauges,
      `${t("queued")}: ${num(queued)} · ${t("running")}: ${num(running)} · ${t("openStreams")}: ${num(streams)}`,
    );
    if (previous) {
      const seconds = (now.at - previous.at) / 1000;
      const count = (s: Scrape) => sum(s, "sawt_http_request_duration_seconds_count");
      const total = (s: Scrape) => sum(s, "sawt_http_request_duration_seconds_sum");
      const requests = count(now.scrape) - count(previous.scrape);
      rate.push(requests / seconds);
      latency.push(requests > 0 ? ((total(now.scrape) - total(previous.scrape)) / requests) * 1000 : 0);
    }
    previous = now;
  }

  async function overview(): Promise<void> {
    const o = await json<Overview>("/v1/admin/overview");
    replace(
      engines,
      table(
        t("engines"),
        [t("name"), t("status"), t("details")],
        o.engines.map((e) => [
          h("bdi", {}, e.name),
          h("span", { class: `state state-${e.status}` }, e.status),
          h("bdi", { dir: "ltr", class: "details" }, e.reason ?? summary(e.details)),
        ]),
      ),
    );
    const ids = [...new Set([...Object.keys(o.lexicon_entries), ...Object.keys(o.cloned_voices)])];
    replace(
      perKey,
      table(
        t("lexicons"),
        [t("keyId"), t("lexiconEntries"), t("clonedVoices")],
        ids.map((id) => [h("bdi", {}, id), num(o.lexicon_entries[id] ?? 0), num(o.cloned_voices[id] ?? 0)]),
      ),
    );
    replace(
      errors,
      table(
        t("errors"),
        [t("kind"), t("count")],
        Object.entries(o.errors.by_kind).map(([k, n]) => [h("bdi", {}, k), num(n)]),
      ),
      table(
        t("errors"),
        [t("when"), t("route"), t("status"), t("kind")],
        o.errors.recent
          .slice(0, 10)
          .map((e) => [
            e.at.slice(11, 19),
            h("bdi", { dir: "ltr" }, `${e.method} ${e.route}`),
            num(e.status),
            h("bdi", {}, e.kind),
          ]),
      ),
    );
  }

  const tick = () =>
    Promise.all([scrape(), overview()]).then(
      () => (status.textContent = ""),
      (error: unknown) =>
        (status.textContent = error instanceof ApiError ? `${error.status}: ${error.message}` : String(error)),
    );
  void tick();
  const timer = setInterval(tick, POLL_MS);
  replace(
    page,
    h("h1", {}, t("navOps")),
    status,
    h("section", { class: "card" }, h("h2", {}, t("engines")), engines),
    h(
      "section",
      { class: "card" },
      h("h2", {}, t("load")),
      gauges,
      h("div", { class: "charts" }, rate.element, latency.element),
    ),
    packsCard(),
    keysCard(),
    h("section", { class: "card" }, h("h2", {}, t("lexicons")), perKey),
    h("section", { class: "card" }, h("h2", {}, t("errors")), errors),
  );
  return () => clearInterval(timer);
}
