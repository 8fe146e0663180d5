/**
 * THE table of ASR doors (issue 37, acceptance 1): every door that returns a transcript, each as
 * one row that sends 16 kHz audio through that door's own wire with no formatting or phrase
 * options of its own, and gives back every text the door answered with. The policy tests
 * (./doors.test.ts) check the key's policy on each row alike: the server's redaction floor and
 * the key's phrase list. A new door is one more row.
 */
import type * as grpc from "@grpc/grpc-js";
import { createSocket } from "node:dgram";
import { connect as tcpConnect } from "node:net";
import { join } from "node:path";
import { buildRtp } from "../../../src/media/rtp-packet.ts";
import { bearer, clients, collect, unary } from "../../grpc/client.ts";
import { answerOf, MrcpConnection, offer, SipClient } from "../../mrcp/client.ts";
import { type SawtProcess, tempDir, until } from "../../support/sawt.ts";
import { cueTexts, pcm16, textFields } from "../format-support.ts";
import { api, submitUploads, waitForJob } from "../jobs/support.ts";
import { encodeFile, ENCODINGS } from "../support.ts";
import { connect, realtimeSession } from "../ws-client.ts";

/** A running server the rows call: its process, a key, and its MRCP SIP port (MRCP mapped to that key). */
export interface PolicyServer {
  readonly sawt: SawtProcess;
  readonly key: string;
  readonly sipPort: number;
}

/** One door: the texts it answers for `audio` (16 kHz mono). */
export interface DoorRow {
  readonly door: string;
  transcribe(server: PolicyServer, audio: Float32Array): Promise<string[]>;
}

const work = tempDir("sawt-policy-doors-");

/** The audio as a WAV upload file. */
function wavFile(audio: Float32Array): string {
  return encodeFile(audio, 16000, join(work.path, `call-${Math.random().toString(36).slice(2)}.wav`), ENCODINGS.wav!);
}

/** A REST transcription of `audio` in `format`, the texts of its answer. */
function rest(format: string): DoorRow {
  return {
    door: `REST ${format}`,
    async transcribe({ sawt, key }, audio) {
      const form = new FormData();
      form.append("file", Bun.file(wavFile(audio)), "call.wav");
      form.append("response_format", format);
      const response = await fetch(`${sawt.baseUrl}/v1/asr/audio/transcriptions`, {
        method: "POST",
        headers: { "x-api-key": key },
        body: form,
      });
      if (response.status !== 200) throw new Error(`REST ${format}: ${response.status} ${await response.text()}`);
      const body = await response.text();
      return format.endsWith("json") ? textFields(JSON.parse(body)) : format === "text" ? [body] : cueTexts(body);
    },
  };
}

/** REST `stream=true`: every delta and the done event. */
const sse: DoorRow = {
  door: "REST stream=true (SSE)",
  async transcribe({ sawt, key }, audio) {
    const form = new FormData();
    form.append("file", Bun.file(wavFile(audio)), "call.wav");
    form.append("stream", "true");
    const response = await fetch(`${sawt.baseUrl}/v1/asr/audio/transcriptions`, {
      method: "POST",
      headers: { "x-api-key": key },
      body: form,
    });
    const events = (await response.text())
      .split("\n\n")
      .filter((chunk) => chunk.startsWith("data: "))
      .map((chunk) => JSON.parse(chunk.slice(6)));
    return textFields(events);
  },
};

/** The OpenAI Realtime transcription door, server VAD, the audio then a second of silence. */
const realtime: DoorRow = {
  door: "realtime (OpenAI Realtime)",
  async transcribe({ sawt, key }, audio) {
    const client = await realtimeSession(sawt.baseUrl, key, {
      type: "transcription",
      audio: { input: { format: { type: "audio/pcm", rate: 16000 } } },
    });
    const pcm = pcm16(audio);
    for (let at = 0; at < pcm.length; at += 3200)
      client.sendJson({ type: "input_audio_buffer.append", audio: pcm.subarray(at, at + 3200).toString("base64") });
    await until(() => client.events.some((e) => e.type === "input_audio_buffer.speech_stopped") || undefined, "speech");
    const done = client.events.filter((e) => e.type === "input_audio_buffer.committed").length;
    await until(
      () =>
        client.events.filter((e) => e.type === "conversation.item.input_audio_transcription.completed").length >=
          done || undefined,
      "every committed item's transcript",
    );
    client.ws.close();
    return textFields(client.events);
  },
};

