/**
 * The hostile media table: files built to make a media parser misbehave — playlists that name
 * local files or a network address, containers that lie about their sizes, odd channel counts and
 * rates, disguised markup, path-traversing names — uploaded to the real server. Each gets its
 * contract answer; ffmpeg never opens the network (a listener named by the playlists counts
 * connections and must see none); no upload or spool file stays behind; the service stays healthy.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { encodeWav } from "../../src/audio/wav.ts";
import { Detail } from "../../src/errors/taxonomy.ts";
import { ffmpegSync, tone } from "../support/audio.ts";
import { tempDir } from "../support/sawt.ts";
import { call, leftoverUploads, uploadForm } from "../rest/support.ts";
import { recordFigures, startTarget, type Target } from "./server.ts";

const CORRUPT = `${Detail.cannotTranscribe}: unsupported or corrupt audio`;
const NO_AUDIO = `${Detail.cannotTranscribe}: no audio stream`;
const EMPTY = `${Detail.cannotTranscribe}: audio is empty`;

let target: Target;
let connections = 0;
let listener: Bun.TCPSocketListener<undefined>;
const work = tempDir("sawt-media-");
const figures: Array<{ file: string; status: number; detail: string }> = [];

beforeAll(async () => {
  listener = Bun.listen({
    hostname: "127.0.0.1",
    port: 0,
    socket: { open: () => void connections++, data: () => undefined },
  });
  target = await startTarget();
});
afterAll(async () => {
  listener?.stop(true);
  await target?.close();
  await recordFigures("media", figures);
  work.remove();
});

const wav = (rate: number, channels = 1) => {
  const path = join(work.path, `t-${rate}-${channels}.wav`);
  ffmpegSync([
    "-f",
    "lavfi",
    "-i",
    `sine=frequency=440:sample_rate=${rate}:duration=0.5`,
    "-ac",
    String(channels),
    "-c:a",
    "pcm_s16le",
    path,
  ]);
  return readFileSync(path);
};
const url = () => `http://127.0.0.1:${listener.port}/a.mp3`;

/** [what, file name, bytes, status, detail] */
const TABLE: Array<[string, string, () => Uint8Array | string, number, string]> = [
  [
    "an HLS playlist naming a network URL",
    "list.mp3",
    () => `#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1,\n${url()}\n#EXT-X-ENDLIST\n`,
    400,
    CORRUPT,
  ],
  [
    "an HLS playlist naming a local file",
    "list.mpga",
    () => "#EXTM3U\n#EXTINF:1,\nfile:///etc/passwd\n#EXT-X-ENDLIST\n",
    400,
    CORRUPT,
  ],
  ["an ffconcat list naming a network URL", "list.wav", () => `ffconcat version 1.0\nfile '${url()}'\n`, 400, CORRUPT],
  ["an ffconcat list naming /etc/passwd", "list.ogg", () => "ffconcat version 1.0\nfile /etc/passwd\n", 400, CORRUPT],
  [
    "an SDP file naming an RTP stream",
    "call.mp4",
    () => "v=0\no=- 0 0 IN IP4 127.0.0.1\ns=x\nc=IN IP4 127.0.0.1\nt=0 0\nm=audio 5004 RTP/AVP 0\n",
    400,
    CORRUPT,
  ],
  ["HTML disguised as WAV", "page.wav", () => "<html><script>alert(1)</script></html>", 400, CORRUPT],
  [
    "a WAV header claiming 4 GB of data",
    "liar.wav",
    () => {
      const bytes = new Uint8Array(encodeWav(tone(440, 0.5, 16000), 16000));
      new DataView(bytes.buffer).setUint32(40, 0xfffffff0, true);
      return bytes;
    },
    200,
    "",
  ],
  [
    "a WAV of zero channels",
    "zero.wav",
    () => {
      const bytes = new Uint8Array(encodeWav(tone(440, 0.5, 16000), 16000));
      new DataView(bytes.buffer).setUint16(22, 0, true);
      return bytes;
    },
    400,
    CORRUPT,
  ],
  ["a WAV header only", "head.wav", () => encodeWav(new Float32Array(0), 16000), 400, EMPTY],
  ["an empty file", "empty.flac", () => "", 400, EMPTY],
  ["a 384 kHz WAV", "hi.wav", () => wav(384000), 200, ""],
  ["an 8-channel WAV", "many.wav", () => wav(16000, 8), 200, ""],
  [
    "a FLAC cut in half",
    "cut.flac",
    () => {
      const path = join(work.path, "whole.flac");
      ffmpegSync(["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=16000:duration=2", "-c:a", "flac", path]);
      const whole = readFileSync(path);
      return whole.subarray(0, whole.length >> 1);
    },
    200,
    "",
  ],
  [
    "a video-only WebM",
    "video.webm",
    () => {
      const path = join(work.path, "video.webm");
      ffmpegSync(["-f", "lavfi", "-i", "testsrc=duration=1:size=32x32:rate=5", "-c:v", "libvpx", "-an", path]);
      return readFileSync(path);
    },
    400,
    NO_AUDIO,
  ],
  [
    "random bytes named .m4a",
    "noise.m4a",
    () => new Uint8Array(4096).map((_, i) => (i * 2654435761) >>> 24),
    400,
    CORRUPT,
  ],
  ["a path-traversing file name", "../../../../tmp/evil.wav", () => wav(16000), 200, ""],
];

describe("hostile media", () => {
  test.each(TABLE)("does answer %s with its contract answer", async (_what, name, bytes, status, detail) => {
    const reply = await call(`${target.sawt.baseUrl}/v1/asr/audio/transcriptions`, {
      method: "POST",
      headers: { "X-API-Key": target.key },
      body: uploadForm({ name, data: bytes() }),
    });
    figures.push({
      file: _what,
      status: reply.status,
      detail: reply.status === 200 ? "transcribed" : reply.json?.detail,
    });
    expect(reply.status).toBe(status);
    if (status !== 200) expect(reply.json).toEqual({ error: "http_error", detail, code: `HTTP_${status}` });
    expect(leftoverUploads(target.sawt.dataDir)).toEqual([]);
  });

  test("does leave ffmpeg without a network connection and the service healthy", async () => {
    expect(connections).toBe(0);
    expect((await fetch(`${target.sawt.baseUrl}/v1/asr/health`)).status).toBe(200);
    expect(target.sawt.proc.exitCode).toBeNull();
  });
});
