/**
 * The whole box the door fuzz and the mixed soak attack: the real `sawt serve` child process with
 * every door open — REST and WebSocket, gRPC, the MRCPv2 door (SIP over UDP and TCP, MRCP, RTP in a
 * private port range), the call doors (AudioSocket, chan_websocket, externalMedia RTP in a private
 * range of its own, the call API) and transcription jobs (a source folder with audio, webhooks to a local
 * listener) — the test packs (a tone Piper voice named yara, a tone CTC recogniser), one key that
 * REST and the MRCP peer (127.0.0.1) share, and what the suite reads from outside: metrics,
 * descriptors, RTP ports, child processes.
 */
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { encodeWav, floatToInt16, int16ToBytes } from "../../src/audio/wav.ts";
import { closeDatabase, openDatabase } from "../../src/store/database.ts";
import { KeyStore } from "../../src/store/keys.ts";
import { clients, installTestPacks } from "../grpc/client.ts";
import { parseMetrics } from "../support/in-process.ts";
import { letterToneAudio } from "../support/models/ctc.ts";
import { startSawt, tempDir, type SawtProcess } from "../support/sawt.ts";
import type { Secrets } from "./fuzz/contract.ts";
import { childrenOf, udpPortsIn } from "./probes.ts";
import { keySecret } from "./support.ts";

/** An address no webhook ever reaches (TEST-NET-1, RFC 5737), allowed as a configured webhook host. */
export const FAR_WEBHOOK_HOST = "192.0.2.1";

/** A running box. */
export interface Box {
  readonly sawt: SawtProcess;
  readonly key: string;
  readonly sipPort: number;
  readonly mrcpPort: number;
  readonly rtp: { readonly min: number; readonly max: number };
  /** The call doors (calls.enabled): the AudioSocket port, and externalMedia's RTP range. */
  readonly calls: { readonly audiosocket: number; readonly rtp: { readonly min: number; readonly max: number } };
  /** `jobs.source_dirs`' one folder: a.wav, b.wav, sub/c.wav, notes.txt, a symlink out. */
  readonly sourceDir: string;
  /** The local webhook listener's port, and the webhooks it received. */
  readonly hook: { readonly port: number; received: number };
  /** Hosts a job's webhook may reach (`jobs.callback_hosts`), and their addresses. */
  readonly callbackHosts: readonly string[];
  readonly webhookAddresses: readonly string[];
  /** A short recording the tone recogniser reads as مرحبا: WAV, and 16 kHz PCM (gRPC, WebSocket). */
  readonly wav: Uint8Array;
  readonly pcm: Uint8Array;
  /** gRPC stubs on the TTS port and the ASR service on the ASR port (opened on first use). */
  readonly grpc: ReturnType<typeof clients>;
  readonly secrets: Secrets;
  metrics(): Promise<Map<string, number>>;
  /** The server and its children (the jobs worker), for socket and leak probes. */
  pids(): number[];
  /** RTP ports the server holds now (its UDP sockets in the range). */
  rtpPorts(): number;
  close(): Promise<void>;
}

