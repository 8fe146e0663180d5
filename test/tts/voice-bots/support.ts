/**
 * What the voice-bot door tests share: a server with tone voices (Yara at 24 kHz, the rate the
 * Deepgram plugin asks by default; Sherine at 22,050 Hz, ElevenLabs' default pcm_22050 — both
 * with the alignment output, so timings come from the model), REST's pcm to compare with, and the
 * frameworks' audio frames joined back into bytes.
 */
import { join } from "node:path";
import { writePiperPack } from "../../support/models/tone-voice.ts";
import { startSawt, tempDir, waitForStatus, type SawtProcess } from "../../support/sawt.ts";
import { ARABIC_TEXT_SYMBOLS, idMap } from "../support.ts";

/** Three Arabic sentences, as an agent would say them. */
export const TEXT = "مرحبا بكم في خدمة العملاء. كيف يمكنني مساعدتك اليوم؟ شكرا لك على الانتظار.";

/** The text as an LLM writes it: a word at a time, each with its leading space. */
export const WORDS = TEXT.split(/(?= )/u);

/** A running server with the voice-bot voices and a key. */
export interface VoiceBotServer {
  readonly sawt: SawtProcess;
  readonly key: string;
  stop(): Promise<void>;
}

/**
 * Starts the server. `costRepeats` makes each sentence cost real CPU time (barge-in needs a
 * sentence still being rendered when the clear arrives).
 */
export async function startVoiceBotServer(
  options: { env?: Record<string, string>; costRepeats?: number; rpm?: number } = {},
): Promise<VoiceBotServer> {
  const dir = tempDir("sawt-voice-bots-");
  const common = { phonemeIdMap: idMap(ARABIC_TEXT_SYMBOLS), phonemeType: "text" as const, durations: true };
  await writePiperPack(join(dir.path, "models", "yara"), {
    name: "ar_yara",
    sampleRate: 24000,
    costRepeats: options.costRepeats,
    ...common,
  });
  await writePiperPack(join(dir.path, "models", "sherine"), { name: "ar_sherine", sampleRate: 22050, ...common });
  const sawt = await startSawt({ env: { SAWT_MODELS_DIR: join(dir.path, "models"), ...options.env } });
  await waitForStatus(`${sawt.baseUrl}/v1/tts/health`);
  const { key } = await sawt.createKey({ name: "voice-bots", rpm: options.rpm ?? 1000 });
  return {
    sawt,
    key,
    async stop() {
      await sawt.stop();
      dir.remove();
    },
  };
}

/** Sawt's own REST pcm for `input` (the reference every door's audio must equal). */
export async function restPcm(
  server: VoiceBotServer,
  input: string,
  fields: Record<string, unknown> = {},
): Promise<Buffer> {
  const response = await fetch(`${server.sawt.baseUrl}/v1/tts/audio/speech`, {
    method: "POST",
    headers: { "x-api-key": server.key, "content-type": "application/json" },
    body: JSON.stringify({ input, response_format: "pcm", ...fields }),
  });
  if (!response.ok) throw new Error(`REST speech failed: ${response.status} ${await response.text()}`);
  return Buffer.from(await response.arrayBuffer());
}

/** The bytes of LiveKit audio frames (s16le mono), in order. */
export function frameBytes(frames: readonly { data: Int16Array }[]): Buffer {
  return Buffer.concat(frames.map((f) => Buffer.from(f.data.buffer, f.data.byteOffset, f.data.byteLength)));
}
