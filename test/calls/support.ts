/**
 * What the call door tests share: a `sawt serve` with the call doors on (the tone CTC recogniser
 * and the tone voice as Yara, so transcripts and audio are exact), a key the loopback peer maps
 * to, the REST answers a call is compared with, and an AudioSocket peer that speaks as Asterisk
 * does — frames built with the npm `asterisk-audiosocket` codec where it knows the kind (0x00,
 * 0x01, 0x10) and from res_audiosocket.h's layout where it does not (0x03 DTMF, 0x12 slin16).
 */
import { encodeFrame, FrameType } from "asterisk-audiosocket";
import { connect as tcpConnect, type Socket } from "node:net";
import { join } from "node:path";
import { closeDatabase, openDatabase } from "../../src/store/database.ts";
import { KeyStore } from "../../src/store/keys.ts";
import { letterToneAudio, writeLetterVoicePack, writeToneCtcPack } from "../support/models/ctc.ts";
import { type SawtProcess, startSawt, tempDir, until, waitForStatus } from "../support/sawt.ts";
import { concat, encodeFile, ENCODINGS, silence } from "../asr/support.ts";
import { connect, type TestSocket } from "../asr/ws-client.ts";

/** Letters whose tones stay below 4 kHz (tone ids ≤ 30): at 8 kHz the higher ones alias. */
export const PHONE_TEXTS = ["سلام عليكم", "مرحبا بك", "شكرا لك"] as const;

/** A running server with the call doors, and its key. */
export interface CallServer {
  readonly sawt: SawtProcess;
  readonly key: string;
  readonly keyId: string;
  readonly audiosocket: number;
  readonly dir: string;
  stop(): Promise<void>;
}

/** Starts `sawt serve` with calls on, loopback mapped to a fresh key; `env` adds settings. */
export async function startCallServer(env: Record<string, string> = {}): Promise<CallServer> {
  const dir = tempDir("sawt-calls-");
  const models = join(dir.path, "models");
  await writeLetterVoicePack(join(models, "yara"));
  await writeToneCtcPack(join(models, "tone-ctc"));
  const dataDir = join(dir.path, "data");
  const db = openDatabase(dataDir);
  const created = new KeyStore(db).create({ name: "calls", rpm: 100_000 });
  closeDatabase(db);
  const rtp = 40000 + 2 * Math.floor(Math.random() * 4000);
  const sawt = await startSawt({
    dataDir,
    env: {
      SAWT_MODELS_DIR: models,
      SAWT_CALLS_ENABLED: "true",
      SAWT_CALLS_AUDIOSOCKET_PORT: "0",
      SAWT_CALLS_PEERS: `127.0.0.1/32=${created.id}`,
      SAWT_CALLS_RTP_PORT_MIN: String(rtp),
      SAWT_CALLS_RTP_PORT_MAX: String(rtp + 40),
      ...env,
    },
  });
  await waitForStatus(`${sawt.baseUrl}/ready`, 200, 30_000);
  return {
    sawt,
    key: created.key,
    keyId: created.id,
    audiosocket: sawt.ports.audiosocket!,
    dir: dir.path,
    async stop() {
      await sawt.stop("SIGKILL");
      dir.remove();
    },
  };
}

/** 16-bit little-endian PCM of float samples. */
export function pcm16(samples: Float32Array): Uint8Array {
  const out = new Int16Array(samples.length);
  for (let i = 0; i < samples.length; i++) out[i] = Math.round(Math.max(-1, Math.min(1, samples[i]!)) * 32767);
  return new Uint8Array(out.buffer);
}

/** A caller saying `texts` with the tone voice at `rate`: a second of silence before each, 1.5 s after. */
export function callerAudio(texts: readonly string[], rate: number): Float32Array {
  return concat(...texts.flatMap((t) => [silence(1, rate), letterToneAudio(t, rate)]), silence(1.5, rate));
}

