/**
 * The AudioSocket door (issue 41, acceptance 1) against a real `sawt serve`, with a peer that
 * streams as Asterisk does (./support.ts: the UUID, 20 ms frames on the wall clock, a DTMF frame,
 * then the connection closing, or the 0x00 frame): the caller's `transcript.final` events on
 * `/v1/calls/{uuid}` equal Sawt's REST transcript of the same audio at 8 and 16 kHz; `say` comes
 * back in frames whose audio is REST's `pcm` at 8 kHz; `clear` stops the audio within a frame; the
 * end-of-call webhook carries both sides and verifies; the transcript is retrievable in every
 * format, by the call's key only.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { verifyWebhook } from "../../src/webhooks/signature.ts";
import { webhookReceiver } from "../asr/jobs/support.ts";
import { silence } from "../asr/support.ts";
import { connect } from "../asr/ws-client.ts";
import { until } from "../support/sawt.ts";
import {
  AudioSocketPeer,
  type CallServer,
  callerAudio,
  callOpen,
  newUuid,
  PHONE_TEXTS,
  restPcm,
  restTranscript,
  startCallServer,
  watchCall,
} from "./support.ts";

const SECRET = "whsec-calls-0123456789abcdef0123456789";
let receiver: ReturnType<typeof webhookReceiver>;
let server: CallServer;

beforeAll(async () => {
  receiver = webhookReceiver();
  server = await startCallServer({
    SAWT_CALLS_WEBHOOK_URL: `${receiver.url}/calls`,
    SAWT_CALLS_WEBHOOK_HOSTS: `127.0.0.1:${receiver.port}`,
    SAWT_JOBS_WEBHOOK_SECRET: SECRET,
  });
});

afterAll(async () => {
  receiver?.stop();
  await server?.stop();
});

/** Opens a call as Asterisk does (UUID, first frame) and the application's socket on it. */
async function call(rate: number) {
  const id = newUuid();
  const peer = await AudioSocketPeer.connect(server.audiosocket);
  peer.uuid(id);
  peer.audioFrame(new Uint8Array((rate / 50) * 2), rate);
  await callOpen(server, id);
  return { id, peer, app: await watchCall(server, id) };
}

const finals = (events: any[]) => events.filter((e) => e.type === "transcript.final").map((e) => e.text);

describe("a caller on AudioSocket", () => {
  test("does get transcript.final events equal to REST's transcript at 8 kHz on every watching socket, a dtmf event, and an end at the close", async () => {
    const feed = await connect(`${server.sawt.baseUrl.replace(/^http/, "ws")}/v1/calls`, {
      headers: { "x-api-key": server.key },
    });
    const { id, peer, app } = await call(8000);
    expect(await feed.next("call.started")).toMatchObject({ call_id: id, door: "audiosocket" });
    const recorder = await watchCall(server, id);
    expect(await app.next("call.started")).toMatchObject({ call_id: id, door: "audiosocket", format: "slin" });
    const audio = callerAudio(PHONE_TEXTS.slice(0, 2), 8000);
    await peer.stream(audio, 8000);
    peer.dtmf("7");
    await app.next("dtmf");
    peer.close();
    const ended = await app.next("call.ended");
    expect(ended).toEqual({ type: "call.ended", call_id: id, reason: "hangup" });
    expect(finals(app.events).join(" ")).toBe(await restTranscript(server, audio, 8000));
    expect(app.events.find((e) => e.type === "dtmf")).toEqual({ type: "dtmf", call_id: id, digit: "7" });
    expect((await app.closed).code).toBe(1000);
    // A second socket (a recorder beside the agent assist) heard the same.
    await recorder.next("call.ended");
    expect(finals(recorder.events)).toEqual(finals(app.events));
    feed.ws.close();
  }, 60_000);

  test("does the same at 16 kHz (kind 0x12) and ends at the 0x00 frame", async () => {
    const { id, peer, app } = await call(16000);
    expect(await app.next("call.started")).toMatchObject({ format: "slin16", sample_rate: 16000 });
    const audio = callerAudio([PHONE_TEXTS[2]], 16000);
    await peer.stream(audio, 16000);
    peer.hangupFrame();
    expect(await app.next("call.ended")).toEqual({ type: "call.ended", call_id: id, reason: "hangup" });
    expect(finals(app.events).join(" ")).toBe(await restTranscript(server, audio, 16000));
    await peer.closed;
  }, 60_000);
});

