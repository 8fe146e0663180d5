import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { renderSrt, renderTranscript, renderVtt, subtitleTime } from "./formats.ts";
import {
  DiarizedTranscriptionJsonSchema,
  TranscriptionJsonSchema,
  VerboseTranscriptionJsonSchema,
} from "./response-schema.ts";
import type { Transcript } from "../core/asr.ts";

const TRANSCRIPT: Transcript = {
  text: "السلام عليكم كيف أقدر أساعدك",
  language: "ar",
  dialect: "ar-najdi",
  duration: 4.25,
  segments: [
    { id: 0, start: 0, end: 1.5004, text: " السلام عليكم " },
    { id: 1, start: 1.5, end: 4.2496, text: "كيف أقدر\n\n أساعدك", words: [{ word: "كيف", start: 1.5, end: 2 }] },
  ],
};

describe("subtitle times", () => {
  test("does format hours, minutes, seconds and rounded milliseconds", () => {
    expect(subtitleTime(0, ",")).toBe("00:00:00,000");
    expect(subtitleTime(3661.0006, ",")).toBe("01:01:01,001");
    expect(subtitleTime(59.9996, ".")).toBe("00:01:00.000");
    expect(subtitleTime(360000, ".")).toBe("100:00:00.000");
    expect(subtitleTime(-1, ".")).toBe("00:00:00.000");
  });
});

describe("srt and vtt", () => {
  test("does number SRT cues and keep each cue free of blank lines", () => {
    expect(renderSrt(TRANSCRIPT)).toBe(
      "1\n00:00:00,000 --> 00:00:01,500\nالسلام عليكم\n\n2\n00:00:01,500 --> 00:00:04,250\nكيف أقدر\nأساعدك\n",
    );
  });

  test("does write a WEBVTT header and escape markup characters", () => {
    const withMarkup: Transcript = { ...TRANSCRIPT, segments: [{ id: 0, start: 0, end: 1, text: "a < b & c > d" }] };
    expect(renderVtt(withMarkup)).toBe("WEBVTT\n\n00:00:00.000 --> 00:00:01.000\na &lt; b &amp; c &gt; d\n");
  });

  test("does make one cue over the whole audio when there are no segments", () => {
    const flat: Transcript = { ...TRANSCRIPT, segments: [] };
    expect(renderSrt(flat)).toBe(`1\n00:00:00,000 --> 00:00:04,250\n${TRANSCRIPT.text}\n`);
    expect(renderVtt({ ...flat, text: "" })).toBe("WEBVTT\n");
  });
});

describe("renderTranscript", () => {
  test("does render json with exactly text, language, dialect and duration", () => {
    const out = renderTranscript(TRANSCRIPT, "json");
    expect(out.contentType).toBe("application/json");
    expect(JSON.parse(out.body)).toEqual({
      text: TRANSCRIPT.text,
      language: "ar",
      dialect: "ar-najdi",
      duration: 4.25,
    });
  });

  test("does add segments with words to verbose_json", () => {
    const body = JSON.parse(renderTranscript(TRANSCRIPT, "verbose_json").body);
    expect(body.segments).toHaveLength(2);
    expect(body.segments[1].words).toEqual([{ word: "كيف", start: 1.5, end: 2 }]);
    expect(body.segments[0].words).toBeUndefined();
    expect(body.dialect).toBe("ar-najdi");
  });

  test("does answer text, srt and vtt with their content types", () => {
    expect(renderTranscript(TRANSCRIPT, "text")).toEqual({
      body: `${TRANSCRIPT.text}\n`,
      contentType: "text/plain; charset=utf-8",
    });
    expect(renderTranscript(TRANSCRIPT, "srt").contentType).toStartWith("application/x-subrip");
    expect(renderTranscript(TRANSCRIPT, "vtt").contentType).toStartWith("text/vtt");
  });
});

describe("json bodies and their documented schemas", () => {
  const FULL: Transcript = {
    ...TRANSCRIPT,
    model: "whisper-small",
    dialectConfidence: 0.91,
    words: [{ word: "كيف", start: 1.5, end: 2 }],
    segments: [
      {
        ...TRANSCRIPT.segments[1]!,
        dialect: "ar-najdi",
        temperature: 0.2,
        avgLogprob: -0.3,
        compressionRatio: 1.4,
      },
    ],
  };

  test("does render every field the API docs show and none they do not", () => {
    const json = JSON.parse(renderTranscript(FULL, "json").body);
    expect(v.parse(TranscriptionJsonSchema, json)).toEqual(json);
    for (const granularities of [["segment"], ["word"], ["segment", "word"]]) {
      const body = renderTranscript(FULL, "verbose_json", { granularities }).body;
      const verbose = JSON.parse(body);
      // Strict schemas: a field the renderer adds without the schema (so without the docs) fails here.
      expect(v.parse(VerboseTranscriptionJsonSchema, verbose)).toEqual(verbose);
    }
    expect(JSON.parse(renderTranscript(FULL, "verbose_json").body).segments[0]).toEqual(
      expect.objectContaining({ avg_logprob: -0.3, compression_ratio: 1.4, dialect: "ar-najdi", seek: 150 }),
    );
  });
});

describe("speakers of split channels", () => {
  const SPLIT: Transcript = {
    ...TRANSCRIPT,
    segments: [
      { id: 0, start: 0, end: 1.5, text: "السلام عليكم", channel: 0, speaker: "agent" },
      { id: 1, start: 1.6, end: 3, text: "هلا <والله>", channel: 1, speaker: "customer" },
    ],
  };

  test("does start SRT cues with the speaker and put VTT cues in voice spans", () => {
    expect(renderSrt(SPLIT)).toContain("00:00:00,000 --> 00:00:01,500\nagent: السلام عليكم\n");
    expect(renderVtt(SPLIT)).toContain("00:00:01.600 --> 00:00:03.000\n<v customer>هلا &lt;والله&gt;\n");
  });

  test("does answer diarized_json in OpenAI's shape, labelling a mono transcript with the first speaker", () => {
    const split = JSON.parse(renderTranscript(SPLIT, "diarized_json").body);
    expect(v.parse(DiarizedTranscriptionJsonSchema, split)).toEqual(split);
    expect(split.segments.map((s: { speaker: string }) => s.speaker)).toEqual(["agent", "customer"]);
    const mono = JSON.parse(renderTranscript(TRANSCRIPT, "diarized_json", { speakers: ["caller"] }).body);
    expect(mono.segments.map((s: { speaker: string; id: string }) => [s.id, s.speaker])).toEqual([
      ["seg_0", "caller"],
      ["seg_1", "caller"],
    ]);
    expect(JSON.parse(renderTranscript(TRANSCRIPT, "diarized_json").body).segments[0].speaker).toBe("ch0");
  });

  test("does leave verbose_json segments of a mono transcript without channel or speaker", () => {
    const verbose = JSON.parse(renderTranscript(TRANSCRIPT, "verbose_json").body);
    expect(verbose.segments[0]).not.toHaveProperty("speaker");
    expect(verbose.segments[0]).not.toHaveProperty("channel");
    const split = JSON.parse(renderTranscript(SPLIT, "verbose_json").body);
    expect(v.parse(VerboseTranscriptionJsonSchema, split)).toEqual(split);
    expect(split.segments[1]).toMatchObject({ channel: 1, speaker: "customer" });
  });
});
