/**
 * D18 over a full run of the real server at debug level: requests carrying a distinctive key,
 * secret, input text, transcript-bound upload and field values — successful or refused, on every
 * route — leave no trace of any of them in any log line. Only the key id may appear.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startSawt, type SawtProcess } from "../support/sawt.ts";
import { call, postJson } from "./support.ts";

const TEXT = "سر المكالمة رقم ٧٣٩١ QX-PRIVATE-INPUT-5e1f";
const FIELD = "QX-PRIVATE-FIELD-a77c";
const FILENAME = "QX-PRIVATE-FILENAME-0d2e.wav";
const AUDIO_MARK = "QX-PRIVATE-AUDIO-93b4";
const WRONG_SECRET = "QxPrivateWrongSecret0000000000000000000000A";

let sawt: SawtProcess;
let key: string;
let keyId: string;

beforeAll(async () => {
  sawt = await startSawt({ env: { SAWT_LOG_LEVEL: "debug" } });
  ({ key, id: keyId } = await sawt.createKey({ name: "privacy", rpm: 1000 }));
});
afterAll(() => sawt.stop());

describe("logs", () => {
  test("does never contain keys, secrets, input text, uploads or form values", async () => {
    const base = sawt.baseUrl;
    const auth = { "X-API-Key": key };
    const statuses: number[] = [];
    const record = async (p: Promise<{ status: number }>) => statuses.push((await p).status);

    await record(postJson(`${base}/v1/tts/audio/speech`, { input: TEXT, response_format: "wav" }, auth));
    await record(postJson(`${base}/v1/audio/speech`, { input: TEXT }, { Authorization: `Bearer ${key}` }));
    await record(postJson(`${base}/synthesize`, { text: TEXT }, auth));
    await record(
      postJson(
        `${base}/v1/tts/audio/speech?input=${encodeURIComponent(TEXT)}`,
        { input: `<script>${TEXT}</script>` },
        auth,
      ),
    );
    await record(postJson(`${base}/v1/tts/audio/speech`, { input: TEXT, speed: FIELD }, auth));
    await record(postJson(`${base}/v1/tts/audio/speech`, `{"input": "${TEXT}"`, auth));
    await record(
      postJson(`${base}/v1/tts/audio/speech`, { input: TEXT }, { "X-API-Key": `sawt_${keyId}_${WRONG_SECRET}` }),
    );
    await record(postJson(`${base}/v1/tts/audio/speech`, { input: TEXT }, { Authorization: `Bearer ${WRONG_SECRET}` }));
    await record(call(`${base}/v1/${encodeURIComponent(TEXT)}`));

    for (const [route, language] of [
      ["/v1/asr/audio/transcriptions", "ar"],
      ["/v1/asr/transcribe", FIELD],
      ["/transcribe", "ar"],
    ]) {
      const form = new FormData();
      form.append("language", language!);
      form.append("prompt", FIELD);
      form.append("file", new Blob([`RIFF${AUDIO_MARK}${TEXT}`]), FILENAME);
      await record(call(base + route, { method: "POST", headers: auth, body: form }));
    }
    await sawt.stop();

    // Every request was logged (so the grep below looked at real request lines)…
    const requestLines = sawt.logs.filter((line) => line.includes('"msg":"request"'));
    expect(requestLines.length).toBeGreaterThanOrEqual(statuses.length);
    expect(requestLines.some((line) => line.includes(`"key_id":"${keyId}"`))).toBe(true);
    // …and none of them, nor any other line, carries a secret or the caller's content.
    const secret = key.split("_").slice(2).join("_");
    const needles = [
      key,
      secret,
      WRONG_SECRET,
      TEXT,
      "QX-PRIVATE-INPUT",
      encodeURIComponent(TEXT),
      FIELD,
      FILENAME,
      AUDIO_MARK,
    ];
    for (const line of sawt.logs) {
      for (const needle of needles) expect(line.includes(needle), `log line leaks ${needle}: ${line}`).toBe(false);
    }
  });
});
