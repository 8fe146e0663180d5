import { expect, test } from "bun:test";
import type { CallOutput } from "./prompt.ts";
import { Prompt } from "./prompt.ts";

/** A door that records what it was sent: 20 ms frames of 8 kHz linear PCM (320 bytes). */
function door(log: string[]): CallOutput {
  return {
    format: { encoding: "pcm_s16le", sampleRate: 8000 },
    leadMs: 0,
    send: (frame) => log.push(`frame ${frame.length} ${frame.at(-1)}`),
  };
}

function prompt(log: string[]) {
  let n = 0;
  return new Prompt("menu", "مرحبا", { mark: (name) => log.push(`mark ${name}`), markId: () => `menu#${++n}` });
}

test("does hold its context until it plays, then send whole frames with each mark after the audio before it", async () => {
  const log: string[] = [];
  const played = prompt(log);
  played.mark("start");
  const held = played.audio(new Uint8Array(480).fill(7));
  expect(held).toBeInstanceOf(Promise);
  played.mark("middle");
  let released = false;
  void held!.then(() => (released = true));
  await Bun.sleep(30);
  expect(released).toBe(false);
  const ended = played.play(
    door(log),
    () => performance.now(),
    () => undefined,
  );
  await Bun.sleep(0);
  expect(released).toBe(true);
  // Playing: the next bytes go to the frames at once, nothing held.
  expect(played.audio(new Uint8Array(160).fill(9))).toBeUndefined();
  played.finish();
  const end = await ended;
  // 640 bytes: two whole frames, no pad; the middle mark after the frame holding byte 480.
  expect(log).toEqual(["frame 320 7", "mark start", "frame 320 9", "mark middle"]);
  expect(end).toMatchObject({ msPlayed: 40, cleared: false });
});

test("does pad the last frame with silence, and stop at once with what was heard", async () => {
  const log: string[] = [];
  const played = prompt(log);
  played.audio(new Uint8Array(100).fill(5));
  played.finish();
  await played.play(
    door(log),
    () => performance.now(),
    () => undefined,
  );
  expect(log).toEqual(["frame 320 0"]);

  const stopped = prompt([]);
  const held = stopped.audio(new Uint8Array(3200));
  const end = stopped.stop(0);
  await held;
  expect(end).toEqual({ msPlayed: 0, cleared: true });
  expect(stopped.audio(new Uint8Array(320))).toBeUndefined();
});
