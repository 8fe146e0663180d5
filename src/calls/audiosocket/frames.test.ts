import { expect, test } from "bun:test";
import { audioKind, audioRate, encodeFrame, FrameError, FrameReader, MAX_PAYLOAD, uuidText } from "./frames.ts";

test("does read frames however the stream was cut", () => {
  const bytes = new Uint8Array([
    ...encodeFrame(0x01, new Uint8Array(16).fill(0xab)),
    ...encodeFrame(0x10, new Uint8Array(320)),
  ]);
  const reader = new FrameReader();
  const frames = [
    ...reader.push(bytes.subarray(0, 2)),
    ...reader.push(bytes.subarray(2, 30)),
    ...reader.push(bytes.subarray(30)),
  ];
  expect(frames.map((f) => [f.kind, f.payload.length])).toEqual([
    [0x01, 16],
    [0x10, 320],
  ]);
});

test("does refuse a payload over the bound as soon as its header is read", () => {
  const reader = new FrameReader();
  expect(() => reader.push(Uint8Array.of(0x10, (MAX_PAYLOAD + 1) >> 8, (MAX_PAYLOAD + 1) & 0xff))).toThrow(FrameError);
});

test("does name the kinds of res_audiosocket.h and the UUID as Asterisk prints it", () => {
  expect([0x10, 0x11, 0x12, 0x16, 0x18].map(audioRate)).toEqual([8000, 12000, 16000, 48000, 192000]);
  expect(audioRate(0x03)).toBeUndefined();
  expect(audioKind({ encoding: "pcm_s16le", sampleRate: 16000 })).toBe(0x12);
  const uuid = "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0";
  expect(uuidText(Buffer.from(uuid.replace(/-/g, ""), "hex"))).toBe(uuid);
  expect(uuidText(new Uint8Array(15))).toBeUndefined();
});
