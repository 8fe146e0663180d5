/**
 * The AudioSocket door (issue 41, acceptance 1) against a real `sawt serve`, with a peer that
 * streams as Asterisk does (./support.ts: the UUID, 20 ms frames on the wall clock, a DTMF frame,
 * then the connection closing, or the 0x00 frame): the caller's `transcript.final` events on
 * `/v1/calls/{uuid}` equal Sawt's REST transcript of the same audio at 8 and 16 kHz; `say` comes
 * back in frames whose audio is REST's `pcm` at 8 kHz; `clear` stops the audio within a frame;
 * `text` sent a few words at a time plays as REST speaks the whole text, starting before the
 * flush; two contexts, one cleared while the other plays on; the end-of-call webhook carries both
 * sides and verifies; the transcript is retrievable in every format, by the call's key only.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { verifyWebhook } from "../../src/webhooks/signature.ts";
import { webhookReceiver } from "../asr/jobs/support.ts";
import { silence } from "../asr/support.ts";
import { connect } from "../asr/ws-client.ts";
import { until } from "../support/sawt.ts";
import {
  audioSocketCall,
  callerAudio,
  type CallServer,
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

const call = (rate: number) => audioSocketCall(server, rate);

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

/** Whole 20 ms frames at 8 kHz: REST's bytes, then silence to the frame's end. */
const padded = (pcm: Uint8Array) => Buffer.concat([pcm, new Uint8Array((320 - (pcm.length % 320)) % 320)]);

describe("streamed text (an LLM's output)", () => {
  test("does start speaking before the flush, and play the text sent a few words at a time as REST speaks the whole text", async () => {
    const { id, peer, app } = await call(8000);
    const caller = peer.stream(silence(8, 8000), 8000);
    const pieces = ["مرحبا", " بك.", " شكرا", " لك.", " سلام", " عليكم"];
    for (const piece of pieces) {
      app.sendJson({ type: "text", text: piece, context: "llm" });
      await Bun.sleep(50);
    }
    // The first sentences are whole: they play while the last one waits for its end.
    await until(() => peer.frames.some((f) => f.kind === 0x10), "the first sentence's frames before the flush");
    expect(app.events.some((e) => e.type === "playback.done")).toBe(false);
    app.sendJson({ type: "text", text: "", flush: true, context: "llm" });
    const done = await app.next("playback.done");
    const whole = pieces.join("");
    const sent = peer.audio(0x10);
    expect(Buffer.from(sent).equals(padded(await restPcm(server, whole, 8000)))).toBe(true);
    expect(done).toEqual({ type: "playback.done", call_id: id, context: "llm", ms_played: (sent.length / 320) * 20 });
    // One turn, one prompt: the bot's side of the transcript has the whole text.
    const transcript = await fetch(`${server.sawt.baseUrl}/v1/calls/${id}/transcript?format=json`, {
      headers: { "x-api-key": server.key },
    });
    expect(((await transcript.json()) as { text: string }).text).toBe(whole);
    await caller;
    peer.close();
    await app.next("call.ended");
  }, 60_000);
});

describe("two contexts on one call", () => {
  test("does clear one while the other plays on, in arrival order", async () => {
    const { peer, app } = await call(8000);
    const caller = peer.stream(silence(6, 8000), 8000);
    const frames = () => peer.frames.filter((f) => f.kind === 0x10);
    const long = Array.from({ length: 8 }, () => PHONE_TEXTS[0]).join(". ");
    app.sendJson({ type: "say", text: long, context: "menu" });
    app.sendJson({ type: "say", text: PHONE_TEXTS[1], context: "info" });
    await until(() => frames().length >= 10, "the menu's first frames");
    // The queued context is cleared: it was heard for 0 ms, and the menu goes on.
    app.sendJson({ type: "clear", context: "info" });
    expect(await app.next("playback.done")).toMatchObject({ context: "info", ms_played: 0, cleared: true });
    const before = frames().length;
    await until(() => frames().length >= before + 10, "the menu's frames after the other context's clear");
    app.sendJson({ type: "say", text: PHONE_TEXTS[2], context: "info" });
    await Bun.sleep(100);
    // Now the menu is cleared mid-prompt: the info prompt queued behind it plays in full.
    const clearAt = performance.now();
    app.sendJson({ type: "clear", context: "menu" });
    const menu = await app.next("playback.done", 2);
    expect(menu).toMatchObject({ context: "menu", cleared: true });
    const info = await app.next("playback.done", 3);
    expect(info.context).toBe("info");
    expect(info.cleared).toBeUndefined();
    // After the clear: at most the menu's frame on its way, then the info prompt, REST's as a call's first prompt would be.
    const after = frames().filter((f) => f.at > clearAt);
    const rest = padded(await restPcm(server, PHONE_TEXTS[2], 8000));
    const tail = Buffer.concat(after.map((f) => f.payload));
    expect(tail.length - rest.length).toBeGreaterThanOrEqual(0);
    expect(tail.length - rest.length).toBeLessThanOrEqual(320);
    expect(Buffer.from(tail.subarray(tail.length - rest.length)).equals(rest)).toBe(true);
    expect(info.ms_played).toBe((rest.length / 320) * 20);
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
