import { expect, test } from "bun:test";
import { RtpPacer } from "./pacer.ts";

test("does run byte watchers as the packet holding their offset leaves, whatever order they were set in", async () => {
  const sent: number[] = [];
  const ran: [string, number][] = [];
  const pacer = new RtpPacer({ send: (payload) => sent.push(payload.length) }, 4, 4, () => undefined);
  pacer.at(12, () => ran.push(["mark", sent.length]));
  pacer.at(4, () => ran.push(["hold", sent.length]));
  pacer.at(0, () => ran.push(["start", sent.length]));
  pacer.push(new Uint8Array(16));
  pacer.end();
  await pacer.done;
  expect(sent).toEqual([4, 4, 4, 4]);
  expect(ran).toEqual([
    ["start", 0],
    ["hold", 1],
    ["mark", 3],
  ]);
});
