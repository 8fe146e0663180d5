/** What the interop tests share: free ports, the MRCP gauges, and aligning recorded audio. */
import { expect } from "bun:test";
import { createSocket } from "node:dgram";
import { join } from "node:path";
import { startMrcpSawt, type MrcpSawt } from "../mrcp/support.ts";
import { writeToneCtcPack } from "../support/models/ctc.ts";
import { writePiperPack } from "../support/models/tone-voice.ts";
import { tempDir } from "../support/sawt.ts";
import { ARABIC_TEXT_SYMBOLS, idMap } from "../tts/support.ts";

/**
 * A real in-process Sawt with the MRCPv2 door for an interop file: the constructed tone voice
 * (Yara, Arabic text at 16 kHz) when `voice`, the tone CTC recogniser as the default pack when
 * `recogniser`, `env` beside; resolves once its engines have settled. `close` also removes the packs.
 */
export async function startToneMrcpSawt(
  packs: { voice?: boolean; recogniser?: boolean },
  env: Record<string, string> = {},
): Promise<MrcpSawt> {
  const models = tempDir("sawt-interop-models-");
  if (packs.voice)
    await writePiperPack(join(models.path, "yara"), {
      name: "ar_text",
      sampleRate: 16000,
      phonemeIdMap: idMap(ARABIC_TEXT_SYMBOLS),
      phonemeType: "text",
    });
  if (packs.recogniser) await writeToneCtcPack(join(models.path, "tone-ctc"));
  const server = await startMrcpSawt({
    SAWT_MODELS_DIR: models.path,
    ...(packs.recogniser ? { SAWT_ASR_PACK: "tone-ctc", SAWT_STREAMING_PARTIAL_INTERVAL_MS: "0" } : {}),
    ...env,
  });
  await server.sawt.server.enginesSettled;
  return {
    ...server,
    async close() {
      await server.close();
      models.remove();
    },
  };
}

/** Ports handed out in this process: a test binds its ports later, so a free port may be drawn twice. */
const handedOut = new Set<number>();

/**
 * A free even UDP port with its odd neighbour free too (RTP and RTCP), from the range SIPp and
 * ffmpeg use, never one already handed out in this process (32 random draws repeat one in about
 * one run in twenty, and the second bind then fails).
 */
export async function freeEvenPort(): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = 40000 + 2 * Math.floor(Math.random() * 10000);
    if (handedOut.has(port)) continue;
    const sockets = [createSocket("udp4"), createSocket("udp4")];
    const bound = await Promise.all(
      sockets.map(
        (socket, i) =>
          new Promise<boolean>((resolve) => {
            socket.once("error", () => resolve(false));
            socket.bind(port + i, "127.0.0.1", () => resolve(true));
          }),
      ),
    );
    await Promise.all(sockets.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
    if (bound.every(Boolean)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error("no free even UDP port pair");
}

/** `sawt_mrcp_sessions` and `sawt_mrcp_rtp_ports` from /metrics. */
export async function mrcpGauges(baseUrl: string): Promise<{ sessions: number; rtpPorts: number }> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  const gauge = (name: string) => Number(new RegExp(`^${name} (\\d+)`, "m").exec(text)?.[1] ?? Number.NaN);
  return { sessions: gauge("sawt_mrcp_sessions"), rtpPorts: gauge("sawt_mrcp_rtp_ports") };
}

/** Waits (up to `ms`) until the door has no session and holds no RTP port; returns the gauges. */
export async function waitForIdle(server: MrcpSawt, ms = 5000): Promise<{ sessions: number; rtpPorts: number }> {
  const deadline = Date.now() + ms;
  for (;;) {
    const gauges = await mrcpGauges(server.sawt.baseUrl);
    if ((gauges.sessions === 0 && gauges.rtpPorts === 0) || Date.now() > deadline) return gauges;
    await Bun.sleep(50);
  }
}

/**
 * Where `needle` starts in `hay` with every sample within `tolerance` (leading silence either
 * side may differ); NaN when nowhere.
 */
export function alignedOffset(hay: Int16Array, needle: Int16Array, tolerance: number): number {
  const first = needle.findIndex((s) => Math.abs(s) > 200);
  for (let offset = -first; offset < hay.length; offset++) {
    let ok = true;
    for (let i = Math.max(0, -offset); i < needle.length && i + offset < hay.length && ok; i++) {
      if (Math.abs((hay[i + offset] ?? 0) - needle[i]!) > tolerance) ok = false;
    }
    if (ok) return offset;
  }
  return Number.NaN;
}

/**
 * Checks a SIPp run was clean: exit code 0, nothing in -trace_err, and every 200 to an INVITE
 * received once (a retransmitted 200 means Sawt never took SIPp's ACK).
 */
export function expectCleanRun(result: { code: number; errors: string; messages: string }, calls = 1): void {
  const oks = result.messages.match(/^SIP\/2\.0 200 OK\r?\n(?:[^\r\n]+\r?\n)*?CSeq: 1 INVITE/gm) ?? [];
  if (result.errors !== "" || result.code !== 0) console.error(result.errors);
  expect(result.errors).toBe("");
  expect(result.code).toBe(0);
  expect(oks.length).toBe(calls);
}
