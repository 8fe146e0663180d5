import { describe, expect, test } from "bun:test";
import { MrcpReader, serializeMrcp } from "./message.ts";

const enc = (text: string) => new TextEncoder().encode(text);

function message(method: string, id: number, body = ""): string {
  const rest = `Channel-Identifier: 1@speechsynth\r\n${body ? `Content-Type: text/plain\r\nContent-Length: ${enc(body).length}\r\n` : ""}\r\n${body}`;
  let length = 0;
  for (let i = 0; i < 3; i++) length = enc(`MRCP/2.0 ${length} ${method} ${id}\r\n${rest}`).length;
  return `MRCP/2.0 ${length} ${method} ${id}\r\n${rest}`;
}

describe("MRCP framing", () => {
  test("does frame requests split anywhere across TCP reads", () => {
    const stream = enc(message("SPEAK", 1, "مرحبا") + message("STOP", 2));
    const reader = new MrcpReader();
    const frames = [];
    for (let i = 0; i < stream.length; i += 7) frames.push(...reader.push(stream.subarray(i, i + 7)));
    expect(
      frames.map((f) => (f.kind === "request" ? [f.request.method, f.request.requestId, f.request.body] : f)),
    ).toEqual([
      ["SPEAK", 1, "مرحبا"],
      ["STOP", 2, ""],
    ]);
  });

  test("does answer a wrong length and resynchronise at the next message", () => {
    const good = message("STOP", 3);
    const frames = new MrcpReader().push(enc(`MRCP/2.0 900 SPEAK 2\r\nChannel-Identifier: x\r\n\r\n${good}`));
    expect(frames[0]).toMatchObject({ kind: "error", requestId: 2, status: 408 });
    expect(frames[1]).toMatchObject({ kind: "request", request: { method: "STOP", requestId: 3 } });
  });

  test("does answer garbage, a too-large length and another version with their status codes", () => {
    const reader = new MrcpReader();
    expect(reader.push(enc("hello\r\n"))[0]).toMatchObject({ kind: "error", status: 408 });
    expect(reader.push(enc("MRCP/2.0 99999999 SPEAK 4\r\n"))[0]).toMatchObject({ status: 504, requestId: 4 });
    expect(reader.push(enc("MRCP/1.0 30 SPEAK 5\r\n"))[0]).toMatchObject({ status: 502, requestId: 5 });
  });

  test("does write a start line whose length counts the whole message", () => {
    for (const body of ["", "x".repeat(95), "x".repeat(996)]) {
      const bytes = serializeMrcp(
        { event: { name: "SPEAK-COMPLETE", requestId: 9, state: "COMPLETE" } },
        [["Completion-Cause", "000 normal"]],
        body,
      );
      const declared = Number(/^MRCP\/2\.0 (\d+) /.exec(new TextDecoder().decode(bytes))![1]);
      expect(declared).toBe(bytes.length);
    }
  });
});
