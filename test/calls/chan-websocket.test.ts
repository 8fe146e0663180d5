/**
 * The chan_websocket door (issue 41, acceptance 2) against a real `sawt serve`, with a client that
 * plays Asterisk from its documented messages (./chan-websocket-client.ts): in ulaw with plain-text
 * control and in slin16 with JSON control, the caller's finals equal REST's transcript; `say`
 * comes back as media in optimal_frame_size pieces equal to REST's `pcm` in the call's encoding,
 * then `MARK_MEDIA`, and `playback.done` only once the client answers `MEDIA_MARK_PROCESSED`;
 * `clear` sends `FLUSH_MEDIA`; nothing is sent between `MEDIA_XOFF` and `MEDIA_XON`; `DTMF_END`
 * becomes a `dtmf` event; `hangup` sends `HANGUP`; `SAWT_KEY_ID` picks the call's key.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { silence } from "../asr/support.ts";
import { until } from "../support/sawt.ts";
import { ChanWebsocketClient } from "./chan-websocket-client.ts";
import {
  type CallServer,
  callerAudio,
  callOpen,
  PHONE_TEXTS,
  restPcm,
  restTranscript,
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

const finals = (events: any[]) => events.filter((e) => e.type === "transcript.final").map((e) => e.text);

describe.each([
  ["ulaw", false, 8000, "pcm_mulaw", 0xff],
  ["slin16", true, 16000, "pcm_s16le", 0],
] as const)("a %s call with JSON control %p", (format, json, rate, encoding, silenceByte) => {
  test("does transcribe the caller as REST does, report DTMF_END, and end when the socket closes", async () => {
    const asterisk = await ChanWebsocketClient.dial(server.sawt.baseUrl, { format, json });
    await callOpen(server, asterisk.channelId);
    const app = await watchCall(server, asterisk.channelId);
    expect(await app.next("call.started")).toMatchObject({ door: "chan_websocket", format, sample_rate: rate });
    const audio = callerAudio([PHONE_TEXTS[0]], rate);
    await asterisk.stream(audio);
    asterisk.dtmf("4");
    expect(await app.next("dtmf")).toMatchObject({ digit: "4" });
    asterisk.hangup();
    expect(await app.next("call.ended")).toMatchObject({ reason: "hangup" });
    expect(finals(app.events).join(" ")).toBe(await restTranscript(server, audio, rate));
  }, 60_000);

  test("does send say's audio in optimal_frame_size pieces, MARK_MEDIA after it, and playback.done only at MEDIA_MARK_PROCESSED", async () => {
    const asterisk = await ChanWebsocketClient.dial(server.sawt.baseUrl, { format, json });
    await callOpen(server, asterisk.channelId);
    const app = await watchCall(server, asterisk.channelId);
    const caller = asterisk.stream(silence(5, rate));
    app.sendJson({ type: "say", text: PHONE_TEXTS[1], context: "welcome" });
    const mark = await asterisk.next("MARK_MEDIA");
    expect(asterisk.media.every((m) => m.bytes.length === asterisk.frameBytes)).toBe(true);
    expect(asterisk.media.every((m) => m.at <= mark.at)).toBe(true);
    const rest = await restPcm(server, PHONE_TEXTS[1], rate, encoding);
    const sent = asterisk.audio();
    expect(Buffer.from(sent.subarray(0, rest.length)).equals(Buffer.from(rest))).toBe(true);
    expect(sent.subarray(rest.length).every((b) => b === silenceByte)).toBe(true);
    // Asterisk has not played the mark yet: no playback.done.
    await Bun.sleep(1000);
    expect(app.events.some((e) => e.type === "playback.done")).toBe(false);
    asterisk.markProcessed(mark.id!);
    const done = await app.next("playback.done");
    expect(done).toMatchObject({ context: "welcome", ms_played: (sent.length / asterisk.frameBytes) * 20 });
    await caller;
    asterisk.hangup();
    await app.next("call.ended");
  }, 60_000);

  test("does send FLUSH_MEDIA at clear, nothing between MEDIA_XOFF and MEDIA_XON, and HANGUP at hangup", async () => {
    const asterisk = await ChanWebsocketClient.dial(server.sawt.baseUrl, { format, json });
    await callOpen(server, asterisk.channelId);
    const app = await watchCall(server, asterisk.channelId);
    const caller = asterisk.stream(silence(6, rate));
    app.sendJson({ type: "say", text: Array.from({ length: 8 }, () => PHONE_TEXTS[0]).join(". ") });
    await until(() => asterisk.media.length >= 10, "the prompt's first frames");
    asterisk.event("MEDIA_XOFF");
    // Frames already on their way when XOFF left may still arrive; then nothing until XON.
    await Bun.sleep(100);
    const held = asterisk.media.length;
    await Bun.sleep(800);
    expect(asterisk.media.length).toBe(held);
    asterisk.event("MEDIA_XON");
    await until(() => asterisk.media.length > held + 5, "frames after MEDIA_XON");
    app.sendJson({ type: "clear" });
    const flush = await asterisk.next("FLUSH_MEDIA");
    expect(await app.next("playback.done")).toMatchObject({ cleared: true });
    await Bun.sleep(200);
    expect(asterisk.media.filter((m) => m.at > flush.at).length).toBe(0);
    app.sendJson({ type: "hangup" });
    await asterisk.next("HANGUP");
    expect(await app.next("call.ended")).toMatchObject({ reason: "command" });
    await caller;
    asterisk.hangup();
  }, 60_000);
});

test("does map a JSON call to the key its SAWT_KEY_ID channel variable names", async () => {
  const other = await server.sawt.createKey({ name: "pbx-tenant" });
  const asterisk = await ChanWebsocketClient.dial(server.sawt.baseUrl, {
    format: "slin16",
    json: true,
    variables: { __SAWT_KEY_ID: other.id },
  });
  const list = async (key: string) =>
    (
      (await (await fetch(`${server.sawt.baseUrl}/v1/calls`, { headers: { "x-api-key": key } })).json()) as {
        data: { id: string }[];
      }
    ).data.map((c) => c.id);
  await until(async () => (await list(other.key)).includes(asterisk.channelId), "the call on the tenant's key");
  expect(await list(server.key)).not.toContain(asterisk.channelId);
  asterisk.hangup();
  await asterisk.closed;
});
