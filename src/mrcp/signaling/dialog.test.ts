import { describe, expect, test } from "bun:test";
import { dialogRequestTarget, uriHop } from "./dialog.ts";
import { parseSip, responseTo, serializeSip } from "./message.ts";

describe("dialog routing", () => {
  test("does read a SIP URI's host and port, with the scheme's default port", () => {
    expect(uriHop("sip:ivr@10.0.0.5:5093;transport=udp")).toEqual({ address: "10.0.0.5", port: 5093 });
    expect(uriHop("sip:proxy.example;lr")).toEqual({ address: "proxy.example", port: 5060 });
    expect(uriHop("sips:ivr@[2001:db8::1]")).toEqual({ address: "2001:db8::1", port: 5061 });
    expect(uriHop("tel:+123")).toBeUndefined();
    expect(uriHop("sip:ivr@10.0.0.5:99999")).toBeUndefined();
  });

  test("does route through a loose router with the route set as Route headers", () => {
    const target = dialogRequestTarget(["<sip:10.0.0.1;lr>", "<sip:10.0.0.2:5070;lr>"], "sip:ivr@10.0.0.9:5093");
    expect(target).toEqual({
      uri: "sip:ivr@10.0.0.9:5093",
      route: ["<sip:10.0.0.1;lr>", "<sip:10.0.0.2:5070;lr>"],
      hop: { address: "10.0.0.1", port: 5060 },
    });
  });

  test("does put a strict router's URI in the Request-URI and the remote target last in Route", () => {
    const target = dialogRequestTarget(["<sip:10.0.0.1:5080;transport=udp>"], "sip:ivr@10.0.0.9:5093");
    expect(target).toEqual({
      uri: "sip:10.0.0.1:5080",
      route: ["<sip:ivr@10.0.0.9:5093>"],
      hop: { address: "10.0.0.1", port: 5080 },
    });
  });

  test("does go straight to the remote target without a route set", () => {
    expect(dialogRequestTarget([], "sip:ivr@10.0.0.9:5093")).toEqual({
      uri: "sip:ivr@10.0.0.9:5093",
      route: [],
      hop: { address: "10.0.0.9", port: 5093 },
    });
  });

  test("does copy Record-Route, comma-joined or not, into an INVITE's 200 only", () => {
    const invite = parseSip(
      new TextEncoder().encode(
        [
          "INVITE sip:sawt@10.0.0.2 SIP/2.0",
          "Via: SIP/2.0/UDP 10.0.0.1;branch=z9hG4bK1",
          "Record-Route: <sip:p1;lr>, <sip:p2;lr>",
          "Record-Route: <sip:p3;lr>",
          "From: <sip:a@b>;tag=1",
          "To: <sip:sawt@10.0.0.2>",
          "Call-ID: x",
          "CSeq: 1 INVITE",
          "Content-Length: 0",
          "",
          "",
        ].join("\r\n"),
      ),
    );
    const ok = new TextDecoder().decode(serializeSip(responseTo(invite, 200, { toTag: "t" })));
    expect([...ok.matchAll(/^Record-Route: (.*)\r$/gm)].map((m) => m[1])).toEqual([
      "<sip:p1;lr>",
      "<sip:p2;lr>",
      "<sip:p3;lr>",
    ]);
    expect(new TextDecoder().decode(serializeSip(responseTo(invite, 100)))).not.toContain("Record-Route");
    expect(new TextDecoder().decode(serializeSip(responseTo(invite, 486)))).not.toContain("Record-Route");
  });
});
