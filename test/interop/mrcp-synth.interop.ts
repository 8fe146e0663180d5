/**
 * Issue 26, acceptance 1: UniMRCP's umc runs its synthesizer scenario against a real Sawt (the
 * constructed tone voice): SIP session, SPEAK of an Arabic sentence, SPEAK-COMPLETE 000 normal,
 * and the audio umc recorded equals Sawt's REST `pcm` answer for that text at that rate (L16:
 * exactly; PCMU: within G.711 quantisation); BYE releases the session and its RTP port.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { decodeG711, encodeG711 } from "../../src/audio/g711.ts";
import { bytesToInt16 } from "../../src/audio/wav.ts";
import { rtpPortsInUse } from "../../src/media/ports.ts";
import { startMrcpSawt, type MrcpSawt } from "../mrcp/support.ts";
import { tempDir } from "../support/sawt.ts";
import { writePiperPack } from "../support/models/tone-voice.ts";
import { ARABIC_TEXT_SYMBOLS, idMap } from "../tts/support.ts";
import { umcPrefix, umcRoot } from "./umc.ts";

const TEXT = "مرحبا بكم في خدمة العملاء";
const found = umcPrefix();
const prefix = "prefix" in found ? found.prefix : "";
const models = tempDir("sawt-mrcp-synth-");
let server: MrcpSawt;

beforeAll(async () => {
  if ("missing" in found) throw new Error(found.missing);
  await writePiperPack(join(models.path, "yara"), {
    name: "ar_text",
    sampleRate: 16000,
    phonemeIdMap: idMap(ARABIC_TEXT_SYMBOLS),
    phonemeType: "text",
  });
  server = await startMrcpSawt({ SAWT_MODELS_DIR: models.path });
  await server.sawt.server.enginesSettled;
}, 60_000);

afterAll(async () => {
  await server?.close();
  models.remove();
});

async function restPcm(rate: number, encoding: string): Promise<Uint8Array> {
  const response = await fetch(`${server.sawt.baseUrl}/v1/tts/audio/speech`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": server.key },
    body: JSON.stringify({ input: TEXT, voice: "Yara", response_format: "pcm", sample_rate: rate, encoding }),
  });
  expect(response.status).toBe(200);
  return new Uint8Array(await response.arrayBuffer());
}

/** The synth scenario speaking TEXT as text/plain; umc records linear PCM at `rate`. */
function synthScenario(rate: number): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<umcscenario name="synth" class="Synthesizer" profile="uni2">
  <resource-discovery enable="0"/>
  <speak enable="1" content-type="text/plain" content-location="speak-ar.txt"/>
  <termination enable="1"><capabilities><codec name="LPCM" rates="${rate}"/></capabilities></termination>
</umcscenario>`;
}

/** Finds `needle` in `hay` allowing leading samples umc may add or drop; returns the offset. */
function alignedOffset(hay: Int16Array, needle: Int16Array, tolerance: number): number {
  const first = needle.findIndex((s) => Math.abs(s) > 200);
  for (let offset = -first; offset < hay.length; offset++) {
    let ok = true;
    for (let i = Math.max(0, -offset); i < needle.length && i + offset < hay.length && ok; i++) {
      const h = hay[i + offset] ?? 0;
      if (Math.abs(h - needle[i]!) > tolerance) ok = false;
    }
    if (ok) return offset;
  }
  return Number.NaN;
}

describe("umc synthesizer scenario against Sawt", () => {
  for (const [codec, rate] of [
    ["L16", 8000],
    ["L16", 16000],
    ["PCMU", 8000],
  ] as const) {
    test(`does complete a SPEAK with 000 normal and record the REST pcm samples (${codec} ${rate} Hz)`, async () => {
      const codecs = codec === "PCMU" ? "PCMU telephone-event/101/8000" : `L16/96/${rate} telephone-event/101/${rate}`;
      const root = umcRoot(prefix, server.sipPort, codecs);
      try {
        root.data("speak-ar.txt", TEXT);
        root.scenario("synthesizer.xml", synthScenario(rate));
        const log = await root.run(["run synth"], { waitMs: 4000 });
        if (process.env.UMC_DEBUG || !log.includes("SPEAK-COMPLETE"))
          console.error(log.slice(log.indexOf("Create MRCP Handle")));
        expect(log).toContain("SPEAK-COMPLETE");
        expect(log).toMatch(/Completion-Cause: 000 normal/);
        const recorded = root.outputs().find((f) => f.name.startsWith("synth-"));
        expect(recorded).toBeDefined();
        const heard = bytesToInt16(recorded!.bytes);
        const linear = bytesToInt16(await restPcm(rate, "pcm_s16le"));
        // PCMU: REST's linear samples through G.711 quantisation are what umc decoded, exactly.
        const rest = codec === "PCMU" ? decodeG711(encodeG711(linear, "pcm_mulaw"), "pcm_mulaw") : linear;
        const offset = alignedOffset(heard, rest, 0);
        if (process.env.UMC_DEBUG) {
          const nz = (a: Int16Array) => a.findIndex((v) => Math.abs(v) > 200);
          console.error(
            recorded!.name,
            heard.length,
            rest.length,
            nz(heard),
            nz(rest),
            [...heard.slice(nz(heard), nz(heard) + 8)],
            [...rest.slice(nz(rest), nz(rest) + 8)],
          );
        }
        expect(offset).not.toBeNaN();
        // Every sample arrived: nothing cut at the end (one packet of slack for umc's jitter buffer).
        expect(heard.length - offset).toBeGreaterThanOrEqual(rest.length - rate / 50);
      } finally {
        root.remove();
      }
      // BYE released the session and its RTP port.
      const deadline = Date.now() + 3000;
      while (server.sawt.server.mrcp!.sessions > 0 && Date.now() < deadline) await Bun.sleep(50);
      expect(server.sawt.server.mrcp!.sessions).toBe(0);
      expect(rtpPortsInUse()).toBe(0);
      const metrics = await (await fetch(`${server.sawt.baseUrl}/metrics`)).text();
      expect(metrics).toMatch(/sawt_mrcp_sessions 0/);
    }, 90_000);
  }
});
