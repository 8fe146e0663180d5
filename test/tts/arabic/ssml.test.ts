/**
 * Acceptance 4: the SSML subset through REST (each element), WebSocket and gRPC, with constructed
 * voices that spell what they were fed: Yara a text voice (Arabic letters), Yara_en a text voice
 * (Latin letters), Myriam an Arabic espeak-phoneme voice (IPA). Unsafe and malformed documents are 400.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { prepareText } from "../../../src/tts/frontend/index.ts";
import { bearer, clients, collect, unary } from "../../grpc/client.ts";
import { writePiperPack } from "../../support/models/tone-voice.ts";
import { startInProcess, type InProcessSawt } from "../../support/in-process.ts";
import { tempDir } from "../../support/sawt.ts";
import {
  ARABIC_IPA_SYMBOLS,
  ARABIC_TEXT_SYMBOLS,
  decodeSentences,
  expectedIds,
  idMap,
  pcmToFloat,
  silenceRuns,
} from "../support.ts";
import { post } from "./support.ts";

const TEXT_MAP = idMap(ARABIC_TEXT_SYMBOLS);
const LATIN_MAP = idMap("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.,?!");
const IPA_MAP = idMap(ARABIC_IPA_SYMBOLS);
const RATE = 16000;

const dir = tempDir("sawt-arabic-ssml-");
const models = join(dir.path, "models");
let sawt: InProcessSawt;
let key: string;

beforeAll(async () => {
  await writePiperPack(join(models, "yara"), {
    name: "ar_text",
    sampleRate: RATE,
    phonemeIdMap: TEXT_MAP,
    phonemeType: "text",
  });
  await writePiperPack(join(models, "yara_en"), {
    name: "en_text",
    sampleRate: RATE,
    phonemeIdMap: LATIN_MAP,
    phonemeType: "text",
    espeakVoice: "en-us",
  });
  await writePiperPack(join(models, "myriam"), {
    name: "ar_ipa",
    sampleRate: RATE,
    phonemeIdMap: IPA_MAP,
    espeakVoice: "ar",
  });
  sawt = await startInProcess({ SAWT_MODELS_DIR: models, SAWT_MAX_JSON_BYTES: String(8 * 1024 * 1024) });
  await sawt.server.enginesSettled;
  key = sawt.server.ctx.keys.create({ name: "ssml", rpm: 100_000 }).key;
});
afterAll(async () => {
  await sawt.close();
  dir.remove();
});

const analyze = (input: string, extra: Record<string, unknown> = {}) =>
  post(sawt.baseUrl, "/v1/tts/analyze", key, { input, ...extra });
const ssml = (body: string) =>
  `<speak version="1.0" xmlns="http://www.w3.org/2001/10/synthesis" xml:lang="ar-SA">${body}</speak>`;
const sentences = (body: any) => (body.sentences as any[]).filter((s) => s.type === "sentence");
/** The front-end's reading of a plain text (what a say-as should amount to). */
const plain = (text: string) =>
  prepareText(text, "ar")
    .map((s) => s.text)
    .join(" ");

async function speakPcm(input: string, extra: Record<string, unknown> = {}) {
  const res = await fetch(`${sawt.baseUrl}/v1/tts/audio/speech`, {
    method: "POST",
    headers: { "content-type": "application/json", "X-API-Key": key },
    body: JSON.stringify({ input, response_format: "pcm", ...extra }),
  });
  if (res.status !== 200) throw new Error(`status ${res.status}: ${await res.text()}`);
  return { samples: pcmToFloat(new Uint8Array(await res.arrayBuffer())), headers: res.headers };
}

