/**
 * Sawt's metrics: what operators graph and alert on. HTTP requests (count and latency by route
 * and status), gRPC speech calls (by method and status code), admission (queue depth, queue wait, running jobs, 503/504 outcomes, requests
 * dropped because the client left while queued), engine state, inference time and real-time
 * factor per engine, process memory. Rendered at GET /metrics (src/app/metrics-route.ts).
 *
 * Engines report each inference with {@link Metrics.observeInference}; the HTTP app reports each
 * request through its `observe` hook; everything else is read at scrape time.
 */
import { VERSION } from "../version.ts";
import type { Admission } from "./admission.ts";
import { ENGINE_STATUSES, type EngineState } from "./engine-state.ts";
import { Registry, type Counter, type Histogram } from "./prometheus.ts";

/** Engine names carried as the `engine` label. */
export type MetricsEngine = "tts" | "asr";

/** What the metrics read at scrape time. */
export interface MetricsSources {
  readonly engines: Readonly<Record<MetricsEngine, EngineState>>;
  readonly admission: Readonly<Record<MetricsEngine, Admission>>;
}

/** One finished gRPC call. */
export interface GrpcCallObservation {
  /** `tts.Synthesize`, `asr.StreamingRecognize`, … */
  readonly method: string;
  /** The status code name (`OK`, `INVALID_ARGUMENT`, …). */
  readonly code: string;
  readonly seconds: number;
}

/** One finished HTTP request. */
export interface RequestObservation {
  readonly method: string;
  /** The route pattern (`/v1/tts/audio/speech`, `unmatched`), never the raw path. */
  readonly route: string;
  readonly status: number;
  readonly seconds: number;
}

/** The live transcription doors, as the `door` label names them. */
export const STREAM_DOORS = [
  "realtime",
  "jambonz",
  "grpc",
  "mrcp",
  "deepgram",
  "audiosocket",
  "chan_websocket",
  "external_media",
] as const;
/** One live transcription door. */
export type StreamDoor = (typeof STREAM_DOORS)[number];

const FINAL_LATENCY_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10];
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
const WAIT_BUCKETS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const RTF_BUCKETS = [0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5];

/** The metrics of one Sawt process. */
export class Metrics {
  readonly registry = new Registry();
  private readonly requests: Counter;
  private readonly latency: Histogram;
  private readonly grpcCalls: Counter;
  private readonly grpcLatency: Histogram;
  private readonly queueWait: Histogram;
  private readonly inference: Histogram;
  private readonly audio: Counter;
  private readonly rtf: Histogram;
  private readonly streamAudio: Counter;
  private readonly redactions: Counter;
  private readonly finalLatency: Histogram;
  private readonly openStreams = new Map<StreamDoor, number>(STREAM_DOORS.map((door) => [door, 0]));
  private readonly jobFilesEnded: Counter;
  private readonly jobAudio: Counter;
  private readonly webhookAttempts: Counter;
  private jobFiles: () => Readonly<Record<string, number>> = () => ({});

