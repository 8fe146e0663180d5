/**
 * SDP offers for the fuzzer: a valid MRCPv2 offer (test/mrcp/client.ts) and mutations that make
 * it incomplete (lines missing), contradictory (two addresses, IP6 with an IPv4 address, a host
 * name, existing connections on a new session), name unknown codecs and resources, odd ports and
 * port ranges, or break the bounds (lines, media, formats, size). And the contract of a 200's
 * answer: one answered section per offered one, audio only on the box's RTP range, and never an
 * audio stream towards an address outside the box's allowed networks.
 */
import { offer } from "../../mrcp/client.ts";
import type { Random } from "../fuzz/random.ts";

/** An offer and how it was made. */
export interface SdpCase {
  readonly label: string;
  readonly body: string;
  /** Content-Type to send (the door's contract: anything but application/sdp is 415). */
  readonly contentType: string;
}

type Lines = string[];

const replaceLine = (lines: Lines, prefix: string, line: string) => {
  const at = lines.findIndex((l) => l.startsWith(prefix));
  if (at >= 0) lines[at] = line;
};

const MUTATIONS: Record<string, (lines: Lines, r: Random) => void> = {
  "line missing": (l, r) => void l.splice(r.int(0, l.length - 1), 1),
  "v= missing": (l) => void l.splice(0, 1),
  "m=application missing": (l) => {
    for (
      let at = l.findIndex((x) => x.startsWith("m=application"));
      at >= 0;
      at = l.findIndex((x) => x.startsWith("m=application"))
    )
      l.splice(at, 1);
  },
  "two addresses": (l, r) => void l.splice(4, 0, `c=IN IP4 ${r.pick(["192.0.2.5", "127.0.0.1", "10.0.0.1"])}`),
  "c= IP6 with IPv4": (l) => replaceLine(l, "c=", "c=IN IP6 127.0.0.1"),
  "c= host name": (l, r) => replaceLine(l, "c=", `c=IN IP4 ${r.pick(["pbx.example.invalid", "localhost", "x"])}`),
  "c= outside": (l, r) =>
    replaceLine(l, "c=", `c=IN IP4 ${r.pick(["192.0.2.5", "8.8.8.8", "10.1.2.3", "224.2.1.1/127"])}`),
  "c= hold": (l) => replaceLine(l, "c=", "c=IN IP4 0.0.0.0"),
  "c= media-level": (l, r) => void l.push(`c=IN IP4 ${r.pick(["127.0.0.1", "192.0.2.9", "::1", "junk"])}`),
  "audio port": (l, r) =>
    replaceLine(
      l,
      "m=audio",
      `m=audio ${r.pick(["0", "1", "65535", "65536", "99999", "20000/2", "-1", "x"])} RTP/AVP 0 8`,
    ),
  "unknown codecs": (l, r) => {
    const pt = r.pick(["18", "9", "97", "3", "127"]);
    replaceLine(l, "m=audio", `m=audio 40000 RTP/AVP ${pt}`);
    l.push(`a=rtpmap:${pt} ${r.pick(["G729/8000", "G722/8000", "opus/48000/2", "L16/44100", "telephone-event/8000"])}`);
  },
  "rtpmap conflict": (l) => l.push("a=rtpmap:0 PCMA/8000", "a=rtpmap:101 telephone-event/16000"),
  "many formats": (l, r) =>
    replaceLine(
      l,
      "m=audio",
      `m=audio 40000 RTP/AVP ${Array.from({ length: r.int(30, 40) }, (_, i) => 96 + (i % 32)).join(" ")}`,
    ),
  "unknown resource": (l, r) =>
    replaceLine(l, "a=resource", `a=resource:${r.pick(["speechverify", "recorder", "", "x".repeat(200)])}`),
  "resource missing": (l) =>
    void l.splice(
      l.findIndex((x) => x.startsWith("a=resource")),
      1,
    ),
  "existing connection": (l) => replaceLine(l, "a=connection", "a=connection:existing"),
  "setup passive": (l) => replaceLine(l, "a=setup", "a=setup:passive"),
  "control port 0": (l) => replaceLine(l, "m=application", "m=application 0 TCP/MRCPv2 1"),
  "control proto": (l, r) =>
    replaceLine(l, "m=application", `m=application 9 ${r.pick(["TCP/TLS/MRCPv2", "UDP/MRCPv2", "TCP/MRCPv2"])} 1`),
  direction: (l, r) => l.push(`a=${r.pick(["sendonly", "recvonly", "inactive", "sendrecv"])}`),
  "many lines": (l, r) => {
    for (let i = 0, n = r.int(120, 140); i < n; i++) l.push(`a=x-pad:${i}`);
  },
  "many media": (l) => {
    for (let i = 0; i < 9; i++) l.push("m=audio 40000 RTP/AVP 0");
  },
  "bad line": (l, r) =>
    void l.splice(r.int(0, l.length), 0, r.pick(["garbage", "=x", "M=audio 1 RTP/AVP 0", "a", "\u0000"])),
  "random attribute": (l, r) => void l.push(`a=${r.text(r.int(1, 30))}`),
};

