/**
 * POST /v1/asr/format against the real server (debug logging, Arabic-Indic digits, a small JSON
 * limit): written forms and redaction in the answer, the contract's error shapes, and no redacted
 * digit anywhere in the server's log.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startSawt, type SawtProcess } from "../support/sawt.ts";
import { call, expectAuth, expectRateHeaders, expectStandard, expectValidation, postJson } from "./support.ts";

// A Luhn-valid test card (Visa's documented test number), read digit by digit with hesitations.
const CARD = "4111111111111111";
const SPOKEN_CARD = "أربعة واحد واحد واحد يعني واحد واحد واحد واحد اه واحد واحد واحد واحد واحد واحد واحد واحد";
const WRITTEN_PHONE = "0551234567";

let sawt: SawtProcess;
let key: string;
let url: string;

beforeAll(async () => {
  sawt = await startSawt({
    env: { SAWT_LOG_LEVEL: "debug", SAWT_ASR_DIGITS: "arabic-indic", SAWT_MAX_JSON_BYTES: "4096" },
  });
  ({ key } = await sawt.createKey({ name: "format", rpm: 1000 }));
  url = `${sawt.baseUrl}/v1/asr/format`;
});
afterAll(() => sawt.stop());

const auth = () => ({ "X-API-Key": key });

describe("POST /v1/asr/format", () => {
  test("does write Arabic numbers in the configured digits and hide a spoken card", async () => {
    const text = `المبلغ مية وخمسين ريال ورقم البطاقة ${SPOKEN_CARD} شكرا`;
    const reply = await postJson(url, { text, redact: "pci,pii" }, auth());
    expect(reply.status).toBe(200);
    expectRateHeaders(reply, 1000);
    expect(reply.json.text).toBe("المبلغ ١٥٠ ريال ورقم البطاقة [REDACTED:card] شكرا");
    expect(reply.json.text_spoken).toBe("المبلغ مية وخمسين ريال ورقم البطاقة [REDACTED:card] شكرا");
    expect(reply.json.redactions).toHaveLength(1);
    const { type, start, end } = reply.json.redactions[0];
    expect(type).toBe("card");
    expect(reply.json.text_spoken.slice(start, end)).toBe("[REDACTED:card]");
  });

  test("does keep the spoken words when itn is false and still redact them", async () => {
    const text = `call me on ${WRITTEN_PHONE} or at ahmed dot ali at example dot com`;
    const reply = await postJson(url, { text, itn: false, redact: ["phone", "email"] }, auth());
    expect(reply.status).toBe(200);
    expect(reply.json.text).toBe("call me on [REDACTED:phone] or at [REDACTED:email]");
    expect(reply.json.text).toBe(reply.json.text_spoken);
    expect(reply.json.redactions.map((r: { type: string }) => r.type)).toEqual(["phone", "email"]);
  });

  test("does write English forms in Western digits and leave a Luhn-invalid number alone", async () => {
    const text = "twelve dollars and fifty cents on March fifth, twenty twenty-four, card 4111 1111 1111 1112";
    const reply = await postJson(url, { text, language: "en", redact: "pci" }, auth());
    expect(reply.status).toBe(200);
    expect(reply.json.text).toBe("$12.50 on 2024-03-05, card 4111 1111 1111 1112");
    expect(reply.json.redactions).toEqual([]);
  });

  test("does refuse a request without a key", async () => {
    expectAuth(await postJson(url, { text: "خمسة" }), 401, "X-API-Key header is required");
  });

  test("does answer 400 to malformed JSON", async () => {
    expectStandard(await postJson(url, '{"text": "خمسة"', auth()), 400, "Malformed JSON body");
  });

  test("does answer 422 naming body.redact for an unknown redaction class", async () => {
    const reply = await postJson(url, { text: "خمسة", redact: "pci,secrets" }, auth());
    expectValidation(reply, ["body.redact"]);
    expect(reply.text).not.toContain("secrets");
  });

  test("does answer 422 for a missing text and a wrong itn type", async () => {
    expectValidation(await postJson(url, { itn: "yes" }, auth()), ["body.text", "body.itn"]);
    expectValidation(await postJson(url, [1], auth()), ["body"]);
  });

  test("does answer 413 to a body over server.max_json_bytes", async () => {
    const reply = await postJson(url, { text: "خمسة ".repeat(2000) }, auth());
    expectStandard(reply, 413, "Request body exceeds maximum size of 4,096 bytes");
  });

  test("does not accept other methods", async () => {
    const reply = await call(url, { headers: auth() });
    expect(reply.status).toBe(405);
  });

  test("does never log a redacted number, spoken or written", async () => {
    await postJson(url, { text: `card ${CARD} phone ${WRITTEN_PHONE}`, redact: "pci,pii" }, auth());
    await postJson(url, { text: `${CARD}`, redact: "nope" }, auth());
    const requestLines = sawt.logs.filter((line) => line.includes('"msg":"request"'));
    expect(requestLines.some((line) => line.includes("/v1/asr/format"))).toBe(true);
    for (const line of sawt.logs) {
      for (const needle of [CARD, "1111 1111", WRITTEN_PHONE, "يعني واحد"]) {
        expect(line.includes(needle), `log line leaks ${needle}: ${line}`).toBe(false);
      }
    }
  });
});