describe("SSML elements through REST", () => {
  test("does pause for the break's time and strength when <break> is given", async () => {
    const { body } = await analyze(ssml(`مرحبا<break time="700ms"/>بكم<break strength="strong"/>أهلا`));
    expect(body.ssml).toBe(true);
    expect(body.sentences.filter((s: any) => s.type === "break")).toEqual([
      { type: "break", seconds: 0.7 },
      { type: "break", seconds: 0.75 },
    ]);
    const { samples } = await speakPcm(ssml(`مرحبا<break time="700ms"/>بكم`));
    // The break is silence of its own length (no sentence silence added after it).
    expect(silenceRuns(samples, RATE, 0.5).map((n) => Math.round((n / RATE) * 100) / 100)).toEqual([0.7]);
  });

  test("does scale the speed by <prosody rate> words, percentages and numbers", async () => {
    const { body } = await analyze(
      ssml(
        `<prosody rate="slow">مرحبا</prosody><prosody rate="150%">بكم</prosody><prosody rate="x-fast"><prosody rate="2">أهلا</prosody></prosody>`,
      ),
    );
    expect(sentences(body).map((s) => s.speed)).toEqual([0.75, 1.5, 2]);
  });

  const SAY_AS: Array<[string, string, string]> = [
    ["characters", "ABC", "A B C"],
    ["spell-out", "سوق", "س و ق"],
    ["digits", "2026", "2 0 2 6"],
    ["cardinal", "1,500", "1500"],
    ["ordinal", "3", "الثالث"],
    ["date", "15/03/2026", "2026-03-15"],
    ["time", "14:30", "14:30"],
    ["telephone", "+966 50 123", "+ 9 6 6 5 0 1 2 3"],
    ["currency", "150 SAR", "150 SAR"],
  ];
  for (const [interpretAs, content, equivalent] of SAY_AS) {
    test(`does read <say-as interpret-as="${interpretAs}"> as the front-end reads ${JSON.stringify(equivalent)}`, async () => {
      const format = interpretAs === "date" ? ` format="dmy"` : "";
      const { status, body } = await analyze(
        ssml(`<say-as interpret-as="${interpretAs}"${format}>${content}</say-as>`),
      );
      expect(status).toBe(200);
      expect(
        sentences(body)
          .map((s) => s.normalized)
          .join(" "),
      ).toBe(plain(equivalent));
    });
  }

  test("does say the alias of <sub>", async () => {
    const { body } = await analyze(ssml(`اتصلوا على <sub alias="منظمة الصحة العالمية">WHO</sub>`));
    expect(sentences(body)[0].normalized).toBe("اتصلوا على منظمة الصحة العالمية");
  });

  test("does feed an espeak-phoneme voice the IPA of <phoneme> and a text voice its text", async () => {
    const input = ssml(`مرحبا <phoneme alphabet="ipa" ph="sˤawt">صوت</phoneme>`);
    const espeak = await analyze(input, { voice: "Myriam" });
    expect(sentences(espeak.body)[0].phonemes).toContain("sˤawt");
    expect(sentences(espeak.body)[0].normalized).toBe("مرحبا صوت");
    const text = await analyze(input);
    expect(sentences(text.body)[0].phonemes).toBe("مرحبا صوت".normalize("NFD"));
  });

  test("does switch to Yara_en inside <lang xml:lang='en-US'> and back, in analyze and in the audio", async () => {
    const input = ssml(`<s>مرحبا</s><lang xml:lang="en-US">Welcome</lang><s>بكم</s>`);
    const { body } = await analyze(input);
    expect(sentences(body).map((s) => [s.voice, s.normalized])).toEqual([
      ["Yara", "مرحبا"],
      ["Yara_en", "Welcome"],
      ["Yara", "بكم"],
    ]);
    expect(body.voices).toEqual(["Yara", "Yara_en"]);
    const { samples, headers } = await speakPcm(input);
    expect([headers.get("x-tts-voice"), headers.get("x-tts-voices")]).toEqual(["Yara", "Yara, Yara_en"]);
    expect(decodeSentences(samples, RATE, 1).map((d) => d.ids)).toEqual([
      expectedIds(Array.from("مرحبا"), TEXT_MAP),
      expectedIds(Array.from("Welcome"), LATIN_MAP),
      expectedIds(Array.from("بكم"), TEXT_MAP),
    ]);
  });

  test("does make each <p> and <s> a sentence of its own", async () => {
    const { body } = await analyze(ssml(`<p>مرحبا بكم</p><p><s>كيف حالك</s><s>أهلا</s></p>`));
    expect(sentences(body).map((s) => s.normalized)).toEqual(["مرحبا بكم", "كيف حالك", "أهلا"]);
  });
});

