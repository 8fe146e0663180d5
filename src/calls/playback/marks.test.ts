import { expect, test } from "bun:test";
import { PeerMarks } from "./marks.ts";

function marks(fallbackMs = 60_000) {
  const sent: string[] = [];
  const ran: string[] = [];
  let n = 0;
  const peer = new PeerMarks(
    (id) => sent.push(id),
    () => `menu#${++n}`,
    fallbackMs,
  );
  return { peer, sent, ran };
}

test("does run a mark at the peer's answer, and every mark before it (the peer plays in order)", () => {
  const { peer, sent, ran } = marks();
  peer.place(() => ran.push("start"));
  peer.place(() => ran.push("next"));
  peer.place(() => ran.push("end"));
  expect(sent).toEqual(["menu#1", "menu#2", "menu#3"]);
  expect(ran).toEqual([]);
  expect(peer.processed("menu#2")).toBe(true);
  expect(ran).toEqual(["start", "next"]);
  expect(peer.processed("menu#1")).toBe(false);
  expect(peer.processed("other#9")).toBe(false);
  peer.processed("menu#3");
  expect(ran).toEqual(["start", "next", "end"]);
});

test("does settle a mark the peer never answers after the fallback, and nothing once dropped", async () => {
  const { peer, ran } = marks(30);
  peer.place(() => ran.push("old asterisk"));
  await Bun.sleep(80);
  expect(ran).toEqual(["old asterisk"]);
  peer.place(() => ran.push("flushed"));
  peer.drop();
  await Bun.sleep(80);
  expect(peer.processed("menu#2")).toBe(false);
  expect(ran).toEqual(["old asterisk"]);
});