  constructor(sources: MetricsSources) {
    const r = this.registry;
    const engines = Object.keys(sources.engines) as MetricsEngine[];
    const perEngine = (read: (a: Admission) => number) =>
      engines.map((engine) => ({ labels: { engine }, value: read(sources.admission[engine]) }));

    r.gauge("sawt_build_info", "Sawt version of this process (always 1).", () => [
      { labels: { version: VERSION }, value: 1 },
    ]);
    this.requests = r.counter(
      "sawt_http_requests_total",
      "HTTP requests answered, by method, route pattern and status.",
      ["method", "route", "status"],
    );
    this.latency = r.histogram(
      "sawt_http_request_duration_seconds",
      "HTTP request latency until the response was sent, by method and route pattern.",
      ["method", "route"],
      LATENCY_BUCKETS,
    );
    this.grpcCalls = r.counter("sawt_grpc_requests_total", "gRPC speech calls finished, by method and status code.", [
      "method",
      "code",
    ]);
    this.grpcLatency = r.histogram(
      "sawt_grpc_request_duration_seconds",
      "gRPC speech call duration until its status was sent (whole stream for streaming calls), by method.",
      ["method"],
      LATENCY_BUCKETS,
    );
    r.gauge("sawt_engine_state", "Engine lifecycle state: 1 for the current state, 0 for the others.", () =>
      engines.flatMap((engine) => {
        const status = sources.engines[engine].state;
        return ENGINE_STATUSES.map((state) => ({ labels: { engine, state }, value: state === status ? 1 : 0 }));
      }),
    );
    r.gauge("sawt_queue_depth", "Requests waiting for an inference slot.", () => perEngine((a) => a.stats.queued));
    r.gauge("sawt_running_jobs", "Requests holding an inference slot.", () => perEngine((a) => a.stats.running));
    this.queueWait = r.histogram(
      "sawt_queue_wait_seconds",
      "Time admitted requests waited for an inference slot (0 when admitted at once).",
      ["engine"],
      WAIT_BUCKETS,
    );
    r.collectedCounter("sawt_admitted_total", "Requests admitted to an inference slot.", () =>
      perEngine((a) => a.stats.admitted),
    );
    r.collectedCounter(
      "sawt_admission_rejected_total",
      "Requests refused by admission: queue_full (503), timeout (504).",
      () =>
        engines.flatMap((engine) => {
          const s = sources.admission[engine].stats;
          return [
            { labels: { engine, reason: "queue_full" }, value: s.rejectedBusy },
            { labels: { engine, reason: "timeout" }, value: s.timedOut },
          ];
        }),
    );
    r.collectedCounter(
      "sawt_queue_dropped_total",
      "Queued requests dropped because the client went away; they never ran.",
      () => perEngine((a) => a.stats.abandoned),
    );
    this.inference = r.histogram(
      "sawt_inference_seconds",
      "Compute time of one inference (synthesis or transcription).",
      ["engine"],
      LATENCY_BUCKETS,
    );
    this.audio = r.counter(
      "sawt_inference_audio_seconds_total",
      "Seconds of audio produced (TTS) or transcribed (ASR).",
      ["engine"],
    );
    this.rtf = r.histogram(
      "sawt_inference_real_time_factor",
      "Compute time over audio duration per inference (below 1 is faster than real time).",
      ["engine"],
      RTF_BUCKETS,
    );
    r.gauge("sawt_asr_open_streams", "Live transcription sessions open, by door.", () =>
      STREAM_DOORS.map((door) => ({ labels: { door }, value: this.openStreams.get(door) ?? 0 })),
    );
    this.streamAudio = r.counter(
      "sawt_asr_stream_audio_seconds_total",
      "Seconds of audio received by live transcription sessions, by door.",
      ["door"],
    );
    this.redactions = r.counter(
      "sawt_asr_redactions_total",
      "Spans redacted in transcripts (every door), by type (card, cvv, expiry, iban, national_id, phone, email).",
      ["type"],
    );
    this.finalLatency = r.histogram(
      "sawt_asr_stream_final_latency_seconds",
      "Time from the end of an utterance (its last audio received) to its final result being sent, by door.",
      ["door"],
      FINAL_LATENCY_BUCKETS,
    );
    r.gauge(
      "sawt_job_files",
      "Files of transcription jobs by state (queued, running, completed, failed, cancelled).",
      () => Object.entries(this.jobFiles()).map(([state, value]) => ({ labels: { state }, value })),
    );
    this.jobFilesEnded = r.counter(
      "sawt_job_files_ended_total",
      "Job files this process finished, by outcome (completed, failed).",
      ["outcome"],
    );
    this.jobAudio = r.counter(
      "sawt_job_audio_seconds_total",
      "Seconds of audio transcribed by jobs (÷ 3600: hours).",
      [],
    );
    this.webhookAttempts = r.counter(
      "sawt_job_webhook_attempts_total",
      "Job webhook delivery attempts, by outcome (delivered, failed: the receiver did not answer 2xx).",
      ["outcome"],
    );
    r.gauge("process_resident_memory_bytes", "Resident memory of the process, including inference workers.", () => [
      { labels: {}, value: process.memoryUsage.rss() },
    ]);
    r.gauge("sawt_js_heap_used_bytes", "JavaScript heap in use on the main thread.", () => [
      { labels: {}, value: process.memoryUsage().heapUsed },
    ]);
    r.collectedCounter("process_cpu_seconds_total", "CPU time of the process (user + system), all threads.", () => {
      const usage = process.cpuUsage();
      return [{ labels: {}, value: (usage.user + usage.system) / 1e6 }];
    });
    const startSeconds = Math.floor(Date.now() / 1000 - process.uptime());
    r.gauge("process_start_time_seconds", "Start time of the process since the Unix epoch.", () => [
      { labels: {}, value: startSeconds },
    ]);

    for (const engine of engines)
      sources.admission[engine].onAdmitted((seconds) => this.queueWait.observe({ engine }, seconds));
  }

