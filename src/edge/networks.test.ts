import { describe, expect, test } from "bun:test";
import { inCidr, parseCidr, parsePeers, peerKeyId } from "./networks.ts";

describe("allowed networks and peers", () => {
  test("does match IPv4, IPv4-mapped and IPv6 addresses against CIDR blocks", () => {
    expect(inCidr("10.1.2.3", parseCidr("10.0.0.0/8")!)).toBe(true);
    expect(inCidr("11.1.2.3", parseCidr("10.0.0.0/8")!)).toBe(false);
    expect(inCidr("::ffff:127.0.0.1", parseCidr("127.0.0.0/8")!)).toBe(true);
    expect(inCidr("::1", parseCidr("::1/128")!)).toBe(true);
    expect(inCidr("fe80::1", parseCidr("::1/128")!)).toBe(false);
    expect(parseCidr("10.0.0.0/33")).toBeUndefined();
  });

  test("does map a peer by Request-URI user first, then by the longest network", () => {
    const rules = parsePeers(["10.0.0.0/8=aaaaaaaaaaaa", "10.1.0.0/16=bbbbbbbbbbbb", "ivr1=cccccccccccc"]);
    expect(peerKeyId(rules, "10.1.2.3", undefined)).toBe("bbbbbbbbbbbb");
    expect(peerKeyId(rules, "10.9.2.3", undefined)).toBe("aaaaaaaaaaaa");
    expect(peerKeyId(rules, "10.1.2.3", "ivr1")).toBe("cccccccccccc");
    expect(peerKeyId(rules, "192.168.1.1", "other")).toBeUndefined();
  });
});