/** Draws an offer: valid (a quarter of them) or mutated, with its Content-Type. */
export function drawOffer(random: Random, rtpPort: number): SdpCase {
  const resources = random.pick([["speechsynth"], ["speechrecog"], ["speechsynth", "speechrecog"]]);
  const lines = offer(resources, rtpPort, random.pick(["0 8 96 101", "0 101", "8", "96"]))
    .trimEnd()
    .split("\r\n");
  const names: string[] = [];
  if (!random.chance(0.25)) {
    for (let i = 0, n = random.int(1, 3); i < n; i++) {
      const name = random.pick(Object.keys(MUTATIONS));
      MUTATIONS[name]!(lines, random);
      names.push(name);
    }
  }
  let body = `${lines.join("\r\n")}\r\n`;
  const roll = random.next();
  if (roll < 0.03) {
    body = body.replace(/\r\n/g, "\n");
    names.push("lf only");
  } else if (roll < 0.05) {
    body = `v=0\r\n${"a=x\r\n".repeat(random.int(1700, 2000))}`;
    names.push("over 8 KiB");
  } else if (roll < 0.06) {
    body = JSON.stringify({ sdp: "no" });
    names.push("not SDP");
  }
  const contentType = random.chance(0.04)
    ? random.pick(["text/plain", "application/json", "application/sdp; charset=x", "APPLICATION/SDP"])
    : "application/sdp";
  return { label: names[0] ?? "valid", body, contentType };
}

/** The offered sections with the address each one's RTP would go to (a media c= beats the session's). */
function offeredSections(offered: string): { media: string; address: string | undefined }[] {
  let session: string | undefined;
  const sections: { media: string; address: string | undefined; own?: string }[] = [];
  for (const line of offered.split(/\r?\n/)) {
    if (line.startsWith("m=")) sections.push({ media: line.slice(2).split(" ")[0]!, address: undefined });
    const c = /^c=IN IP[46] (\S+)$/.exec(line);
    if (c) {
      const address = c[1]!.split("/")[0]!;
      const current = sections.at(-1);
      if (current) current.own = address;
      else session = address;
    }
  }
  return sections.map((s) => ({ media: s.media, address: s.own ?? session }));
}

/** Problems of a 200's SDP answer to `offered` (empty when it holds the contract). */
export function answerSdpProblems(offered: string, answer: string, rtp: { min: number; max: number }): string[] {
  const problems: string[] = [];
  const sections = offeredSections(offered);
  const answered = [...answer.matchAll(/^m=(\S+) (\d+) /gm)];
  if (answered.length !== sections.length)
    problems.push(`answer has ${answered.length} sections for ${sections.length}`);
  answered.forEach(([, media, port], i) => {
    if (media !== "audio" || port === "0") return;
    if (Number(port) < rtp.min || Number(port) > rtp.max) problems.push(`audio port ${port} outside the RTP range`);
    const address = sections[i]?.address;
    // Accepting audio there would send RTP off the box (or look a name up).
    if (address !== undefined && address !== "127.0.0.1" && address !== "0.0.0.0")
      problems.push(`audio accepted towards ${address}, outside mrcp.allowed_networks`);
  });
  return problems;
}