/** jambonz's custom STT door: start, raw audio, stop. */
const jambonz: DoorRow = {
  door: "jambonz",
  async transcribe({ sawt, key }, audio) {
    const client = await connect(`${sawt.baseUrl.replace(/^http/, "ws")}/v1/asr/jambonz`, {
      headers: { authorization: `Bearer ${key}` },
    });
    client.sendJson({ type: "start", format: "raw", encoding: "LINEAR16", sampleRateHz: 16000, interimResults: true });
    const pcm = pcm16(audio);
    for (let at = 0; at < pcm.length; at += 16000) client.ws.send(pcm.subarray(at, at + 16000));
    client.sendJson({ type: "stop" });
    await client.closed;
    return textFields(client.events);
  },
};

/** The texts of Deepgram's messages and answers, its `punctuated_word` included. */
const deepgramTexts = (value: unknown) =>
  textFields(value, ["text", "text_spoken", "word", "punctuated_word", "transcript", "delta"]);

/** Deepgram's live door (`GET /v1/listen`), raw linear16 with interim results, closed by CloseStream. */
const deepgramLive: DoorRow = {
  door: "Deepgram /v1/listen (WebSocket)",
  async transcribe({ sawt, key }, audio) {
    const query = "encoding=linear16&sample_rate=16000&interim_results=true";
    const client = await connect(`${sawt.baseUrl.replace(/^http/, "ws")}/v1/listen?${query}`, {
      headers: { authorization: `Token ${key}` },
    });
    const pcm = pcm16(audio);
    for (let at = 0; at < pcm.length; at += 6400) client.ws.send(pcm.subarray(at, at + 6400));
    client.sendJson({ type: "CloseStream" });
    const closed = await client.closed;
    if (closed.code !== 1000) throw new Error(`Deepgram live: closed ${closed.code} ${closed.reason}`);
    return deepgramTexts(client.events);
  },
};

/** Deepgram's pre-recorded door (`POST /v1/listen`), a WAV body. */
const deepgramPrerecorded: DoorRow = {
  door: "Deepgram POST /v1/listen",
  async transcribe({ sawt, key }, audio) {
    const response = await fetch(`${sawt.baseUrl}/v1/listen?utterances=true`, {
      method: "POST",
      headers: { authorization: `Token ${key}`, "content-type": "audio/wav" },
      body: Bun.file(wavFile(audio)),
    });
    if (response.status !== 200) throw new Error(`Deepgram POST: ${response.status} ${await response.text()}`);
    return deepgramTexts(await response.json());
  },
};

/** gRPC Recognize. */
const grpcRecognize: DoorRow = {
  door: "gRPC Recognize",
  async transcribe({ sawt, key }, audio) {
    const port = clients(sawt.ports.grpc_asr);
    try {
      const config = { encoding: "LINEAR_PCM", sample_rate_hz: 16000 };
      const outcome = await unary(port.asr, "Recognize", { config, audio: pcm16(audio) }, bearer(key));
      if (outcome.error) throw outcome.error;
      return textFields(outcome.response);
    } finally {
      port.close();
    }
  },
};

/** gRPC StreamingRecognize, interim results on. */
const grpcStreaming: DoorRow = {
  door: "gRPC StreamingRecognize",
  async transcribe({ sawt, key }, audio) {
    const port = clients(sawt.ports.grpc_asr);
    try {
      const call = port.asr.StreamingRecognize(bearer(key)) as grpc.ClientDuplexStream<object, { results: unknown[] }>;
      const done = collect(call);
      call.write({
        streaming_config: { config: { encoding: "LINEAR_PCM", sample_rate_hz: 16000 }, interim_results: true },
      });
      const pcm = pcm16(audio);
      for (let at = 0; at < pcm.length; at += 6400) call.write({ audio_content: pcm.subarray(at, at + 6400) });
      call.end();
      const { messages, error } = await done;
      if (error) throw error;
      return textFields(messages);
    } finally {
      port.close();
    }
  },
};

