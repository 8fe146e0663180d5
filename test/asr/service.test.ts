/**
 * The ASR service end to end below the transports: real ffmpeg decoding of every allowed upload
 * type, the contract errors of unusable files, dialect identification and routing, and streaming
 * with interim and final results — on the constructed tone recogniser, Whisper pair and dialect
 * model, with real onnxruntime sessions.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type AsrEngineResult, noRecognizerReason } from "../../src/asr/loader.ts";
import type { LiveEvent } from "../../src/asr/types.ts";
import { UPLOAD_EXTENSIONS } from "../../src/asr/types.ts";
import { ConfigError, loadConfig } from "../../src/config/config.ts";
import { AppError } from "../../src/errors/taxonomy.ts";
import { ffmpegSync } from "../support/audio.ts";
import { GraphBuilder } from "../support/onnx/builder.ts";
import { letterToneAudio, writeToneCtcPack } from "../support/models/ctc.ts";
import { writeDialectPack } from "../support/models/dialect.ts";
import { writeWhisperPack } from "../support/models/whisper.ts";
import {
  buildEngine,
  concat,
  encodeFile,
  ENCODINGS,
  modelsDir,
  liveCall,
  readyEngine,
  silence,
  sine,
} from "./support.ts";

const TEXT = "مرحبا بكم في خدمة العملاء";

type ReadyEngine = Extract<AsrEngineResult, { ok: true }>;
let models: ReturnType<typeof modelsDir>;
let engine: ReadyEngine;

beforeAll(async () => {
  models = modelsDir();
  await writeToneCtcPack(join(models.dir, "tone-ctc"));
  engine = await readyEngine(models.dir);
});

afterAll(async () => {
  await engine?.release();
  models?.remove();
});

/** The tone voice's audio for `text` as TTS makes it (22.05 kHz), with room around it. */
function spoken(text: string): Float32Array {
  return concat(silence(0.3, 22050), letterToneAudio(text, 22050), silence(0.4, 22050));
}

describe("ASR service: uploads", () => {
  test.each([...UPLOAD_EXTENSIONS])(
    "does transcribe the recording to the same text when it is uploaded as .%s",
    async (extension) => {
      const path = encodeFile(spoken(TEXT), 22050, join(models.dir, `call.${extension}`), ENCODINGS[extension]!);
      const transcript = await engine.service.transcribeFile(path);
      expect(transcript.text).toBe(TEXT);
      expect(transcript.language).toBe("ar");
      expect(transcript.dialect).toBeNull();
      expect(transcript.duration).toBeCloseTo(spoken(TEXT).length / 22050, 1);
      expect(transcript.segments.length).toBe(1);
      expect(transcript.segments[0]!.words!.map((w) => w.word).join(" ")).toBe(TEXT);
    },
  );

  test("does give verbose segments with word times inside their segment", async () => {
    const audio = concat(spoken("سلام عليكم"), silence(1, 22050), spoken("ورحمة الله"));
    const path = encodeFile(audio, 22050, join(models.dir, "two.flac"), ENCODINGS.flac!);
    const transcript = await engine.service.transcribeFile(path);
    expect(transcript.text).toBe("سلام عليكم ورحمة الله");
    expect(transcript.segments.map((s) => s.text)).toEqual(["سلام عليكم", "ورحمة الله"]);
    for (const segment of transcript.segments) {
      for (const word of segment.words!) {
        expect(word.start).toBeGreaterThanOrEqual(segment.start);
        expect(word.end).toBeLessThanOrEqual(segment.end);
        expect(word.end).toBeGreaterThan(word.start);
      }
    }
  });

  const bad: [string, string, (path: string) => void][] = [
    ["an empty file", "empty.wav", (path) => writeFileSync(path, "")],
    [
      "random bytes with an allowed extension",
      "noise.mp3",
      (path) => writeFileSync(path, Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 256))),
    ],
    [
      "an mp3 truncated inside its first frame",
      "truncated.mp3",
      (path) => {
        encodeFile(spoken(TEXT), 22050, path, ENCODINGS.mp3!);
        writeFileSync(path, readFileSync(path).subarray(0, 200));
      },
    ],
    [
      "a video-only mp4",
      "video.mp4",
      (path) =>
        ffmpegSync([
          "-f",
          "lavfi",
          "-i",
          "testsrc=duration=1:size=64x64:rate=5",
          "-c:v",
          "mpeg4",
          "-an",
          "-f",
          "mp4",
          path,
        ]),
    ],
    [
      "a concat playlist named like audio",
      "playlist.ogg",
      (path) => {
        encodeFile(spoken(TEXT), 22050, join(models.dir, "target.mp3"), ENCODINGS.mp3!);
        writeFileSync(path, `ffconcat version 1.0\nfile ${join(models.dir, "target.mp3")}\n`);
      },
    ],
  ];

  test.each(bad)("does refuse %s with the contract error and keep serving", async (_what, name, make) => {
    const dir = join(models.dir, "bad");
    mkdirSync(dir, { recursive: true });
    const path = join(dir, name);
    make(path);
    const before = readdirSync(dir).sort();
    const error = await engine.service.transcribeFile(path).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).status).toBe(400);
    expect((error as AppError).detail).toMatch(
      /^Couldn't transcribe the file: (audio is empty|unsupported or corrupt audio|no audio stream)$/,
    );
    // Decoding leaves nothing behind, and the service still transcribes.
    expect(readdirSync(dir).sort()).toEqual(before);
    const good = encodeFile(spoken("سلام"), 22050, join(models.dir, "after.wav"), ENCODINGS.wav!);
    expect((await engine.service.transcribeFile(good)).text).toBe("سلام");
  });

  test("does give an empty transcript for audio without speech", async () => {
    const transcript = await engine.service.transcribeSamples(silence(2));
    // Written forms are on by default, as on every door: the spoken text is reported beside it.
    expect(transcript).toEqual({ text: "", textSpoken: "", language: "ar", dialect: null, duration: 2, segments: [] });
  });
});

