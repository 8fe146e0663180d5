/**
 * SSML marks on the call doors (issue 41 with issue 40's speech stream), against a real `sawt
 * serve`: a `say` whose SSML has a mark at its start and one between two sentences. On AudioSocket
 * (a peer that plays what it receives) each `mark` event comes as the frame holding the mark
 * arrives: the start's before the second frame, the other's within a frame of the first
 * sentence's end, whose length is REST's `pcm` of that sentence alone. On chan_websocket (a peer
 * with a queue, ./chan-websocket-client.ts) each mark is a `MARK_MEDIA` in line with the media at
 * that place, and the `mark` event (and the prompt's `playback.done`, after its own MARK_MEDIA)
 * comes only once the client, playing Asterisk, answers `MEDIA_MARK_PROCESSED`.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { silence } from "../asr/support.ts";
import { ChanWebsocketClient } from "./chan-websocket-client.ts";
import {
  audioSocketCall,
  callOpen,
  type CallServer,
  PHONE_TEXTS,
  restPcm,
  startCallServer,
  watchCall,
} from "./support.ts";

let server: CallServer;

beforeAll(async () => {
  server = await startCallServer();
});

afterAll(async () => {
  await server?.stop();
});

const FIRST = `${PHONE_TEXTS[0]}.`;
const SSML = `<speak><mark name="start"/>${FIRST} <mark name="next"/>${PHONE_TEXTS[2]}.</speak>`;
/** Slack for two sockets' arrival order on a loaded machine (the frames come 20 ms apart). */
const SLACK_MS = 5;

test("AudioSocket: does send a mark event at the start and at the first sentence's end, within a frame", async () => {
  const { id, peer, app } = await audioSocketCall(server, 8000);
  const caller = peer.stream(silence(6, 8000), 8000);
  app.sendJson({ type: "say", ssml: SSML, context: "menu" });
  const done = await app.next("playback.done");
  const marks = app.events.flatMap((e, i) => (e.type === "mark" ? [{ event: e, at: app.times[i]! }] : []));
  expect(marks.map((m) => m.event)).toEqual([
    { type: "mark", call_id: id, context: "menu", name: "start" },
    { type: "mark", call_id: id, context: "menu", name: "next" },
  ]);
  expect(done).toMatchObject({ context: "menu" });
  const frames = peer.frames.filter((f) => f.kind === 0x10);
  // The marks say nothing: the audio is REST's for the document.
  const whole = await restPcm(server, SSML, 8000);
  expect(Buffer.from(peer.audio(0x10).subarray(0, whole.length)).equals(Buffer.from(whole))).toBe(true);
  // At 0: with the first frame, before the second.
  expect(marks[0]!.at).toBeGreaterThanOrEqual(frames[0]!.at - SLACK_MS);
  expect(marks[0]!.at).toBeLessThanOrEqual(frames[1]!.at + SLACK_MS);
  // The frame holding the first sentence's last byte: the mark came between its neighbours.
  const first = (await restPcm(server, FIRST, 8000)).length;
  const k = Math.floor((first - 1) / 320);
  expect(marks[1]!.at).toBeGreaterThanOrEqual(frames[k - 1]!.at - SLACK_MS);
  expect(marks[1]!.at).toBeLessThanOrEqual(frames[k + 1]!.at + SLACK_MS);
  await caller;
  peer.close();
  await app.next("call.ended");
}, 60_000);

describe.each([
  ["ulaw", false, "pcm_mulaw"],
  ["slin16", true, "pcm_s16le"],
] as const)("chan_websocket in %s with JSON control %p", (format, json, encoding) => {
  test("does send MARK_MEDIA at each SSML mark in line with the media, and each mark event only at MEDIA_MARK_PROCESSED", async () => {
    const asterisk = await ChanWebsocketClient.dial(server.sawt.baseUrl, { format, json });
    await callOpen(server, asterisk.channelId);
    const app = await watchCall(server, asterisk.channelId);
    const rate = format === "ulaw" ? 8000 : 16000;
    // Asked first: an unanswered mark settles on its own after 5 s, so the answers below must come sooner.
    const first = (await restPcm(server, FIRST, rate, encoding)).length;
    const caller = asterisk.stream(silence(6, rate));
    app.sendJson({ type: "say", ssml: SSML, context: "menu" });
    const mediaBefore = (at: number) =>
      asterisk.media.filter((m) => m.at < at).reduce((bytes, m) => bytes + m.bytes.length, 0);
    // The start's follows the prompt's first frame, sent once the first sentence exists.
    const start = await asterisk.next("MARK_MEDIA");
    expect(mediaBefore(start.at)).toBe(asterisk.frameBytes);
    const next = await asterisk.next("MARK_MEDIA", 2);
    expect(Math.abs(mediaBefore(next.at) - first)).toBeLessThanOrEqual(asterisk.frameBytes);
    // Asterisk has played neither yet: no mark event.
    await Bun.sleep(300);
    expect(app.events.some((e) => e.type === "mark")).toBe(false);
    asterisk.markProcessed(start.id!);
    expect(await app.next("mark")).toMatchObject({ context: "menu", name: "start" });
    await Bun.sleep(200);
    expect(app.events.filter((e) => e.type === "mark").length).toBe(1);
    asterisk.markProcessed(next.id!);
    expect(await app.next("mark", 2)).toMatchObject({ context: "menu", name: "next" });
    // The prompt's own mark follows its last frame; playback.done waits for its answer.
    const end = await asterisk.next("MARK_MEDIA", 3);
    expect(mediaBefore(end.at)).toBe(asterisk.audio().length);
    await Bun.sleep(300);
    expect(app.events.some((e) => e.type === "playback.done")).toBe(false);
    asterisk.markProcessed(end.id!);
    expect(await app.next("playback.done")).toMatchObject({ context: "menu" });
    await caller;
    asterisk.hangup();
    await app.next("call.ended");
  }, 60_000);
});