/** MRCP `builtin:speech/transcribe` over L16 16 kHz RTP: the NLSML instance and input. */
const mrcp: DoorRow = {
  door: "MRCP builtin:speech/transcribe (NLSML)",
  async transcribe({ sipPort }, audio) {
    const rtp = createSocket("udp4");
    await new Promise<void>((resolve) => rtp.bind(0, "127.0.0.1", () => resolve()));
    const sip = await SipClient.open(sipPort);
    const body = offer(["speechrecog"], rtp.address().port, "96 101")
      .replace("a=rtpmap:96 L16/8000", "a=rtpmap:96 L16/16000")
      .replace("telephone-event/8000", "telephone-event/16000");
    sip.raw(sip.request("INVITE", { body }));
    const answer = await sip.next();
    if (answer.status !== 200) throw new Error(`INVITE: ${answer.status}`);
    const tag = /tag=([^;\s]+)/.exec(answer.header("to")!)![1]!;
    sip.raw(sip.request("ACK", { toTag: tag, cseq: 1 }));
    const { channel, mrcpPort, audioPort } = answerOf(answer.text);
    const control = await MrcpConnection.open(mrcpPort);
    try {
      control.send("RECOGNIZE", 1, channel, { "Content-Type": "text/uri-list" }, "builtin:speech/transcribe");
      await control.next(/ 1 200 IN-PROGRESS/);
      const pcm = pcm16(audio);
      // L16 is big-endian on the wire; 20 ms packets, a little faster than real time.
      for (let at = 0, n = 0; at < pcm.length; at += 640, n++) {
        const payload = new Uint8Array(pcm.subarray(at, at + 640));
        for (let i = 0; i + 1 < payload.length; i += 2) [payload[i], payload[i + 1]] = [payload[i + 1]!, payload[i]!];
        rtp.send(
          buildRtp({ payloadType: 96, marker: n === 0, sequence: n, timestamp: n * 320, ssrc: 9 }, payload),
          audioPort,
          "127.0.0.1",
        );
        if (n % 5 === 4) await Bun.sleep(50);
      }
      const complete = await control.next(/RECOGNITION-COMPLETE 1 COMPLETE/, 30_000);
      const nlsml = complete.slice(complete.indexOf("<?xml"));
      return [...nlsml.matchAll(/<(instance|input)[^>]*>([^<]*)<\/\1>/g)].map((m) => m[2]!);
    } finally {
      sip.raw(sip.request("BYE", { toTag: tag }));
      await sip.next().catch(() => undefined);
      control.close();
      sip.close();
      rtp.close();
    }
  },
};

/**
 * A call on the AudioSocket door (16 kHz, kind 0x12) watched on the call API's WebSocket: every
 * partial and final, and the stored transcript (both sides) once the call ended.
 */
const audiosocket: DoorRow = {
  door: "AudioSocket call + the call API WebSocket",
  async transcribe({ sawt, key }, audio) {
    const id = crypto.randomUUID();
    const socket = tcpConnect({ host: "127.0.0.1", port: sawt.ports.audiosocket! });
    socket.on("error", () => undefined);
    await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
    const frame = (kind: number, payload: Uint8Array) =>
      socket.write(Buffer.concat([Uint8Array.of(kind, payload.length >> 8, payload.length & 0xff), payload]));
    frame(0x01, Buffer.from(id.replace(/-/g, ""), "hex"));
    const pcm = pcm16(audio);
    frame(0x12, pcm.subarray(0, 640));
    const headers = { "x-api-key": key };
    await until(async () => {
      const list = (await (await fetch(`${sawt.baseUrl}/v1/calls`, { headers })).json()) as { data: { id: string }[] };
      return list.data.some((call) => call.id === id);
    }, "the call to open");
    const app = await connect(`${sawt.baseUrl.replace(/^http/, "ws")}/v1/calls/${id}`, { headers });
    // 20 ms frames, four times faster than real time (the live core buffers the rest).
    for (let at = 640, n = 0; at < pcm.length; at += 640, n++) {
      frame(0x12, pcm.subarray(at, at + 640));
      if (n % 10 === 9) await Bun.sleep(50);
    }
    socket.end();
    await app.next("call.ended");
    const stored = await fetch(`${sawt.baseUrl}/v1/calls/${id}/transcript?format=verbose_json`, { headers });
    return [...textFields(app.events), ...textFields(await stored.json())];
  },
};

/** A transcription job of the one file: its result in verbose_json. */
const job: DoorRow = {
  door: "transcription job",
  async transcribe({ sawt, key }, audio) {
    const submitted = await submitUploads(sawt, key, [wavFile(audio)]);
    if (submitted.status !== 202) throw new Error(`job: ${submitted.status} ${submitted.text}`);
    const done = await waitForJob(sawt, key, submitted.json.id);
    if (done.status !== "completed") throw new Error(`job ended ${done.status}`);
    const result = await api(
      sawt,
      key,
      `/v1/asr/jobs/${submitted.json.id}/files/file_0001/result?response_format=verbose_json`,
    );
    return textFields(result.json);
  },
};

/** Every door, in one table. */
export const DOORS: readonly DoorRow[] = [
  rest("json"),
  rest("verbose_json"),
  rest("text"),
  rest("srt"),
  rest("vtt"),
  rest("diarized_json"),
  sse,
  realtime,
  jambonz,
  deepgramLive,
  deepgramPrerecorded,
  grpcRecognize,
  grpcStreaming,
  mrcp,
  audiosocket,
  job,
];

/** Removes the uploads the rows wrote. */
export function removeDoorFiles(): void {
  work.remove();
}
