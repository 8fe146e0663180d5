/**
 * What the console's browser tests share: the real server with constructed models (the tone
 * CTC recogniser, a tone Yara voice taking speaker embeddings, a speaker encoder for cloned
 * voices), Debian's Chromium driven by playwright-core with a fake microphone playing a test WAV,
 * and a watch over every request the page makes (no other origin, never the key in a URL).
 */
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { concat, encodeFile, ENCODINGS, silence } from "../asr/support.ts";
import { letterToneAudio, writeToneCtcPack } from "../support/models/ctc.ts";
import { SPEAKER_EMBEDDING_DIM, writeSpeakerEncoderPack } from "../support/models/speaker-encoder.ts";
import { writePiperPack } from "../support/models/tone-voice.ts";
import { startSawt, tempDir, testTool, until, type SawtProcess } from "../support/sawt.ts";
import { ARABIC_TEXT_SYMBOLS, idMap } from "../tts/support.ts";

// The page's globals, for the callbacks that run in Chromium (the tests' tsconfig has no DOM library).
declare const document: any, window: any, sessionStorage: any;

/** The sentence the microphone and the upload carry (letters the tone recogniser knows). */
export const SPOKEN = "سلام عليكم";

/** A running console setup. */
export interface ConsoleSetup {
  readonly sawt: SawtProcess;
  readonly browser: Browser;
  readonly context: BrowserContext;
  readonly page: Page;
  readonly adminKey: string;
  readonly userKey: string;
  /** The WAV the fake microphone plays and the upload sends. */
  readonly speechWav: string;
  /** Every URL the page requested. */
  readonly requested: string[];
  readonly dir: string;
  close(): Promise<void>;
}

/** Writes the models, starts Sawt and Chromium, and opens a page. */
export async function setUpConsole(): Promise<ConsoleSetup> {
  const dir = tempDir("sawt-console-");
  const models = join(dir.path, "models");
  await writeToneCtcPack(join(models, "tone-ctc"));
  await writeSpeakerEncoderPack(models);
  await writePiperPack(join(models, "yara"), {
    name: "ar_text",
    sampleRate: 16000,
    phonemeIdMap: idMap(ARABIC_TEXT_SYMBOLS),
    phonemeType: "text",
    embeddingDim: SPEAKER_EMBEDDING_DIM,
  });
  // Chromium loops the capture file: silence on both sides makes one utterance per loop.
  const rate = 48000;
  const speechWav = encodeFile(
    concat(silence(0.8, rate), letterToneAudio(SPOKEN, rate), silence(2.5, rate)),
    rate,
    join(dir.path, "speech.wav"),
    ENCODINGS.wav!,
  );
  const sawt = await startSawt({
    env: { SAWT_MODELS_DIR: models, SAWT_STREAMING_PARTIAL_INTERVAL_MS: "200", SAWT_LOG_LEVEL: "debug" },
  });
  await until(async () => (await fetch(`${sawt.baseUrl}/ready`)).status === 200, "Sawt to be ready", {
    timeoutMs: 60_000,
    everyMs: 100,
  });
  const adminKey = (await sawt.createKey({ name: "operator", admin: true, rpm: 100_000 })).key;
  const userKey = (await sawt.createKey({ name: "designer", rpm: 100_000 })).key;
  const browser = await chromium.launch({
    executablePath: testTool(["chromium", "chromium-browser"], "chromium"),
    args: [
      "--no-sandbox",
      "--use-fake-ui-for-media-stream",
      "--use-fake-device-for-media-stream",
      `--use-file-for-fake-audio-capture=${speechWav}`,
      "--autoplay-policy=no-user-gesture-required",
      // Air gap: no name resolves except localhost, so any outside fetch would fail and show.
      "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
    ],
  });
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.grantPermissions(["microphone"], { origin: sawt.baseUrl });
  const requested: string[] = [];
  context.on("request", (request) => requested.push(request.url()));
  // Every CSP violation the page reports (none expected: the console needs no exception).
  await context.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { __csp: string[] }).__csp = seen;
    document.addEventListener("securitypolicyviolation", (e: any) =>
      seen.push(`${e.violatedDirective} ${e.blockedURI}`),
    );
  });
  const page = await context.newPage();
  return {
    sawt,
    browser,
    context,
    page,
    adminKey,
    userKey,
    speechWav,
    requested,
    dir: dir.path,
    async close() {
      await browser.close().catch(() => undefined);
      await sawt.stop("SIGKILL");
      dir.remove();
    },
  };
}

/** Opens the console in `lang` and signs in with `key` through the form. */
export async function signInAs(page: Page, baseUrl: string, key: string, lang: "ar" | "en" = "en"): Promise<void> {
  await page.goto(`${baseUrl}/console?lang=${lang}`);
  await page.evaluate(() => sessionStorage.clear());
  await page.reload();
  const field = page.getByLabel(lang === "en" ? "API key" : /API key/);
  await field.fill(key);
  await page.locator("#signin button[type=submit]").click();
  await page.locator("#nav-studio").waitFor();
}

/** True when the page is wider than its viewport (something overflows sideways). */
export function overflows(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth + 1);
}

/** Duration of a PCM WAV in seconds, from its header. */
export function wavSeconds(bytes: Uint8Array): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const channels = view.getUint16(22, true);
  const rate = view.getUint32(24, true);
  const bits = view.getUint16(34, true);
  let at = 12;
  while (at + 8 <= bytes.length) {
    const id = String.fromCharCode(...bytes.subarray(at, at + 4));
    const size = view.getUint32(at + 4, true);
    if (id === "data") return Math.min(size, bytes.length - at - 8) / (rate * channels * (bits / 8));
    at += 8 + size + (size % 2);
  }
  throw new Error("no data chunk");
}
