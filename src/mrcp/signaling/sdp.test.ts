import { describe, expect, test } from "bun:test";
import { buildAnswer, negotiateAudio, parseSdp } from "./sdp.ts";

const OFFER = [
  "v=0",
  "o=ivr-client 0 0 IN IP4 10.0.0.9",
  "s=-",
  "c=IN IP4 10.0.0.9",
  "t=0 0",
  "m=application 9 TCP/MRCPv2 1",
  "a=setup:active",
  "a=connection:new",
  "a=resource:speechsynth",
  "a=cmid:1",
  "m=audio 4000 RTP/AVP 9 96 101",
  "a=rtpmap:9 G722/8000",
  "a=rtpmap:96 L16/16000",
  "a=rtpmap:101 telephone-event/16000",
  "a=recvonly",
  "a=mid:1",
  "",
].join("\r\n");

describe("SDP offer/answer", () => {
  test("does pick the offer's first codec Sawt speaks, with telephone-event at its rate", () => {
    const audio = negotiateAudio(parseSdp(OFFER).media[1]!)!;
    expect(audio.codec).toEqual({ name: "L16", payloadType: 96, rate: 16000 });
    expect(audio.telephoneEvent).toBe(101);
    expect(audio.remote).toEqual({ address: "10.0.0.9", port: 4000 });
    expect(audio.direction).toBe("recvonly");
  });

  test("does find no codec when only ones Sawt cannot speak are offered", () => {
    const media = parseSdp(OFFER.replace("RTP/AVP 9 96 101", "RTP/AVP 9")).media[1]!;
    expect(negotiateAudio(media)).toBeUndefined();
  });

  test("does refuse SDP that breaks the grammar", () => {
    expect(() => parseSdp("v=1\r\n")).toThrow("v=0");
    expect(() => parseSdp(OFFER.replace("m=audio 4000", "m=audio 99999"))).toThrow("m=");
    expect(() => parseSdp(`${OFFER}not a line\r\n`)).toThrow("Bad SDP line");
  });

  test("does answer with the channel, the MRCP port, a numeric session id and the mirrored direction", () => {
    const offer = parseSdp(OFFER);
    const audio = negotiateAudio(offer.media[1]!)!;
    const answer = buildAnswer("10.0.0.5", "ab12", 0, [
      { kind: "control", port: 1544, channel: "ab12@speechsynth", cmid: "1", connection: "new" },
      { kind: "audio", port: 20000, audio, mid: "1" },
    ]);
    expect(answer).toContain("o=Sawt 43794 0 IN IP4 10.0.0.5");
    expect(answer).toContain(
      "m=application 1544 TCP/MRCPv2 1\r\na=setup:passive\r\na=connection:new\r\na=channel:ab12@speechsynth\r\na=cmid:1",
    );
    expect(answer).toContain("m=audio 20000 RTP/AVP 96 101\r\na=rtpmap:96 L16/16000");
    expect(answer).toContain("a=sendonly");
  });
});