/** Sawt's REST transcript of `samples` (the same audio, as a WAV upload). */
export async function restTranscript(server: CallServer, samples: Float32Array, rate: number): Promise<string> {
  const path = encodeFile(
    samples,
    rate,
    join(server.dir, `rest-${Math.random().toString(36).slice(2)}.wav`),
    ENCODINGS.wav!,
  );
  const form = new FormData();
  form.append("file", Bun.file(path), "call.wav");
  const response = await fetch(`${server.sawt.baseUrl}/v1/asr/audio/transcriptions`, {
    method: "POST",
    headers: { "x-api-key": server.key },
    body: form,
  });
  if (response.status !== 200) throw new Error(`REST transcription: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { text: string }).text;
}

/** Sawt's REST speech of `text` as raw PCM (`pcm`, at `rate`, in `encoding`). */
export async function restPcm(
  server: CallServer,
  text: string,
  rate: number,
  encoding = "pcm_s16le",
): Promise<Uint8Array> {
  const response = await fetch(`${server.sawt.baseUrl}/v1/tts/audio/speech`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": server.key },
    body: JSON.stringify({ input: text, voice: "Yara", response_format: "pcm", sample_rate: rate, encoding }),
  });
  if (response.status !== 200) throw new Error(`REST speech: ${response.status} ${await response.text()}`);
  return new Uint8Array(await response.arrayBuffer());
}

/** The application's WebSocket on call `id`. */
export function watchCall(server: CallServer, id: string): Promise<TestSocket> {
  return connect(`${server.sawt.baseUrl.replace(/^http/, "ws")}/v1/calls/${encodeURIComponent(id)}`, {
    headers: { "x-api-key": server.key },
  });
}

/** Waits until the call `id` is open (the key's list shows it). */
export async function callOpen(server: CallServer, id: string): Promise<void> {
  await until(async () => {
    const list = (await (
      await fetch(`${server.sawt.baseUrl}/v1/calls`, { headers: { "x-api-key": server.key } })
    ).json()) as { data: { id: string }[] };
    return list.data.some((call) => call.id === id);
  }, `call ${id} to open`);
}

/** Opens an AudioSocket call as Asterisk does (UUID, first frame at `rate`) and the application's socket on it. */
export async function audioSocketCall(server: CallServer, rate: number) {
  const id = newUuid();
  const peer = await AudioSocketPeer.connect(server.audiosocket);
  peer.uuid(id);
  peer.audioFrame(new Uint8Array((rate / 50) * 2), rate);
  await callOpen(server, id);
  return { id, peer, app: await watchCall(server, id) };
}

/** A frame Sawt sent, with when it arrived. */
export interface ReceivedFrame {
  readonly kind: number;
  readonly payload: Uint8Array;
  readonly at: number;
}

/** Asterisk's side of an AudioSocket connection; see the file comment. */
export class AudioSocketPeer {
  readonly frames: ReceivedFrame[] = [];
  readonly closed: Promise<void>;
  private buffer = new Uint8Array(0);

  private constructor(readonly socket: Socket) {
    this.closed = new Promise((resolve) => socket.once("close", () => resolve()));
    socket.on("error", () => undefined);
    socket.on("data", (chunk: Buffer) => this.read(new Uint8Array(chunk)));
  }

  /** Connects to Sawt's AudioSocket port. */
  static async connect(port: number): Promise<AudioSocketPeer> {
    const socket = tcpConnect({ host: "127.0.0.1", port, noDelay: true });
    await new Promise<void>((resolve, reject) => {
      socket.once("connect", () => resolve());
      socket.once("error", reject);
    });
    return new AudioSocketPeer(socket);
  }

  /** Sawt's frames are read from the documented layout: the npm parser knows no 0x12. */
  private read(chunk: Uint8Array): void {
    const data = new Uint8Array(this.buffer.length + chunk.length);
    data.set(this.buffer);
    data.set(chunk, this.buffer.length);
    let at = 0;
    while (data.length - at >= 3) {
      const length = (data[at + 1]! << 8) | data[at + 2]!;
      if (data.length - at < 3 + length) break;
      this.frames.push({ kind: data[at]!, payload: data.slice(at + 3, at + 3 + length), at: performance.now() });
      at += 3 + length;
    }
    this.buffer = data.slice(at);
  }

  /** Writes raw bytes. */
  raw(bytes: Uint8Array): void {
    this.socket.write(bytes);
  }

  /** The UUID frame (the npm codec's). */
  uuid(id: string): void {
    this.raw(encodeFrame(FrameType.UUID, Buffer.from(id.replace(/-/g, ""), "hex")));
  }

  /** One audio frame: kind 0x10 by the npm codec at 8 kHz, otherwise built from the layout. */
  audioFrame(pcm: Uint8Array, rate: number): void {
    this.raw(rate === 8000 ? encodeFrame(FrameType.AUDIO, Buffer.from(pcm)) : layoutFrame(kindOf(rate), pcm));
  }

  /** Streams `samples` as Asterisk does: 20 ms frames on the wall clock. */
  async stream(samples: Float32Array, rate: number): Promise<void> {
    const pcm = pcm16(samples);
    const frame = (rate / 50) * 2;
    const start = performance.now();
    for (let at = 0, n = 0; at < pcm.length; at += frame, n++) {
      if (this.socket.destroyed) return;
      this.audioFrame(pcm.subarray(at, at + frame), rate);
      const wait = start + (n + 1) * 20 - performance.now();
      if (wait > 0) await Bun.sleep(wait);
    }
  }

  /** A DTMF frame (kind 0x03, the digit's byte), built from the layout. */
  dtmf(digit: string): void {
    this.raw(layoutFrame(0x03, Uint8Array.of(digit.charCodeAt(0))));
  }

  /** The 0x00 hangup frame (the npm codec's). */
  hangupFrame(): void {
    this.raw(encodeFrame(FrameType.HANGUP));
  }

  /** Hangs up as Asterisk does: closes the connection. */
  close(): void {
    this.socket.end();
  }

  /** The audio payload Sawt sent in `kind` frames, joined. */
  audio(kind: number): Uint8Array {
    return Buffer.concat(this.frames.filter((f) => f.kind === kind).map((f) => f.payload));
  }
}

/** The AudioSocket kind of linear audio at `rate` (res_audiosocket.h). */
export function kindOf(rate: number): number {
  return { 8000: 0x10, 12000: 0x11, 16000: 0x12, 24000: 0x13, 32000: 0x14, 48000: 0x16 }[rate] ?? 0x10;
}

/** A frame from the documented layout: kind, 16-bit big-endian length, payload. */
export function layoutFrame(kind: number, payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(3 + payload.length);
  out[0] = kind;
  out[1] = payload.length >> 8;
  out[2] = payload.length & 0xff;
  out.set(payload, 3);
  return out;
}

/** A fresh lower-case UUID, as Asterisk's dialplan gives one. */
export const newUuid = (): string => crypto.randomUUID();
