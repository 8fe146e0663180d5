import { describe, expect, test } from "bun:test";
import { applyBetaUpdate, applyGaUpdate, DEFAULT_SETTINGS, ParamError } from "./session-config.ts";

function problem(apply: () => unknown): [string, string] | undefined {
  try {
    apply();
    return undefined;
  } catch (error) {
    if (!(error instanceof ParamError)) throw error;
    return [error.param, error.fields?.[0]?.message ?? ""];
  }
}

describe("realtime session settings", () => {
  const invalid: Array<[string, unknown, string, string]> = [
    ["a session that is a list", [], "session", "must be an object"],
    ["another session type", { type: "realtime" }, "session.type", "only transcription sessions are served here"],
    ["audio that is not an object", { audio: 5 }, "session.audio", "must be an object"],
    [
      "a format that is a list",
      { audio: { input: { format: [] } } },
      "session.audio.input.format",
      "must be an object",
    ],
    [
      "an unknown format",
      { audio: { input: { format: { type: "opus" } } } },
      "session.audio.input.format.type",
      "must be audio/pcm",
    ],
    [
      "a PCM rate out of range",
      { audio: { input: { format: { type: "audio/pcm", rate: 4000 } } } },
      "session.audio.input.format.rate",
      "must be a number between 8000 and 48000",
    ],
    [
      "a fractional PCM rate",
      { audio: { input: { format: { type: "audio/pcm", rate: 16000.5 } } } },
      "session.audio.input.format",
      "linear PCM needs a sample rate between",
    ],
    [
      "a turn detector Sawt does not know",
      { audio: { input: { turn_detection: { type: "magic_vad" } } } },
      "session.audio.input.turn_detection.type",
      "must be server_vad or semantic_vad",
    ],
    [
      "a list of languages holding one Sawt does not serve",
      { audio: { input: { transcription: { languages: ["ar", "fr"] } } } },
      "session.audio.input.transcription.languages.1",
      "Must be ar or en",
    ],
    [
      "a threshold above 1",
      { audio: { input: { turn_detection: { threshold: 2 } } } },
      "session.audio.input.turn_detection.threshold",
      "must be a number between 0 and 1",
    ],
    [
      "a language other than Arabic or English",
      { audio: { input: { transcription: { language: "fr" } } } },
      "session.audio.input.transcription.language",
      "Must be ar or en",
    ],
    [
      "a model that is not text",
      { audio: { input: { transcription: { model: 5 } } } },
      "session.audio.input.transcription.model",
      "must be a string",
    ],
  ];
  for (const [what, session, param, message] of invalid) {
    test(`does name the field and the reason when a GA update has ${what}`, () => {
      const found = problem(() => applyGaUpdate(session, DEFAULT_SETTINGS));
      expect(found?.[0]).toBe(param);
      expect(found?.[1]).toStartWith(message);
    });
  }

  test("does report the first problem in field order when an update has several", () => {
    const session = { audio: { input: { format: { type: "x" }, turn_detection: 5, transcription: 5 } } };
    expect(problem(() => applyGaUpdate(session, DEFAULT_SETTINGS))?.[0]).toBe("session.audio.input.format.type");
  });

  test("does refuse a beta format name that is only an object property", () => {
    expect(problem(() => applyBetaUpdate({ input_audio_format: "toString" }, DEFAULT_SETTINGS))).toEqual([
      "session.input_audio_format",
      "must be pcm16, g711_ulaw or g711_alaw",
    ]);
  });

  test("does merge an update field by field and read an empty language as Arabic", () => {
    const first = applyGaUpdate(
      { audio: { input: { format: { type: "audio/pcmu" }, turn_detection: { threshold: 0.3 } } } },
      DEFAULT_SETTINGS,
    );
    expect(first.format).toEqual({ encoding: "pcm_mulaw", sampleRate: 8000 });
    expect(first.turnDetection).toEqual({ threshold: 0.3, prefixPaddingMs: 300, silenceDurationMs: 500 });
    const second = applyBetaUpdate(
      { turn_detection: { silence_duration_ms: 800 }, input_audio_transcription: { language: " ", prompt: "p" } },
      first,
    );
    expect(second.format).toEqual(first.format);
    expect(second.turnDetection).toEqual({ threshold: 0.3, prefixPaddingMs: 300, silenceDurationMs: 800 });
    expect(second.transcription).toEqual({ model: "sawt", language: "ar", prompt: "p" });
    expect(applyBetaUpdate({ turn_detection: null }, second).turnDetection).toBeNull();
  });
});

