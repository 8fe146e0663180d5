/**
 * The soak's call row (issue 41's doors): an AudioSocket call as Asterisk makes it — the UUID, then
 * the box's clip of مرحبا and 1.5 s of silence as slin16 in 20 ms frames on the wall clock — watched
 * by the application's WebSocket `/v1/calls/{id}`: its `transcript.final` must read مرحبا; a `say`
 * must come back as audio frames and end with `playback.done`; the caller's 0x00 frame must end the
 * call (`call.ended`, reason hangup) and close the application's socket. A call the box refuses
 * while busy (a 0x00 frame before any event) is `busy`.
 */
import { connect, type Socket } from "node:net";
import type { Box } from "../box.ts";
import { HANGUP, layoutFrame, uuidFrame } from "../doors/audiosocket-wire.ts";
import { Breach, type SoakRow } from "./row.ts";

const SLIN16 = 0x12;
const FRAME = 640;

/** The application's socket and the events it heard. */
function watch(box: Box, id: string) {
  const events: Record<string, any>[] = [];
  const ws = new WebSocket(`${box.sawt.baseUrl.replace(/^http/, "ws")}/v1/calls/${id}`, {
    headers: { "x-api-key": box.key },
  } as unknown as string[]);
  let closed = false;
  ws.addEventListener("message", (m) => events.push(JSON.parse(String(m.data))));
  ws.addEventListener("close", () => {
    closed = true;
  });
  const next = async (type: string, ms: number) => {
    const deadline = performance.now() + ms;
    for (;;) {
      const found = events.find((e) => e.type === type);
      if (found) return found;
      if (closed || performance.now() > deadline)
        throw new Breach(`no ${type} (${events.map((e) => e.type).join(",")})`);
      await Bun.sleep(10);
    }
  };
  return { ws, events, next, isClosed: () => closed };
}

export const audioSocketCall: SoakRow = {
  name: "AudioSocket call",
  async call(box) {
    const id = crypto.randomUUID();
    const socket: Socket = connect({ host: "127.0.0.1", port: box.calls.audiosocket, noDelay: true });
    await new Promise<void>((resolve, reject) => {
      socket.once("connect", () => resolve());
      socket.once("error", reject);
    });
    const received: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => received.push(chunk));
    socket.on("error", () => undefined);
    let gone = false;
    socket.once("close", () => {
      gone = true;
    });
    const frame = (bytes: Uint8Array) => socket.write(layoutFrame(SLIN16, bytes));
    try {
      socket.write(uuidFrame(id));
      frame(new Uint8Array(FRAME));
      // The call opens at its first audio frame; the application connects once it is listed.
      for (let n = 0; ; n++) {
        const list = (await (
          await fetch(`${box.sawt.baseUrl}/v1/calls`, { headers: { "x-api-key": box.key } })
        ).json()) as { data: { id: string }[] };
        if (list.data.some((c) => c.id === id)) break;
        if (gone && Buffer.concat(received).equals(Buffer.from(HANGUP))) return "busy";
        if (n > 200) throw new Breach("the call never opened");
        await Bun.sleep(10);
      }
      const app = watch(box, id);
      try {
        await app.next("call.started", 5000);
        const audio = Buffer.concat([box.pcm, Buffer.alloc(16000 * 2 * 1.5)]);
        const start = performance.now();
        for (let at = 0, n = 0; at < audio.length; at += FRAME, n++) {
          const piece = new Uint8Array(FRAME);
          piece.set(audio.subarray(at, at + FRAME));
          frame(piece);
          const wait = start + (n + 1) * 20 - performance.now();
          if (wait > 0) await Bun.sleep(wait);
        }
        const final = await app.next("transcript.final", 15_000);
        if (final.text !== "مرحبا") throw new Breach(`the call's final read ${JSON.stringify(final.text)}`);
        const before = Buffer.concat(received).length;
        app.ws.send(JSON.stringify({ type: "say", text: "مرحبا بكم" }));
        const done = await app.next("playback.done", 20_000);
        const spoken = Buffer.concat(received).length - before;
        if (done.cleared || spoken < 10 * (FRAME + 3)) throw new Breach(`say played ${spoken} bytes`);
        socket.write(HANGUP);
        const ended = await app.next("call.ended", 10_000);
        if (ended.reason !== "hangup") throw new Breach(`call.ended ${ended.reason}`);
        const closed = performance.now() + 3000;
        while (!app.isClosed() && performance.now() < closed) await Bun.sleep(10);
        if (!app.isClosed()) throw new Breach("the application's socket stayed open after call.ended");
        return "transcribed, spoke, ended";
      } finally {
        app.ws.close();
      }
    } finally {
      socket.destroy();
    }
  },
};