describe("Sawt speaking into an AudioSocket call", () => {
  test("does send say's audio in 0x10 frames equal to REST pcm at 8 kHz, then playback.done", async () => {
    const { id, peer, app } = await call(8000);
    const caller = peer.stream(silence(4, 8000), 8000);
    app.sendJson({ type: "say", text: PHONE_TEXTS[1], context: "greeting" });
    const done = await app.next("playback.done");
    const rest = await restPcm(server, PHONE_TEXTS[1], 8000);
    const sent = peer.audio(0x10);
    // Whole 20 ms frames: REST's bytes, then silence to the frame's end.
    expect(sent.length % 320).toBe(0);
    expect(Buffer.from(sent.subarray(0, rest.length)).equals(Buffer.from(rest))).toBe(true);
    expect(sent.subarray(rest.length).every((b) => b === 0)).toBe(true);
    expect(done).toEqual({
      type: "playback.done",
      call_id: id,
      context: "greeting",
      ms_played: (sent.length / 320) * 20,
    });
    // Paced in real time: the frames span about the audio's length (not a burst).
    const frames = peer.frames.filter((f) => f.kind === 0x10);
    expect(frames.at(-1)!.at - frames[0]!.at).toBeGreaterThan(((frames.length - 1) * 20) / 2);
    await caller;
    peer.close();
    await app.next("call.ended");
  }, 60_000);

  test("does stop within one frame at clear, with a shortened playback.done", async () => {
    const { peer, app } = await call(8000);
    const caller = peer.stream(silence(5, 8000), 8000);
    const long = Array.from({ length: 8 }, () => PHONE_TEXTS[0]).join(". ");
    app.sendJson({ type: "say", text: long, context: "menu" });
    await until(() => peer.frames.filter((f) => f.kind === 0x10).length >= 10, "the prompt's first frames");
    const clearAt = performance.now();
    const before = peer.frames.length;
    app.sendJson({ type: "clear" });
    const done = await app.next("playback.done");
    const ackAt = app.times[app.events.indexOf(done)]!;
    await Bun.sleep(300);
    const after = peer.frames.slice(before);
    // At most the frame already on its way when the clear arrived; none after Sawt answered it.
    expect(after.filter((f) => f.at > ackAt).length).toBe(0);
    expect(after.filter((f) => f.at > clearAt).length).toBeLessThanOrEqual(1);
    expect(done).toMatchObject({ context: "menu", cleared: true });
    expect(done.ms_played).toBeGreaterThan(0);
    expect(done.ms_played).toBeLessThan(8 * 1000);
    await caller;
    peer.close();
    await app.next("call.ended");
  }, 60_000);
});

describe("streamed text (an LLM's output)", () => {
  test("does speak each sentence as it completes and the rest at flush, as REST speaks them", async () => {
    const { peer, app } = await call(8000);
    const caller = peer.stream(silence(5, 8000), 8000);
    for (const piece of ["مرحبا", " بك\n", "شكرا"]) app.sendJson({ type: "text", text: piece, context: "llm" });
    const first = await app.next("playback.done");
    expect(first).toMatchObject({ context: "llm" });
    const spoken = peer.audio(0x10).length;
    app.sendJson({ type: "text", text: " لك", flush: true, context: "llm" });
    await app.next("playback.done", 2);
    const audio = peer.audio(0x10);
    const pad = (pcm: Uint8Array) => Buffer.concat([pcm, new Uint8Array((320 - (pcm.length % 320)) % 320)]);
    expect(Buffer.from(audio.subarray(0, spoken)).equals(pad(await restPcm(server, "مرحبا بك", 8000)))).toBe(true);
    expect(Buffer.from(audio.subarray(spoken)).equals(pad(await restPcm(server, "شكرا لك", 8000)))).toBe(true);
    await caller;
    peer.close();
    await app.next("call.ended");
  }, 60_000);
});

describe("after an AudioSocket call", () => {
  test("does send a signed call.ended webhook with both sides, and keeps the transcript for its key only", async () => {
    const { id, peer, app } = await call(8000);
    const audio = callerAudio([PHONE_TEXTS[0]], 8000);
    const caller = peer.stream(audio, 8000);
    await app.next("transcript.final");
    const say = await fetch(`${server.sawt.baseUrl}/v1/calls/${id}/say`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": server.key },
      body: JSON.stringify({ text: PHONE_TEXTS[2] }),
    });
    expect(await say.json()).toEqual({ call_id: id, accepted: "say" });
    await app.next("playback.done");
    await caller;
    peer.close();
    await app.next("call.ended");

    const hook = await until(() => receiver.received.find((r) => JSON.parse(r.body).call_id === id), "the webhook");
    expect(hook.event).toBe("call.ended");
    expect(verifyWebhook(SECRET, hook.signature, hook.body)).toBe(true);
    expect(verifyWebhook(SECRET, hook.signature, hook.body.replace(PHONE_TEXTS[0], "x"))).toBe(false);
    const body = JSON.parse(hook.body);
    expect(body).toMatchObject({ type: "call.ended", call_id: id, door: "audiosocket", reason: "hangup" });
    const speakers = body.transcript.segments.map((s: any) => [s.speaker, s.text]);
    expect(speakers).toEqual([
      ["caller", PHONE_TEXTS[0]],
      ["bot", PHONE_TEXTS[2]],
    ]);

    const get = (format: string, key = server.key) =>
      fetch(`${server.sawt.baseUrl}/v1/calls/${id}/transcript?format=${format}`, { headers: { "x-api-key": key } });
    const json = (await (await get("json")).json()) as { text: string };
    expect(json.text).toBe(`${PHONE_TEXTS[0]} ${PHONE_TEXTS[2]}`);
    const srt = await (await get("srt")).text();
    expect(srt).toContain(`caller: ${PHONE_TEXTS[0]}`);
    expect(srt).toContain(`bot: ${PHONE_TEXTS[2]}`);
    expect((await get("vtt")).headers.get("content-type")).toContain("text/vtt");
    const diarized = (await (await get("diarized_json")).json()) as { segments: { speaker: string }[] };
    expect(diarized.segments.map((s) => s.speaker)).toEqual(["caller", "bot"]);
    expect((await get("bogus")).status).toBe(422);
    const other = await server.sawt.createKey({ name: "other" });
    expect((await get("json", other.key)).status).toBe(404);
  }, 60_000);
});