describe("realtime channel settings (Sawt extension)", () => {
  test("does take channels and speakers at the session's top level, in both shapes", () => {
    const ga = applyGaUpdate({ type: "transcription", channels: 2, speakers: ["agent", "customer"] }, DEFAULT_SETTINGS);
    expect([ga.channels, ga.speakers]).toEqual([2, ["agent", "customer"]]);
    const beta = applyBetaUpdate({ input_audio_format: "g711_ulaw", channels: 2 }, DEFAULT_SETTINGS);
    expect([beta.channels, beta.speakers, beta.format.encoding]).toEqual([2, null, "pcm_mulaw"]);
  });

  test("does take channels inside the GA format object and keep them off the audio format", () => {
    const ga = applyGaUpdate(
      { audio: { input: { format: { type: "audio/pcm", rate: 16000, channels: 2 } } } },
      DEFAULT_SETTINGS,
    );
    expect(ga.channels).toBe(2);
    expect(ga.format).toEqual({ encoding: "pcm_s16le", sampleRate: 16000 });
    expect(applyGaUpdate({ audio: { input: { channels: 2 } } }, DEFAULT_SETTINGS).channels).toBe(2);
  });

  test("does keep channels and speakers across updates that do not name them, and drop speakers for null", () => {
    const first = applyGaUpdate({ channels: 2, speakers: ["agent"] }, DEFAULT_SETTINGS);
    const kept = applyGaUpdate({ audio: { input: { turn_detection: null } } }, first);
    expect([kept.channels, kept.speakers]).toEqual([2, ["agent"]]);
    expect(applyGaUpdate({ speakers: null }, kept).speakers).toBeNull();
  });

  test.each([
    [{ channels: 0 }, "session.channels"],
    [{ channels: 5 }, "session.channels"],
    [{ channels: 1.5 }, "session.channels"],
    [{ speakers: ["agent", "agent"] }, "session.speakers"],
    [{ speakers: ["<v>"] }, "session.speakers"],
    [{ speakers: "agent" }, "session.speakers"],
  ])("does refuse %j naming the field", (session, param) => {
    expect(problem(() => applyGaUpdate(session, DEFAULT_SETTINGS))?.[0]).toBe(param);
  });
});

describe("what OpenAI clients send for newer models (LiveKit's plugin)", () => {
  test("does read `languages` (one names the language, none or several do not) and language tags", () => {
    const one = applyGaUpdate({ audio: { input: { transcription: { languages: ["en-US"] } } } }, DEFAULT_SETTINGS);
    expect(one.transcription.language).toBe("en");
    const none = applyGaUpdate({ audio: { input: { transcription: { languages: [] } } } }, one);
    expect(none.transcription.language).toBe("en");
    const tag = applyBetaUpdate({ input_audio_transcription: { language: "ar-EG" } }, DEFAULT_SETTINGS);
    expect(tag.transcription.language).toBe("ar");
  });

  test("does favour OpenAI's `keywords` as phrases, beside Sawt's `hotwords`, and clear them with []", () => {
    const update = { audio: { input: { transcription: { keywords: ["رقم الطلب", "a,b"], hotwords: ["طلب:3"] } } } };
    const settings = applyGaUpdate(update, DEFAULT_SETTINGS);
    expect(settings.transcription.hotwords).toEqual([
      { phrase: "طلب", boost: 3 },
      { phrase: "رقم الطلب", boost: 1.5 },
      { phrase: "a b", boost: 1.5 },
    ]);
    const cleared = applyGaUpdate({ audio: { input: { transcription: { keywords: [] } } } }, settings);
    expect(cleared.transcription.hotwords).toBeUndefined();
  });

  test("does serve semantic_vad as server_vad, and ignore fields Sawt has no use for", () => {
    const session = {
      type: "transcription",
      include: ["item.input_audio_transcription.logprobs"],
      audio: {
        input: {
          noise_reduction: { type: "near_field" },
          turn_detection: { type: "semantic_vad", eagerness: "high", create_response: false },
          transcription: { model: "gpt-live-transcribe-2031", prompt: "p", languages: ["ar"] },
        },
      },
    };
    const settings = applyGaUpdate(session, DEFAULT_SETTINGS);
    expect(settings.turnDetection).toEqual(DEFAULT_SETTINGS.turnDetection);
    expect(settings.transcription).toEqual({ model: "gpt-live-transcribe-2031", language: "ar", prompt: "p" });
  });
});
