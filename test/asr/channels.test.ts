/**
 * Two-channel calls over REST against the real server (tone CTC recogniser, real ffmpeg): each
 * channel is transcribed apart and labelled by the request's speakers, merged in time order, in
 * verbose_json, diarized_json, SRT, VTT and `stream=true`; bad channel requests get the contract's
 * 400/422 shapes. The call: agent "سلام عليكم", customer "شكرا", agent "مرحبا" (channels-support.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { uploadForm } from "../rest/support.ts";
import { letterToneAudio, writeToneCtcPack } from "../support/models/ctc.ts";
import { startSawt, type SawtProcess } from "../support/sawt.ts";
import { encodeChannels, TURNS, twoChannelCall } from "./channels-support.ts";
import { ENCODINGS, encodeFile, modelsDir } from "./support.ts";

let models: ReturnType<typeof modelsDir>;
let sawt: SawtProcess;
let key: string;
let wav: Uint8Array;
let ogg: Uint8Array;

beforeAll(async () => {
  models = modelsDir();
  await writeToneCtcPack(join(models.dir, "tone-ctc"));
  sawt = await startSawt({ env: { SAWT_MODELS_DIR: models.dir } });
  key = (await sawt.createKey({ name: "channels", rpm: 10_000 })).key;
  const call = twoChannelCall(16000);
  wav = await Bun.file(encodeChannels(call, 16000, join(models.dir, "call.wav"), ENCODINGS.wav!)).bytes();
  ogg = await Bun.file(
    encodeChannels(twoChannelCall(48000), 48000, join(models.dir, "call.ogg"), ENCODINGS.ogg!),
  ).bytes();
});

afterAll(async () => {
  await sawt?.stop("SIGKILL");
  models?.remove();
});

function transcribe(name: string, data: Uint8Array, fields: Record<string, string>): Promise<Response> {
  return fetch(`${sawt.baseUrl}/v1/asr/audio/transcriptions`, {
    method: "POST",
    headers: { "x-api-key": key },
    body: uploadForm({ name, data }, fields),
  });
}

const SPEAKERS = ["agent", "customer"];
const expected = TURNS.map((turn) => ({ speaker: SPEAKERS[turn.channel]!, channel: turn.channel, text: turn.text }));

interface Segment {
  start: number;
  end: number;
  text: string;
  speaker?: string;
  channel?: number;
  words?: Array<{ word: string; speaker?: string; channel?: number }>;
}

describe("two-channel uploads", () => {
  test.each([
    ["call.wav", "WAV read in-process"],
    ["call.ogg", "Ogg Vorbis through ffmpeg"],
  ])("does label %s (%s) verbose_json segments by the given speakers, in time order", async (name) => {
    const response = await transcribe(name, name.endsWith("wav") ? wav : ogg, {
      response_format: "verbose_json",
      channels: "split",
      speakers: "agent,customer",
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { text: string; segments: Segment[]; channels: unknown[] };
    expect(body.segments.map(({ speaker, channel, text }) => ({ speaker, channel, text }))).toEqual(expected);
    const starts = body.segments.map((s) => s.start);
    expect(starts).toEqual([...starts].sort((a, b) => a - b));
    for (const segment of body.segments)
      for (const word of segment.words ?? [])
        expect(word).toMatchObject({ speaker: segment.speaker, channel: segment.channel });
    expect(body.text).toBe(TURNS.map((t) => t.text).join(" "));
    expect(body.channels).toMatchObject([
      { channel: 0, speaker: "agent", text: "سلام عليكم مرحبا" },
      { channel: 1, speaker: "customer", text: "شكرا" },
    ]);
  });

  test("does answer OpenAI's diarized_json shape with the speakers of the channels", async () => {
    const response = await transcribe("call.wav", wav, {
      response_format: "diarized_json",
      channels: "split",
      speakers: "agent,customer",
    });
    const body = (await response.json()) as Record<string, unknown> & { segments: Array<Record<string, unknown>> };
    expect(Object.keys(body).sort()).toEqual(["duration", "segments", "task", "text", "usage"]);
    expect(body.task).toBe("transcribe");
    expect(body.segments.map((s) => [s.type, s.id, s.speaker, s.text])).toEqual(
      expected.map((e, i) => ["transcript.text.segment", `seg_${i}`, e.speaker, e.text]),
    );
    for (const segment of body.segments) expect(segment.end as number).toBeGreaterThan(segment.start as number);
  });

  test("does read speakers given as a JSON array too", async () => {
    const response = await transcribe("call.wav", wav, {
      response_format: "diarized_json",
      channels: "split",
      speakers: '["agent","customer"]',
    });
    const body = (await response.json()) as { segments: Array<{ speaker: string }> };
    expect(body.segments.map((s) => s.speaker)).toEqual(["agent", "customer", "agent"]);
  });

  test("does label channels ch0 and ch1 when no speakers are named", async () => {
    const response = await transcribe("call.wav", wav, { response_format: "diarized_json", channels: "split" });
    const body = (await response.json()) as { segments: Array<{ speaker: string }> };
    expect(body.segments.map((s) => s.speaker)).toEqual(["ch0", "ch1", "ch0"]);
  });

  test("does put <v agent> voice spans in VTT and speaker names in SRT", async () => {
    const vtt = await (
      await transcribe("call.wav", wav, { response_format: "vtt", channels: "split", speakers: "agent,customer" })
    ).text();
    expect(vtt).toStartWith("WEBVTT\n\n");
    expect(vtt).toContain("<v agent>سلام عليكم\n");
    expect(vtt).toContain("<v customer>شكرا\n");
    expect(vtt.indexOf("<v customer>")).toBeLessThan(vtt.indexOf("<v agent>مرحبا"));
    const srt = await (
      await transcribe("call.wav", wav, { response_format: "srt", channels: "split", speakers: "agent,customer" })
    ).text();
    expect(srt).toContain("\nagent: سلام عليكم\n");
    expect(srt).toContain("\ncustomer: شكرا\n");
  });

  test("does keep today's mono mix when the request does not split (asr.split_channels off)", async () => {
    const response = await transcribe("call.wav", wav, { response_format: "verbose_json" });
    const body = (await response.json()) as { text: string; segments: Segment[]; channels?: unknown };
    expect(body.text).toBe(TURNS.map((t) => t.text).join(" "));
    expect(body.channels).toBeUndefined();
    for (const segment of body.segments) expect(segment.speaker).toBeUndefined();
  });

  test("does stream labelled deltas and diarized segment events with stream=true", async () => {
    const response = await transcribe("call.wav", wav, {
      stream: "true",
      response_format: "diarized_json",
      channels: "split",
      speakers: "agent,customer",
    });
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const events = (await response.text())
      .split("\n\n")
      .filter((block) => block.startsWith("data: "))
      .map((block) => JSON.parse(block.slice(6)) as Record<string, unknown>);
    const deltas = events.filter((e) => e.type === "transcript.text.delta");
    const bySpeaker = (speaker: string) =>
      deltas
        .filter((d) => d.speaker === speaker)
        .map((d) => d.delta)
        .join("");
    expect(bySpeaker("agent")).toBe("سلام عليكم مرحبا");
    expect(bySpeaker("customer")).toBe("شكرا");
    for (const delta of deltas) expect(delta.channel).toBe(delta.speaker === "agent" ? 0 : 1);
    const segments = events.filter((e) => e.type === "transcript.text.segment");
    expect(segments.map((s) => [s.speaker, s.text])).toEqual(expected.map((e) => [e.speaker, e.text]));
    expect(events.at(-1)).toMatchObject({ type: "transcript.text.done", text: TURNS.map((t) => t.text).join(" ") });
  });
});

describe("bad channel requests", () => {
  test.each([
    ["an empty label", "agent,,customer"],
    ["a label with a space", "the agent"],
    ["a label with markup", "<b>agent"],
    ["repeated labels", "agent,agent"],
    ["more labels than channels can be split", "a,b,c,d,e"],
    ["a 33-character label", "a".repeat(33)],
  ])("does refuse %s in speakers with 422", async (_name, speakers) => {
    const response = await transcribe("call.wav", wav, { channels: "split", speakers });
    expect(response.status).toBe(422);
    const body = (await response.json()) as { detail: Array<{ loc: string[] }> } | Record<string, unknown>;
    expect(JSON.stringify(body)).toContain("speakers");
  });

  test("does refuse an unknown channels mode with 422", async () => {
    const response = await transcribe("call.wav", wav, { channels: "stereo" });
    expect(response.status).toBe(422);
    expect(JSON.stringify(await response.json())).toContain("channels");
  });

  test("does refuse channels=split on a mono file with 400", async () => {
    const mono = encodeFile(letterToneAudio("سلام"), 16000, join(models.dir, "mono.wav"), ENCODINGS.wav!);
    const response = await transcribe("mono.wav", await Bun.file(mono).bytes(), { channels: "split" });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: "http_error",
      code: "HTTP_400",
      detail: "channels=split needs audio with 2 or more channels; this file has 1",
    });
  });

  test("does refuse channels=split on 8-channel audio with 400, and mix it without split", async () => {
    const tone = letterToneAudio("سلام");
    const eight = encodeChannels(Array(8).fill(tone), 16000, join(models.dir, "eight.flac"), ENCODINGS.flac!);
    const data = await Bun.file(eight).bytes();
    const refused = await transcribe("eight.flac", data, { channels: "split" });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { detail: string }).detail).toBe(
      "channels=split takes at most 4 channels; this file has 8 (send channels=mix for one mono transcript)",
    );
    const mixed = await transcribe("eight.flac", data, {});
    expect(mixed.status).toBe(200);
  });
});

describe("asr.split_channels = auto with asr.speakers", () => {
  let auto: SawtProcess;
  let autoKey: string;

  beforeAll(async () => {
    auto = await startSawt({
      env: { SAWT_MODELS_DIR: models.dir, SAWT_ASR_SPLIT_CHANNELS: "auto", SAWT_ASR_SPEAKERS: "agent\ncustomer" },
    });
    autoKey = (await auto.createKey({ name: "auto", rpm: 10_000 })).key;
  });

  afterAll(async () => {
    await auto?.stop("SIGKILL");
  });

  const post = (fields: Record<string, string>) =>
    fetch(`${auto.baseUrl}/v1/asr/audio/transcriptions`, {
      method: "POST",
      headers: { "x-api-key": autoKey },
      body: uploadForm({ name: "call.ogg", data: ogg }, fields),
    });

  test("does split a 2-channel upload without a channels field, labelled by the server's speakers", async () => {
    const body = (await (await post({ response_format: "diarized_json" })).json()) as {
      segments: Array<{ speaker: string; text: string }>;
    };
    expect(body.segments.map((s) => [s.speaker, s.text])).toEqual(expected.map((e) => [e.speaker, e.text]));
  });

  test("does mix when the request asks for channels=mix", async () => {
    const body = (await (await post({ response_format: "verbose_json", channels: "mix" })).json()) as {
      channels?: unknown;
      segments: Segment[];
    };
    expect(body.channels).toBeUndefined();
    expect(body.segments.every((s) => s.speaker === undefined)).toBe(true);
  });
});
