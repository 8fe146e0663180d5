/**
 * The doors `bun run reliability` fuzzes beside REST, WebSocket and gRPC (those are
 * test/reliability/fuzz/), in order. A new door is one module exporting a FuzzDoor (./door.ts)
 * and one line here; test/reliability/doors.test.ts then runs it at SAWT_DOOR_CASES cases and
 * checks its contract, crashes and leaks, and docs/reliability.md gets its row.
 */
import { audioSocketDoor } from "./audiosocket.ts";
import { callApiDoor } from "./call-api.ts";
import { chanWebsocketDoor } from "./chan-websocket.ts";
import type { FuzzDoor } from "./door.ts";
import { deepgramListenDoor } from "./deepgram-listen.ts";
import { deepgramSpeakDoor } from "./deepgram-speak.ts";
import { elevenLabsDoor } from "./elevenlabs.ts";
import { jobsDoor } from "./jobs.ts";
import { mrcpDoor } from "./mrcp.ts";
import { rtpDoor } from "./rtp.ts";
import { sdpDoor } from "./sdp.ts";
import { sipTcpDoor, sipUdpDoor } from "./sip.ts";

/** Every fuzzed door, in the order they run. */
export const FUZZ_DOORS: readonly FuzzDoor[] = [
  sipUdpDoor,
  sipTcpDoor,
  sdpDoor,
  mrcpDoor,
  rtpDoor,
  jobsDoor,
  deepgramListenDoor,
  deepgramSpeakDoor,
  elevenLabsDoor,
  audioSocketDoor,
  chanWebsocketDoor,
  callApiDoor,
];