/** Starts a box; `env` adds or overrides settings. */
export async function startBox(env: Record<string, string> = {}): Promise<Box> {
  const dir = tempDir("sawt-box-");
  const models = join(dir.path, "models");
  await installTestPacks(models, { voice: true });
  const dataDir = join(dir.path, "data");
  const db = openDatabase(dataDir);
  const created = new KeyStore(db).create({ name: "box", rpm: 1_000_000 });
  closeDatabase(db);
  const sourceDir = join(dir.path, "recordings");
  mkdirSync(join(sourceDir, "sub"), { recursive: true });
  const speech = letterToneAudio("مرحبا", 16000);
  const wav = encodeWav(speech, 16000);
  await Promise.all([
    Bun.write(join(sourceDir, "a.wav"), wav),
    Bun.write(join(sourceDir, "b.wav"), wav),
    Bun.write(join(sourceDir, "sub", "c.wav"), wav),
    Bun.write(join(sourceDir, "notes.txt"), "not audio"),
  ]);
  symlinkSync("/etc/passwd", join(sourceDir, "out.wav"));
  let received = 0;
  const listener = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: async (request) => {
      await request.arrayBuffer();
      received++;
      return new Response("ok");
    },
  });
  const hook = {
    port: listener.port!,
    get received() {
      return received;
    },
  };
  // A private RTP range per run, so ports held are this box's (and parallel runs do not meet).
  const rtpMin = 31000 + (process.pid % 300) * 100;
  const rtp = { min: rtpMin, max: rtpMin + 99 };
  const callRtpMin = 21000 + (process.pid % 400) * 20;
  const callRtp = { min: callRtpMin, max: callRtpMin + 19 };
  const callbackHosts = [`127.0.0.1:${hook.port}`, `${FAR_WEBHOOK_HOST}:9`];
  const sawt = await startSawt({
    dataDir,
    env: {
      SAWT_MODELS_DIR: models,
      SAWT_TTS_MAX_QUEUE: "64",
      SAWT_ASR_MAX_QUEUE: "64",
      SAWT_RUNTIME_METRICS_OPEN: "true",
      SAWT_MRCP_ENABLED: "true",
      SAWT_MRCP_SIP_PORT: "0",
      SAWT_MRCP_MRCP_PORT: "0",
      SAWT_MRCP_ALLOWED_NETWORKS: "127.0.0.1/32",
      SAWT_MRCP_PEERS: `127.0.0.1/32=${created.id}`,
      SAWT_MRCP_RTP_PORT_MIN: String(rtp.min),
      SAWT_MRCP_RTP_PORT_MAX: String(rtp.max),
      SAWT_MRCP_MAX_SESSIONS: "40",
      SAWT_MRCP_IDLE_TIMEOUT_S: "3",
      SAWT_MRCP_IDENTIFY_TIMEOUT_S: "2",
      SAWT_JOBS_SOURCE_DIRS: sourceDir,
      SAWT_JOBS_CALLBACK_HOSTS: callbackHosts.join("\n"),
      SAWT_JOBS_WEBHOOK_SECRET: "reliability-webhook-secret-0123456789abcdef",
      SAWT_JOBS_WORKER_IDLE_MS: "1000",
      SAWT_JOBS_MAX_FILES: "20",
      SAWT_CALLS_ENABLED: "true",
      SAWT_CALLS_AUDIOSOCKET_PORT: "0",
      SAWT_CALLS_PEERS: `127.0.0.1/32=${created.id}`,
      SAWT_CALLS_RTP_PORT_MIN: String(callRtp.min),
      SAWT_CALLS_RTP_PORT_MAX: String(callRtp.max),
      SAWT_CALLS_IDLE_TIMEOUT_S: "3",
      SAWT_CALLS_IDENTIFY_TIMEOUT_S: "2",
      ...env,
    },
  });
  const pid = sawt.proc.pid;
  const tts = clients(sawt.ports.grpc_tts);
  const asr = clients(sawt.ports.grpc_asr);
  return {
    sawt,
    key: created.key,
    sipPort: sawt.ports.sip!,
    mrcpPort: sawt.ports.mrcp!,
    rtp,
    calls: { audiosocket: sawt.ports.audiosocket!, rtp: callRtp },
    sourceDir,
    hook,
    callbackHosts,
    webhookAddresses: [FAR_WEBHOOK_HOST],
    wav,
    pcm: int16ToBytes(floatToInt16(speech)),
    grpc: { ...tts, asr: asr.asr },
    secrets: {
      needles: [created.key, keySecret(created.key), dataDir, models, "node_modules", "root:x:0:0"],
    },
    async metrics() {
      return parseMetrics(await (await fetch(`${sawt.baseUrl}/metrics`)).text());
    },
    pids: () => [pid, ...childrenOf(pid)],
    rtpPorts: () => udpPortsIn(pid, rtp).length + udpPortsIn(pid, callRtp).length,
    async close() {
      tts.close();
      asr.close();
      if (sawt.proc.exitCode === null) await sawt.stop();
      listener.stop(true);
      dir.remove();
    },
  };
}
