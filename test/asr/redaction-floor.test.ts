/**
 * The server's redaction floor against the real server (tone CTC recogniser): with
 * `asr.redact = ["pci"]` every request's cards are redacted whatever it asks, a request's `redact`
 * adds to it; on the realtime door (which never ends on its own) a final held for an open number
 * is decided after five seconds of audio without new speech.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { writeToneCtcPack } from "../support/models/ctc.ts";
import { startSawt, type SawtProcess } from "../support/sawt.ts";
import { callAudio, PHONE, pcm16, REDACTED_TEXT, UTTERANCES } from "./format-support.ts";
import { concat, encodeFile, ENCODINGS, modelsDir, silence } from "./support.ts";
import { realtimeSession } from "./ws-client.ts";

let models: ReturnType<typeof modelsDir>;
let sawt: SawtProcess;
let key: string;

beforeAll(async () => {
  models = modelsDir();
  await writeToneCtcPack(join(models.dir, "tone-ctc"));
  sawt = await startSawt({
    env: { SAWT_MODELS_DIR: models.dir, SAWT_STREAMING_MAX_BUFFER_S: "120", SAWT_ASR_REDACT: "pci" },
  });
  key = (await sawt.createKey({ name: "floor", rpm: 100_000 })).key;
});

afterAll(async () => {
  await sawt?.stop("SIGKILL");
  models?.remove();
});

describe("asr.redact", () => {
  test("does redact cards in every request, and what a request adds besides", async () => {
    const call = encodeFile(callAudio(), 16000, join(models.dir, "call.wav"), ENCODINGS.wav!);
    const ask = async (fields: Record<string, string>) => {
      const form = new FormData();
      form.append("file", Bun.file(call), "call.wav");
      for (const [name, value] of Object.entries(fields)) form.append(name, value);
      const response = await fetch(`${sawt.baseUrl}/v1/asr/audio/transcriptions`, {
        method: "POST",
        headers: { "x-api-key": key },
        body: form,
      });
      return ((await response.json()) as { text: string }).text;
    };
    const floor = await ask({});
    expect(floor).toStartWith("رقم البطاقة [REDACTED:card] الايبان SA03 8000");
    expect(floor).toContain(`جوالي ${PHONE}`);
    expect(await ask({ redact: "pii" })).toBe(REDACTED_TEXT);
  });

  test("does complete a realtime final held for its number once five seconds bring no new speech", async () => {
    const client = await realtimeSession(sawt.baseUrl, key, {
      type: "transcription",
      audio: { input: { format: { type: "audio/pcm", rate: 16000 } } },
    });
    // The call up to the phone number, which ends the last utterance, then 6 s of silence.
    const heard = UTTERANCES.slice(0, 5);
    const pcm = pcm16(concat(callAudio(heard), silence(6)));
    for (let at = 0; at < pcm.length; at += 16000)
      client.sendJson({ type: "input_audio_buffer.append", audio: pcm.subarray(at, at + 16000).toString("base64") });
    const last = await client.next("conversation.item.input_audio_transcription.completed", heard.length);
    expect(last.transcript).toBe(`جوالي ${PHONE}`);
    const completed = client.events.filter((e) => e.type === "conversation.item.input_audio_transcription.completed");
    expect(completed[0].transcript).toBe("رقم البطاقة [REDACTED:card]");
    client.ws.close();
  });
});