describe("ASR service: streaming", () => {
  async function* chunks(audio: Float32Array, size = 1600): AsyncIterable<Float32Array> {
    for (let at = 0; at < audio.length; at += size) yield audio.slice(at, at + size);
  }

  test("does send interim results while speech continues and finals equal to the file's segments", async () => {
    const audio = concat(
      silence(0.5),
      letterToneAudio("سلام عليكم ورحمة"),
      silence(1),
      letterToneAudio("الله"),
      silence(0.5),
    );
    // The live core with gRPC's endpointing: partials and finals only (the door drops the rest).
    const results = (await liveCall(engine.service, chunks(audio))).filter(
      (e): e is Extract<LiveEvent, { type: "partial" | "final" }> => e.type === "partial" || e.type === "final",
    );
    const unary = await engine.service.transcribeSamples(audio);
    const finals = results.filter((r) => r.type === "final");
    expect(finals.map((r) => [r.text, r.start, r.end])).toEqual(unary.segments.map((s) => [s.text, s.start, s.end]));
    expect(finals.map((r) => r.text).join(" ")).toBe(unary.text);
    expect(unary.text).toBe("سلام عليكم ورحمة الله");
    const firstFinal = results.indexOf(finals[0]!);
    const interims = results.slice(0, firstFinal);
    expect(interims.length).toBeGreaterThan(0);
    for (const interim of interims) {
      expect(interim.type).toBe("partial");
      expect(interim.start).toBe(finals[0]!.start);
      expect(finals[0]!.text.startsWith(interim.text.slice(0, -1))).toBe(true);
    }
  });

  test("does give the same finals whatever the chunk size", async () => {
    const audio = concat(letterToneAudio("سلام"), silence(0.6), letterToneAudio("عليكم"));
    const finals = async (size: number) => {
      const out: string[] = [];
      for (const r of await liveCall(engine.service, chunks(audio, size)))
        if (r.type === "final") out.push(`${r.text}@${r.start}-${r.end}`);
      return out;
    };
    const reference = await finals(16000);
    expect(reference.length).toBe(2);
    expect(await finals(333)).toEqual(reference);
    expect(await finals(512)).toEqual(reference);
  });
});

describe("ASR service: dialects", () => {
  test("does fill dialect and route to the dialect's pack when a dialect-id pack is installed", async () => {
    const dir = modelsDir();
    try {
      await writeToneCtcPack(join(dir.dir, "tone-ctc"));
      await writeWhisperPack(join(dir.dir, "whisper-egy"), { rows: ["ازيك يا باشا"], bands: [[0, 8000]] });
      await writeDialectPack(join(dir.dir, "dialect-id"), {
        labels: ["ar-najdi", "egyptian"],
        bands: [
          [0, 1000],
          [2000, 4000],
        ],
      });
      const routed = await readyEngine(dir.dir, {
        SAWT_ASR_PACK: "tone-ctc",
        SAWT_ASR_DIALECT_PACKS: "ar-egyptian=whisper-egy",
      });
      try {
        expect(routed.details.dialect_packs).toEqual({ "ar-egyptian": "whisper-egy" });
        const najdi = await routed.service.transcribeSamples(concat(silence(0.3), letterToneAudio(TEXT), silence(0.3)));
        expect([najdi.dialect, najdi.text]).toEqual(["ar-najdi", TEXT]);
        const egyptian = await routed.service.transcribeSamples(concat(silence(0.3), sine(3000, 1.5), silence(0.3)));
        expect([egyptian.dialect, egyptian.text]).toEqual(["ar-egyptian", "ازيك يا باشا"]);
        const streamed = await liveCall(routed.service, [concat(silence(0.3), sine(3000, 1.5), silence(0.3))]);
        expect(streamed.flatMap((r) => (r.type === "final" ? [[r.dialect, r.text]] : []))).toEqual([
          ["ar-egyptian", "ازيك يا باشا"],
        ]);
      } finally {
        await routed.release();
      }
    } finally {
      dir.remove();
    }
  });

  test("does accept the mean-pooled feature layout of the dialect-id contract", async () => {
    const dir = modelsDir();
    try {
      await writeToneCtcPack(join(dir.dir, "tone-ctc"));
      await writeDialectPack(join(dir.dir, "dialect-id"), {
        labels: ["levantine", "ar-egyptian"],
        bands: [
          [0, 1000],
          [2000, 4000],
        ],
        pooled: true,
      });
      const built = await readyEngine(dir.dir);
      try {
        expect((await built.service.transcribeSamples(concat(sine(500, 1), silence(0.3)))).dialect).toBe(
          "ar-levantine",
        );
      } finally {
        await built.release();
      }
    } finally {
      dir.remove();
    }
  });
});