describe("SSML that is refused", () => {
  const refused = async (input: string) => {
    const { status, body } = await post(sawt.baseUrl, "/v1/tts/audio/speech", key, { input });
    return { status, detail: String(body.detail) };
  };

  test("does answer 400 without expanding anything when the document is a billion laughs", async () => {
    const entities = Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i};`.repeat(10)}">`).join("");
    const doc = `<?xml version="1.0"?><!DOCTYPE speak [<!ENTITY lol0 "lol">${entities}]><speak>&lol9;</speak>`;
    expect(await refused(doc)).toEqual({
      status: 400,
      detail: "Invalid SSML: a DOCTYPE is not allowed (no entity declarations)",
    });
    // Without its DOCTYPE the entity is simply unknown.
    expect(await refused("<speak>&lol9;</speak>")).toEqual({
      status: 400,
      detail: "Invalid SSML: 1:13: undefined entity.",
    });
  });

  test("does answer 400 without reading any file when the document declares an external entity", async () => {
    const doc = `<!DOCTYPE speak [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><speak>&xxe;</speak>`;
    expect(await refused(doc)).toEqual({
      status: 400,
      detail: "Invalid SSML: a DOCTYPE is not allowed (no entity declarations)",
    });
  });

  test("does answer 400 before parsing when the document is 5 MB (JSON bodies allowed up to 8 MB)", async () => {
    const doc = `<speak>${"Welcome. ".repeat(560_000)}</speak>`;
    expect(new TextEncoder().encode(doc).length).toBeGreaterThan(5_000_000);
    expect(await refused(doc)).toEqual({ status: 400, detail: "Text exceeds maximum length of 51,200 characters" });
  });

  test("does answer 400 naming the problem when the XML is malformed or the element unsupported", async () => {
    expect(await refused(`<speak>مرحبا <break></speak>`)).toEqual({
      status: 400,
      detail: "Invalid SSML: 1:28: unexpected close tag.",
    });
    expect(await refused(`<speak><emphasis>مرحبا</emphasis></speak>`)).toEqual({
      status: 400,
      detail: "Invalid SSML: unsupported element <emphasis>",
    });
    expect(await refused(`<speak><break time="5 minutes"/></speak>`)).toEqual({
      status: 400,
      detail: `Invalid SSML: <break time="5 minutes"> must be a duration such as 500ms or 1.5s`,
    });
    expect(await refused(`<speak><lang xml:lang="fr-FR">bonjour</lang></speak>`)).toEqual({
      status: 400,
      detail: `Invalid SSML: <lang xml:lang="fr-FR"> must be an Arabic (ar-…) or English (en-…) language tag`,
    });
  });

  test("does apply the blocked-content rule to the text of the document", async () => {
    expect(await refused(`<speak>مرحبا {{ user.name }}</speak>`)).toEqual({
      status: 400,
      detail: "Text contains invalid content",
    });
    expect(await refused(`<speak><sub alias="javascript:alert(1)">x</sub></speak>`)).toEqual({
      status: 400,
      detail: "Text contains invalid content",
    });
  });
});

describe("SSML on the other doors", () => {
  test("does speak SSML sent on the WebSocket and report malformed SSML as a 400 error frame", async () => {
    const frames = (body: Record<string, unknown>) =>
      new Promise<Array<Record<string, unknown> | number>>((resolve, reject) => {
        const ws = new WebSocket(`${sawt.baseUrl.replace("http", "ws")}/v1/tts/ws`, {
          headers: { "X-API-Key": key },
        } as unknown as string[]);
        const got: Array<Record<string, unknown> | number> = [];
        ws.binaryType = "arraybuffer";
        ws.onopen = () => ws.send(JSON.stringify(body));
        ws.onmessage = (event) => {
          if (typeof event.data !== "string") return void got.push((event.data as ArrayBuffer).byteLength);
          const frame = JSON.parse(event.data) as Record<string, unknown>;
          got.push(frame);
          if (frame.type === "end" || frame.type === "error") {
            ws.close();
            resolve(got);
          }
        };
        ws.onerror = () => reject(new Error("websocket error"));
      });
    const ok = await frames({ input: ssml(`مرحبا<break time="300ms"/><lang xml:lang="en">hi</lang>`) });
    expect(ok[0]).toMatchObject({ type: "start", voice: "Yara", voices: ["Yara", "Yara_en"] });
    expect((ok[ok.length - 1] as Record<string, unknown>).type).toBe("end");
    const bad = await frames({ input: "<speak>مرحبا" });
    expect(bad).toEqual([
      expect.objectContaining({ type: "error", status: 400, detail: "Invalid SSML: 1:12: unclosed tag: speak" }),
    ]);
  });

  test("does speak SSML in the gRPC text field and refuse malformed SSML with INVALID_ARGUMENT", async () => {
    const grpc = clients(sawt.server.ports.grpc_tts);
    try {
      const ok = await unary(
        grpc.tts,
        "Synthesize",
        { text: ssml(`<s>مرحبا</s><lang xml:lang="en-GB">Welcome</lang>`), response_format: "pcm" },
        bearer(key),
      );
      expect(ok.error).toBeUndefined();
      const samples = pcmToFloat(new Uint8Array(ok.response.audio));
      expect(decodeSentences(samples, RATE, 1).map((d) => d.ids)).toEqual([
        expectedIds(Array.from("مرحبا"), TEXT_MAP),
        expectedIds(Array.from("Welcome"), LATIN_MAP),
      ]);
      const bad = await unary(grpc.tts, "Synthesize", { text: "<speak><audio src='x.wav'/></speak>" }, bearer(key));
      expect([bad.error?.code, bad.error?.details]).toEqual([3, "Invalid SSML: unsupported element <audio>"]);
      const online = await collect(
        grpc.tts.SynthesizeOnline({ text: ssml(`مرحبا<break time="200ms"/>بكم`) }, bearer(key)),
      );
      expect(online.error).toBeUndefined();
      expect(online.messages.length).toBeGreaterThan(0);
    } finally {
      grpc.close();
    }
  });
});
