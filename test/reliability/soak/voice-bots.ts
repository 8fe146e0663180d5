/**
 * The soak's voice-bot rows (issue 40's doors): Deepgram's live `/v1/listen` hears the tone
 * recogniser's clip and answers a final `Results` reading مرحبا, then `Metadata` and 1000;
 * Deepgram's `/v1/speak` answers Speak and Flush with audio and `Flushed`, and Close with 1000;
 * ElevenLabs' stream-input answers text, a flush and the end of input with audio, its alignment
 * and `isFinal`, then 1000. Each session runs as the door fuzz's (../fuzz/ws-session.ts).
 */
import type { Box } from "../box.ts";
import { runSocketScript, type SocketRecord, type Step } from "../fuzz/ws-session.ts";
import { Breach, type SoakRow } from "./row.ts";

const TEXT = "مرحبا بكم";

const objects = (record: SocketRecord) => record.texts.filter((t): t is Record<string, any> => typeof t === "object");

async function session(box: Box, path: string, headers: Record<string, string>, steps: Step[]): Promise<SocketRecord> {
  const record = await runSocketScript({
    url: `${box.sawt.baseUrl.replace(/^http/, "ws")}${path}`,
    headers,
    steps,
    end: "wait",
    deadlineMs: 60_000,
  });
  if (!record.opened) throw new Breach(`${path} did not open`);
  if (record.hung) throw new Breach(`${path} did not close in 60 s`);
  return record;
}

/** A Deepgram `Error` that says busy is the contract's answer under load; any other is a breach. */
function deepgramEnd(record: SocketRecord, what: string): string | undefined {
  const error = objects(record).find((t) => t.type === "Error");
  if (!error) return undefined;
  if (/SERVICE_UNAVAILABLE|TOO_MANY_REQUESTS|TIMEOUT/.test(String(error.variant))) return "busy";
  throw new Breach(`${what} Error ${JSON.stringify(error).slice(0, 160)}`);
}

export const deepgramListen: SoakRow = {
  name: "Deepgram /v1/listen",
  async call(box) {
    const steps: Step[] = [];
    for (let at = 0; at < box.pcm.length; at += 3200) steps.push(box.pcm.subarray(at, at + 3200));
    steps.push(JSON.stringify({ type: "CloseStream" }));
    const record = await session(
      box,
      "/v1/listen?encoding=linear16&sample_rate=16000&language=ar&interim_results=true",
      { authorization: `Token ${box.key}` },
      steps,
    );
    const busy = deepgramEnd(record, "listen");
    if (busy) return busy;
    const finals = objects(record)
      .filter((t) => t.type === "Results" && t.is_final)
      .map((t) => t.channel.alternatives[0].transcript as string)
      .join(" ")
      .trim();
    if (finals !== "مرحبا") throw new Breach(`listen read ${JSON.stringify(finals)}`);
    if (objects(record).at(-1)?.type !== "Metadata" || record.code !== 1000)
      throw new Breach(`listen ended ${record.code} after ${objects(record).at(-1)?.type}`);
    return "final";
  },
};

export const deepgramSpeak: SoakRow = {
  name: "Deepgram /v1/speak",
  async call(box, i) {
    const record = await session(
      box,
      "/v1/speak?encoding=linear16&sample_rate=16000",
      { authorization: `Token ${box.key}` },
      [
        JSON.stringify({ type: "Speak", text: `${TEXT} ${i % 10}` }),
        JSON.stringify({ type: "Flush" }),
        JSON.stringify({ type: "Close" }),
      ],
    );
    const busy = deepgramEnd(record, "speak");
    if (busy) return busy;
    const types = objects(record).map((t) => t.type);
    if (types[0] !== "Metadata" || !types.includes("Flushed")) throw new Breach(`speak answered ${types.join(",")}`);
    if (record.binaryBytes < 100) throw new Breach(`speak gave ${record.binaryBytes} bytes`);
    if (record.code !== 1000) throw new Breach(`speak closed ${record.code}`);
    return "flushed";
  },
};

export const elevenLabsStreamInput: SoakRow = {
  name: "ElevenLabs stream-input",
  async call(box, i) {
    const record = await session(
      box,
      "/v1/text-to-speech/yara/stream-input?output_format=pcm_16000",
      { "xi-api-key": box.key },
      [
        JSON.stringify({ text: " " }),
        JSON.stringify({ text: `${TEXT} ${i % 10}`, flush: true }),
        JSON.stringify({ text: "" }),
      ],
    );
    const messages = objects(record);
    const error = messages.find((t) => typeof t.error === "string");
    if (error) {
      if (/system_busy|too_many_concurrent_requests/.test(String(error.error))) return "busy";
      throw new Breach(`stream-input error ${JSON.stringify(error).slice(0, 160)}`);
    }
    const audio = messages.filter((t) => typeof t.audio === "string");
    if (audio.length === 0 || !audio.some((a) => Array.isArray(a.alignment?.chars)))
      throw new Breach(`stream-input gave ${audio.length} audio messages, none aligned`);
    if (messages.at(-1)?.isFinal !== true || record.code !== 1000)
      throw new Breach(`stream-input ended ${record.code} without isFinal`);
    return "final";
  },
};
