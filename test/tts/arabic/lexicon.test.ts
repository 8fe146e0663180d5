/**
 * Acceptance 5: the pronunciation lexicon is private to its key, validated in the contract's
 * shapes, applied before diacritisation on every door (REST, analyze, WebSocket, gRPC) and kept
 * across a restart (SQLite in the data directory).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { bearer, clients, unary } from "../../grpc/client.ts";
import { writePiperPack } from "../../support/models/tone-voice.ts";
import { startInProcess, type InProcessSawt } from "../../support/in-process.ts";
import { tempDir } from "../../support/sawt.ts";
import { ARABIC_IPA_SYMBOLS, idMap } from "../support.ts";
import { espeakSynthesisTexts, post } from "./support.ts";

const dir = tempDir("sawt-arabic-lexicon-");
const models = join(dir.path, "models");
const env = { SAWT_MODELS_DIR: models, SAWT_DATA_DIR: join(dir.path, "data") };
let sawt: InProcessSawt;
let alice: string;
let bob: string;
const HARAKAT = /[\u064B-\u0652]/gu;

const lexicon = (key: string, method: string, body?: unknown, query = "") =>
  post(sawt.baseUrl, `/v1/tts/lexicon${query}`, key, body, method);
const analyze = (key: string, body: Record<string, unknown>) => post(sawt.baseUrl, "/v1/tts/analyze", key, body);
const normalized = (body: any): string => body.sentences.map((s: any) => s.normalized).join(" ");

beforeAll(async () => {
  // Myriam: an espeak-phoneme pack (IPA entries are fed to it); Yara: espeak-ng itself.
  await writePiperPack(join(models, "myriam"), {
    name: "ar_ipa",
    sampleRate: 16000,
    phonemeIdMap: idMap(ARABIC_IPA_SYMBOLS),
    espeakVoice: "ar",
  });
  mkdirSync(env.SAWT_DATA_DIR, { recursive: true });
  sawt = await startInProcess(env);
  await sawt.server.enginesSettled;
  alice = sawt.server.ctx.keys.create({ name: "alice", rpm: 100_000 }).key;
  bob = sawt.server.ctx.keys.create({ name: "bob", rpm: 100_000 }).key;
});
afterAll(async () => {
  await sawt.close();
  dir.remove();
});

describe("pronunciation lexicon", () => {
  test("does apply a key's entries to its own requests only when another key asks", async () => {
    const put = await lexicon(alice, "PUT", {
      entries: [
        { grapheme: "STC", alias: "إس تي سي" },
        { grapheme: "Sawt", ipa: "sˤawt" },
      ],
    });
    expect(put.status).toBe(200);
    expect(put.body.entries).toEqual(
      [
        { grapheme: "STC", alias: "إس تي سي" },
        { grapheme: "Sawt", ipa: "sˤawt" },
      ].sort((a, b) => (a.grapheme < b.grapheme ? -1 : 1)),
    );
    expect(normalized((await analyze(alice, { input: "مرحبا بكم في STC" })).body)).toBe("مرحبا بكم في إس تي سي");
    expect(normalized((await analyze(bob, { input: "مرحبا بكم في STC" })).body)).toBe("مرحبا بكم في STC");
    expect((await lexicon(bob, "GET")).body.entries).toEqual([]);
  });

  test("does apply the lexicon before diacritisation, and feed IPA entries to an espeak-phoneme voice", async () => {
    const { body } = await analyze(alice, { input: "شركة STC", voice: "Yara" });
    expect(body.sentences[0].diacritized.replace(HARAKAT, "")).toBe("شركة إس تي سي");
    expect(body.sentences[0].diacritized).not.toBe("شركة إس تي سي");
    const ipa = await analyze(alice, { input: "مرحبا Sawt", voice: "Myriam" });
    expect(ipa.body.sentences[0].phonemes).toContain("sˤawt");
  });

  test("does pick the entry of the speaking dialect over a general one", async () => {
    await lexicon(alice, "PUT", {
      entries: [
        { grapheme: "سوق", alias: "سوء", dialect: "ar-egyptian" },
        { grapheme: "سوق", alias: "سووق" },
      ],
    });
    expect(normalized((await analyze(alice, { input: "في السوق سوق", dialect: "ar-egyptian" })).body)).toBe(
      "في السوق سوء",
    );
    expect(normalized((await analyze(alice, { input: "في السوق سوق", dialect: "ar-najdi" })).body)).toBe(
      "في السوق سووق",
    );
  });

  test("does apply the lexicon on the speech, WebSocket and gRPC doors", async () => {
    const hasAlias = (texts: string[]) => texts.map((t) => t.replace(HARAKAT, "")).join(" ");
    const rest = await espeakSynthesisTexts(() =>
      fetch(`${sawt.baseUrl}/v1/tts/audio/speech`, {
        method: "POST",
        headers: { "content-type": "application/json", "X-API-Key": alice },
        body: JSON.stringify({ input: "شركة STC", response_format: "pcm" }),
      }).then((r) => r.arrayBuffer()),
    );
    expect(hasAlias(rest)).toBe("شركة إس تي سي");
    const ws = await espeakSynthesisTexts(
      () =>
        new Promise<void>((resolve, reject) => {
          const socket = new WebSocket(`${sawt.baseUrl.replace("http", "ws")}/v1/tts/ws`, {
            headers: { "X-API-Key": alice },
          } as unknown as string[]);
          socket.onopen = () => socket.send(JSON.stringify({ input: "شركة STC" }));
          socket.onmessage = (event) => {
            if (typeof event.data === "string" && /"type":"(end|error)"/.test(event.data)) {
              socket.close();
              resolve();
            }
          };
          socket.onerror = () => reject(new Error("websocket error"));
        }),
    );
    expect(hasAlias(ws)).toBe("شركة إس تي سي");
    const grpc = clients(sawt.server.ports.grpc_tts);
    try {
      const texts = await espeakSynthesisTexts(() =>
        unary(grpc.tts, "Synthesize", { text: "شركة STC", response_format: "pcm" }, bearer(alice)),
      );
      expect(hasAlias(texts)).toBe("شركة إس تي سي");
    } finally {
      grpc.close();
    }
  });

  test("does answer 422 with the fields named when entries are malformed", async () => {
    const missing = await lexicon(alice, "PUT", { entries: [{ grapheme: "x" }] });
    expect(missing.status).toBe(422);
    expect(missing.body).toEqual({
      error: "validation_error",
      detail: "Request validation failed",
      errors: [{ field: "body.entries.0", message: "Give exactly one of alias and ipa" }],
    });
    const types = await lexicon(alice, "PUT", { entries: [{ grapheme: 5, alias: "x", dialect: "ar-moon" }] });
    expect(types.status).toBe(422);
    expect(types.body.errors.map((e: any) => e.field)).toEqual(["body.entries.0.grapheme", "body.entries.0.dialect"]);
    const long = await lexicon(alice, "PUT", { entries: [{ grapheme: "x".repeat(101), alias: "y" }] });
    expect(long.body.errors).toEqual([
      { field: "body.entries.0.grapheme", message: "grapheme is longer than 100 characters" },
    ]);
    const ipa = await lexicon(alice, "PUT", { entries: [{ grapheme: "x", ipa: "a.b" }] });
    expect(ipa.body.errors).toEqual([{ field: "body.entries.0.ipa", message: "Expected IPA without punctuation" }]);
    const notObject = await lexicon(alice, "PUT", [1]);
    expect(notObject.status).toBe(422);
    const badDelete = await lexicon(alice, "DELETE", undefined, "?dialect=ar-moon");
    expect(badDelete.body.errors).toEqual([
      { field: "query.dialect", message: expect.stringContaining("Expected one of") },
    ]);
  });

  test("does answer 400 when a key's lexicon would exceed its bound, or an alias holds blocked content", async () => {
    const entries = Array.from({ length: 500 }, (_, i) => ({ grapheme: `w${i}`, alias: "كلمة" }));
    const full = await lexicon(bob, "PUT", { entries });
    expect(full.status).toBe(200);
    const over = await lexicon(bob, "PUT", { entries: [{ grapheme: "one-more", alias: "x" }] });
    expect([over.status, over.body.detail]).toEqual([400, "Lexicon exceeds maximum of 500 entries"]);
    expect((await lexicon(bob, "DELETE")).body).toEqual({ deleted: 500 });
    const blocked = await lexicon(bob, "PUT", { entries: [{ grapheme: "x", alias: "{{ secret }}" }] });
    expect([blocked.status, blocked.body.detail]).toEqual([400, "Text contains invalid content"]);
  });

  test("does delete one grapheme's entry and keep the others across a restart", async () => {
    expect(
      (await lexicon(alice, "DELETE", undefined, `?grapheme=${encodeURIComponent("سوق")}&dialect=ar-egyptian`)).body,
    ).toEqual({ deleted: 1 });
    const before = (await lexicon(alice, "GET")).body.entries;
    expect(before.map((e: any) => e.grapheme)).toEqual(["STC", "Sawt", "سوق"]);
    await sawt.close();
    sawt = await startInProcess(env);
    await sawt.server.enginesSettled;
    expect((await lexicon(alice, "GET")).body.entries).toEqual(before);
    expect(normalized((await analyze(alice, { input: "مرحبا بكم في STC" })).body)).toBe("مرحبا بكم في إس تي سي");
  });
});

describe("lexicon and SSML together", () => {
  test("does leave an SSML <phoneme> alone and apply entries to the rest of the document", async () => {
    const { body } = await analyze(alice, {
      input: `<speak>STC <phoneme alphabet="ipa" ph="sˤawt">Sawt</phoneme></speak>`,
      voice: "Myriam",
    });
    expect(body.sentences[0].normalized).toBe("إس تي سي Sawt");
    expect(body.sentences[0].phonemes).toContain("sˤawt");
  });
});