describe("ASR engine start-up", () => {
  test("does report the engine disabled when no recogniser pack is installed", async () => {
    const dir = modelsDir();
    try {
      const built = await buildEngine(dir.dir);
      expect(built.ok).toBe(false);
      expect(built.ok ? "" : built.reason).toBe(noRecognizerReason(false));
      expect(built.ok ? false : built.disabled).toBe(true);
      expect(built.details.enabled).toBe(false);
    } finally {
      dir.remove();
    }
  });

  test("does refuse an asr.pack that is not installed", async () => {
    const built = await buildEngine(models.dir, { SAWT_ASR_PACK: "nope" });
    expect(built.ok ? "" : built.reason).toBe('asr.pack "nope" is not an installed recogniser pack');
  });

  test("does serve with the good packs and list the broken ones in its details", async () => {
    const dir = modelsDir();
    try {
      await writeToneCtcPack(join(dir.dir, "tone-ctc"));
      await writeWhisperPack(join(dir.dir, "whisper-broken"), { rows: ["نعم"], bands: [[0, 8000]] });
      await Bun.file(join(dir.dir, "whisper-broken", "constructed-tokens.txt")).delete();
      const built = await readyEngine(dir.dir);
      try {
        expect(built.details.recognizer).toBe("tone-ctc");
        expect(built.details.broken_packs).toEqual([
          { pack: "whisper-broken", family: "whisper", reason: "missing constructed-tokens.txt" },
        ]);
        expect((await built.service.transcribeSamples(letterToneAudio("سلام"))).text).toBe("سلام");
      } finally {
        await built.release();
      }
    } finally {
      dir.remove();
    }
  });

  test("does report a pack that loads but cannot run and serve with the others", async () => {
    const dir = modelsDir();
    try {
      await writeToneCtcPack(join(dir.dir, "tone-ctc"));
      // A CTC graph that declares its vocabulary loosely and returns 3 classes for a 4-token vocabulary.
      const g = new GraphBuilder("wrong_vocab");
      const x = g.input("audio_signal", "float32", [1, 80, "T"]);
      g.input("length", "int64", [1]);
      const frames = g.op("Transpose", [g.op("Slice", [x, g.int64([0]), g.int64([3]), g.int64([1])])], {
        perm: [0, 2, 1],
      });
      g.output(frames, "logprobs", "float32", [1, "T", "V"]);
      await Bun.write(join(dir.dir, "wrong-vocab", "model.onnx"), g.toModel());
      await Bun.write(join(dir.dir, "wrong-vocab", "tokens.txt"), "▁ 0\nا 1\nب 2\n<blk> 3\n");
      const built = await readyEngine(dir.dir);
      try {
        expect(built.details.broken_packs).toEqual([
          {
            pack: "wrong-vocab",
            family: "nemo-ctc",
            reason: expect.stringContaining("cannot run the model: logprobs has shape [1,"),
          },
        ]);
        expect(built.details.recognizer).toBe("tone-ctc");
      } finally {
        await built.release();
      }
    } finally {
      dir.remove();
    }
  });

  test("does reject a malformed asr.dialect_packs entry at config load", () => {
    expect(() => loadConfig({ env: { SAWT_ASR_DIALECT_PACKS: "egyptian" } })).toThrow(ConfigError);
    expect(
      loadConfig({ env: { SAWT_ASR_DIALECT_PACKS: "ar-egyptian=whisper-egy\nar-levantine=ctc-lev" } }).asr
        .dialect_packs,
    ).toEqual(["ar-egyptian=whisper-egy", "ar-levantine=ctc-lev"]);
  });
});
