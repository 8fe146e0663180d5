import { expect, test } from "bun:test";
import { command, correlationId, param, parseEvent } from "./control.ts";

test("does read chan_websocket's plain-text events", () => {
  const start = parseEvent(
    "MEDIA_START connection_id:sawt channel:WebSocket/sawt/0x5140 channel_id:pbx1-1761245643.1 format:ulaw optimal_frame_size:160 ptime:20",
  )!;
  expect(start).toMatchObject({ event: "MEDIA_START", json: false });
  expect([param(start, "channel_id"), param(start, "format"), param(start, "optimal_frame_size")]).toEqual([
    "pbx1-1761245643.1",
    "ulaw",
    "160",
  ]);
  expect(param(parseEvent("DTMF_END digit:5 channel_id:1.2")!, "digit")).toBe("5");
  expect(correlationId(parseEvent("MEDIA_MARK_PROCESSED menu#3")!)).toBe("menu#3");
  expect(parseEvent("MEDIA_XOFF")).toMatchObject({ event: "MEDIA_XOFF" });
  expect(parseEvent("not an event")).toBeUndefined();
});

test("does read its JSON events, given as text or already parsed", () => {
  const mark = { event: "MEDIA_MARK_PROCESSED", channel_id: "1.2", correlation_id: "welcome#1" };
  expect(correlationId(parseEvent(JSON.stringify(mark))!)).toBe("welcome#1");
  const start = parseEvent({ event: "MEDIA_START", optimal_frame_size: 640, channel_variables: { SAWT_KEY_ID: "k" } })!;
  expect(start.json).toBe(true);
  expect(param(start, "optimal_frame_size")).toBe("640");
  expect(parseEvent({ command: "HANGUP" })).toBeUndefined();
});

test("does write commands in the call's format", () => {
  expect(command("MARK_MEDIA", false, "greeting#1")).toBe("MARK_MEDIA greeting#1");
  expect(command("FLUSH_MEDIA", false)).toBe("FLUSH_MEDIA");
  expect(JSON.parse(command("MARK_MEDIA", true, "greeting#1"))).toEqual({
    command: "MARK_MEDIA",
    correlation_id: "greeting#1",
  });
  expect(JSON.parse(command("HANGUP", true))).toEqual({ command: "HANGUP" });
});
