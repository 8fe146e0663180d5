import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ffmpegSync } from "../../../test/support/audio.ts";
import { channelsToSplit } from "./split.ts";

const dir = mkdtempSync(join(tmpdir(), "sawt-split-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A one-second tone file with `channels` channels, encoded by the real ffmpeg (`ext` picks the container). */
function toneFile(channels: number, ext: string): string {
  const path = join(dir, `tone-${channels}.${ext}`);
  ffmpegSync(["-f", "lavfi", "-i", `sine=frequency=440:duration=1`, "-ac", String(channels), "-ar", "16000", path]);
  return path;
}

const AUTO = { split: "auto", speakers: [] } as const;
const OFF = { split: "off", speakers: [] } as const;

describe("channelsToSplit", () => {
  test.each(["wav", "flac"])("does split only 2-channel %s files under asr.split_channels auto", async (ext) => {
    expect(await channelsToSplit(toneFile(2, ext), {}, AUTO, {})).toBe(2);
    expect(await channelsToSplit(toneFile(1, ext), {}, AUTO, {})).toBeNull();
    expect(await channelsToSplit(toneFile(3, ext), {}, AUTO, {})).toBeNull();
  });

  test("does keep the mono mix under off, and when the request asks for mix under auto", async () => {
    const stereo = toneFile(2, "wav");
    expect(await channelsToSplit(stereo, {}, OFF, {})).toBeNull();
    expect(await channelsToSplit(stereo, { channels: "mix" }, AUTO, {})).toBeNull();
  });

  test("does split 3 and 4 channels when the request asks for split, and refuse 5", async () => {
    expect(await channelsToSplit(toneFile(3, "flac"), { channels: "split" }, OFF, {})).toBe(3);
    expect(await channelsToSplit(toneFile(4, "flac"), { channels: "split" }, OFF, {})).toBe(4);
    await expect(channelsToSplit(toneFile(5, "flac"), { channels: "split" }, OFF, {})).rejects.toMatchObject({
      status: 400,
    });
  });
});
