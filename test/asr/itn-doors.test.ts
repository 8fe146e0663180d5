/**
 * Written forms on transcripts through the real server (tone CTC recogniser): a table of spoken
 * forms read one per utterance comes back written by default on REST (segments, words, text) and
 * the realtime WebSocket, spoken with `itn=false`; verbose_json keeps the spoken words in
 * `text_spoken`, and each written word spans its spoken words' times exactly.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { writeToneCtcPack } from "../support/models/ctc.ts";
import { startSawt, type SawtProcess } from "../support/sawt.ts";
import { bearer, clients, unary, waitServing } from "../grpc/client.ts";
import { callAudio, pcm16 } from "./format-support.ts";
import { encodeFile, ENCODINGS, modelsDir } from "./support.ts";
import { realtimeSession } from "./ws-client.ts";

/** Spoken → written, one utterance each (the whole table is test/asr/format/tables/). */
const TABLE: readonly (readonly [string, string])[] = [
  ["السعر مية وخمسين ريال", "السعر 150 ريال"],
  ["دفعت تلات مية", "دفعت 300"],
  ["عمري خمسة وعشرين", "عمري 25"],
  ["الخصم عشرة بالمية", "الخصم 10%"],
  ["عندي الف وتسعمية", "عندي 1900"],
  ["الساعة تلاتة ونص", "3:30"],
  ["دفعت خمسة وتلاتين ريال وخمسين هللة", "دفعت 35.50 ريال"],
  ["التاريخ خمسة عشر مارس", "التاريخ 15 مارس"],
  ["رقم الطلب تسعة تمانية سبعة ستة", "رقم الطلب 9876"],
];
const SPOKEN = TABLE.map(([s]) => s);
const WRITTEN = TABLE.map(([, w]) => w);

interface Word {
  word: string;
  start: number;
  end: number;
}

let models: ReturnType<typeof modelsDir>;
let sawt: SawtProcess;
let key: string;
let wav: string;
let port: ReturnType<typeof clients>;

beforeAll(async () => {
  models = modelsDir();
  await writeToneCtcPack(join(models.dir, "tone-ctc"));
  sawt = await startSawt({ env: { SAWT_MODELS_DIR: models.dir, SAWT_STREAMING_MAX_BUFFER_S: "120" } });
  key = (await sawt.createKey({ name: "itn", rpm: 100_000 })).key;
  port = clients(sawt.ports.grpc_asr);
  await waitServing(port.health, "sawt.asr.v1.SpeechRecognition");
  wav = encodeFile(callAudio(SPOKEN), 16000, join(models.dir, "table.wav"), ENCODINGS.wav!);
});

afterAll(async () => {
  port?.close();
  await sawt?.stop("SIGKILL");
  models?.remove();
});

async function verbose(fields: Record<string, string>): Promise<any> {
  const form = new FormData();
  form.append("file", Bun.file(wav), "table.wav");
  form.append("response_format", "verbose_json");
  form.append("timestamp_granularities[]", "segment");
  form.append("timestamp_granularities[]", "word");
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  const response = await fetch(`${sawt.baseUrl}/v1/asr/audio/transcriptions`, {
    method: "POST",
    headers: { "x-api-key": key },
    body: form,
  });
  expect(response.status).toBe(200);
  return response.json();
}

/** Checks that `written` tiles `spoken`: each written word starts at one spoken word and ends at a later one's end. */
function expectTiled(written: readonly Word[], spoken: readonly Word[]): void {
  let i = 0;
  for (const word of written) {
    expect(spoken[i]?.start).toBe(word.start);
    let j = i;
    while (j < spoken.length - 1 && spoken[j]!.end !== word.end) j++;
    expect(spoken[j]!.end).toBe(word.end);
    i = j + 1;
  }
  expect(i).toBe(spoken.length);
}

describe("written forms on REST transcripts", () => {
  test("does write the table by default, keep the spoken form in text_spoken and the words' times", async () => {
    const raw = await verbose({ itn: "false" });
    expect(raw.segments.map((s: { text: string }) => s.text)).toEqual(SPOKEN);
    expect(raw.text_spoken).toBeUndefined();
    const body = await verbose({});
    expect(body.segments.map((s: { text: string }) => s.text)).toEqual(WRITTEN);
    expect(body.segments.map((s: { text_spoken: string }) => s.text_spoken)).toEqual(SPOKEN);
    expect(body.text).toBe(WRITTEN.join(" "));
    expect(body.text_spoken).toBe(SPOKEN.join(" "));
    expect(body.redactions).toBeUndefined();
    for (const [k, segment] of body.segments.entries()) {
      expect(segment.words.map((w: Word) => w.word).join(" ")).toBe(WRITTEN[k]);
      expectTiled(segment.words, raw.segments[k].words);
    }
    expectTiled(body.words, raw.words);
  });

  test("does refuse an itn value that is not true or false with 422", async () => {
    const form = new FormData();
    form.append("file", Bun.file(wav), "table.wav");
    form.append("itn", "maybe");
    const response = await fetch(`${sawt.baseUrl}/v1/asr/audio/transcriptions`, {
      method: "POST",
      headers: { "x-api-key": key },
      body: form,
    });
    expect(response.status).toBe(422);
    expect(JSON.stringify(await response.json())).toContain("form.itn");
  });
});

describe("written forms on the realtime door", () => {
  test.each([
    ["by default", {}, WRITTEN],
    ["spoken with itn false", { itn: false }, SPOKEN],
  ])("does complete each utterance %s", async (_name, fields, expected) => {
    const client = await realtimeSession(sawt.baseUrl, key, {
      type: "transcription",
      ...fields,
      audio: { input: { format: { type: "audio/pcm", rate: 16000 } } },
    });
    const pcm = pcm16(callAudio(SPOKEN));
    for (let at = 0; at < pcm.length; at += 16000)
      client.sendJson({ type: "input_audio_buffer.append", audio: pcm.subarray(at, at + 16000).toString("base64") });
    await client.next("conversation.item.input_audio_transcription.completed", TABLE.length);
    const completed = client.events.filter((e) => e.type === "conversation.item.input_audio_transcription.completed");
    expect(completed.map((e) => e.transcript)).toEqual(expected);
    client.ws.close();
  });
});

describe("written forms on gRPC Recognize", () => {
  test.each([
    ["by default", {}, WRITTEN, SPOKEN],
    ["spoken with itn false", { itn: false }, SPOKEN, SPOKEN.map(() => "")],
  ])("does answer the segments %s", async (_name, fields, expected, spoken) => {
    const config = { encoding: "LINEAR_PCM", sample_rate_hz: 16000, ...fields };
    const outcome = await unary(port.asr, "Recognize", { config, audio: pcm16(callAudio(SPOKEN)) }, bearer(key));
    expect(outcome.error).toBeUndefined();
    expect(outcome.response.segments.map((s: { text: string }) => s.text)).toEqual(expected);
    expect(outcome.response.segments.map((s: { text_spoken: string }) => s.text_spoken)).toEqual(spoken);
  });
});