  /** Records a finished HTTP request (the HTTP app's `observe` hook). */
  observeRequest(request: RequestObservation): void {
    this.requests.inc({ method: request.method, route: request.route, status: String(request.status) });
    this.latency.observe({ method: request.method, route: request.route }, request.seconds);
  }

  /** Records a finished gRPC speech call (src/grpc/call.ts). */
  observeGrpcCall(call: GrpcCallObservation): void {
    this.grpcCalls.inc({ method: call.method, code: call.code });
    this.grpcLatency.observe({ method: call.method }, call.seconds);
  }

  /**
   * Records one inference: compute `seconds` and the `audioSeconds` it produced or consumed.
   * Engines call this once per synthesis/transcription (not per sentence or session run).
   */
  observeInference(engine: MetricsEngine, seconds: number, audioSeconds: number): void {
    this.inference.observe({ engine }, seconds);
    if (audioSeconds > 0) {
      this.audio.inc({ engine }, audioSeconds);
      this.rtf.observe({ engine }, seconds / audioSeconds);
    }
  }

  /** A live transcription session opened (+1) or closed (−1) on `door`. */
  countStream(door: StreamDoor, delta: 1 | -1): void {
    this.openStreams.set(door, Math.max(0, (this.openStreams.get(door) ?? 0) + delta));
  }

  /** Seconds of audio a live session received. */
  observeStreamAudio(door: StreamDoor, seconds: number): void {
    if (seconds > 0) this.streamAudio.inc({ door }, seconds);
  }

  /** One redacted span of a transcript's output (its text is never seen here). */
  countRedaction(type: string): void {
    this.redactions.inc({ type }, 1);
  }

  /** Seconds from the end of an utterance to its final result. */
  observeFinalLatency(door: StreamDoor, seconds: number): void {
    this.finalLatency.observe({ door }, seconds);
  }

  /** Where the job files gauge reads its counts by state (the jobs feature sets it). */
  watchJobFiles(read: () => Readonly<Record<string, number>>): void {
    this.jobFiles = read;
  }

  /** A job file ended: its outcome and the audio seconds it held. */
  observeJobFile(outcome: "completed" | "failed", audioSeconds: number): void {
    this.jobFilesEnded.inc({ outcome });
    if (audioSeconds > 0) this.jobAudio.inc({}, audioSeconds);
  }

  /** One webhook delivery attempt. */
  observeWebhook(delivered: boolean): void {
    this.webhookAttempts.inc({ outcome: delivered ? "delivered" : "failed" });
  }

  /** Requests counted for a method, route and status (tests, diagnostics). */
  requestCount(method: string, route: string, status: number): number {
    return this.requests.get({ method, route, status: String(status) });
  }

  /** The Prometheus text exposition. */
  render(): string {
    return this.registry.render();
  }
}
