import { describe, expect, test } from "bun:test";
import { header, headerParam, parseSip, responseTo, serializeSip, SipParseError, sipFrameLength } from "./message.ts";

const INVITE = [
  "INVITE sip:ivr1@10.0.0.5:8060 SIP/2.0",
  "v: SIP/2.0/UDP 10.0.0.9:5060;branch=z9hG4bK1, SIP/2.0/UDP 10.0.0.8;branch=z9hG4bK0",
  "f: <sip:a@10.0.0.9>;tag=abc",
  "t: <sip:ivr1@10.0.0.5>",
  "i: call-1",
  "CSeq: 1 INVITE",
  "Subject: folded",
  " continuation",
  "l: 3",
  "",
  "v=0",
].join("\r\n");

const bytes = (text: string) => new TextEncoder().encode(text);

describe("SIP messages", () => {
  test("does expand compact headers, split Via values and unfold continuations", () => {
    const message = parseSip(bytes(INVITE));
    expect(message.method).toBe("INVITE");
    expect(message.headers.get("via")).toHaveLength(2);
    expect(header(message, "call-id")).toBe("call-1");
    expect(header(message, "subject")).toBe("folded continuation");
    expect(headerParam(header(message, "from"), "tag")).toBe("abc");
    expect(message.body).toBe("v=0");
  });

  test("does refuse a missing header, a CSeq for another method and a short body with 400", () => {
    for (const broken of [
      INVITE.replace("i: call-1\r\n", ""),
      INVITE.replace("CSeq: 1 INVITE", "CSeq: 1 BYE"),
      INVITE.replace("l: 3", "l: 30"),
      // An empty From with only whitespace folded onto it is still empty (found by the door fuzz:
      // it was answered with "From:  ").
      INVITE.replace("f: <sip:a@10.0.0.9>;tag=abc", "f:\r\n \r\n\t"),
    ]) {
      const error = (() => {
        try {
          parseSip(bytes(broken));
        } catch (e) {
          return e;
        }
      })();
      expect(error).toBeInstanceOf(SipParseError);
      expect((error as SipParseError).status).toBe(400);
    }
  });

  test("does refuse an oversized message with 413 and another SIP version with 505", () => {
    expect(() => parseSip(new Uint8Array(20_000))).toThrow("too large");
    expect(() => parseSip(bytes(INVITE.replace("SIP/2.0\r\n", "SIP/3.0\r\n")))).toThrow("Version");
  });

  test("does frame a TCP stream by Content-Length and wait for the rest", () => {
    const whole = bytes(INVITE);
    expect(sipFrameLength(whole.subarray(0, 40))).toBe(0);
    expect(sipFrameLength(whole.subarray(0, whole.length - 1))).toBe(0);
    expect(sipFrameLength(whole)).toBe(whole.length);
    expect(() => sipFrameLength(bytes("OPTIONS sip:x SIP/2.0\r\nCSeq: 1 OPTIONS\r\n\r\n"))).toThrow("Content-Length");
  });

  test("does answer with the request's Via, From, Call-ID and CSeq and a To tag", () => {
    const response = responseTo(parseSip(bytes(INVITE)), 200, { toTag: "xyz" });
    const text = new TextDecoder().decode(serializeSip(response));
    expect(text.startsWith("SIP/2.0 200 OK\r\n")).toBe(true);
    expect(text).toContain("Via: SIP/2.0/UDP 10.0.0.9:5060;branch=z9hG4bK1\r\nVia: SIP/2.0/UDP 10.0.0.8");
    expect(text).toContain("To: <sip:ivr1@10.0.0.5>;tag=xyz");
    expect(text).toContain("Call-ID: call-1");
    expect(text.endsWith("Content-Length: 0\r\n\r\n")).toBe(true);
  });
});
