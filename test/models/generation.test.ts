/**
 * The in-flight count a reload drains by (src/app/generation.ts): a call counts until its answer
 * is complete — a promise settled, a stream or async iterable finished or cancelled — and a view
 * kept across a reload sends later calls to the generation now serving.
 */
import { describe, expect, test } from "bun:test";
import { Generation, trackCalls } from "../../src/app/generation.ts";

class FakeService {
  constructor(readonly label: string) {}
  async answer(): Promise<string> {
    await Bun.sleep(5);
    return this.label;
  }
  stream(): { audio: ReadableStream<Uint8Array> } {
    let sent = 0;
    return {
      audio: new ReadableStream({
        pull(controller) {
          if (sent++ < 3) controller.enqueue(new Uint8Array([sent]));
          else controller.close();
        },
      }),
    };
  }
  async *results(): AsyncGenerator<number> {
    yield 1;
    yield 2;
  }
  /** A session (a speech stream): a class instance whose `closed` settles when it ends. */
  session(): Session {
    return new Session();
  }
}

class Session {
  private readonly ending = Promise.withResolvers<void>();
  readonly closed = this.ending.promise;
  end(): void {
    this.ending.resolve();
  }
}

function generation(): Generation<unknown> {
  return new Generation(1, { service: {} });
}

describe("a tracked service", () => {
  test("does count a session until its closed promise settles, and hand back the session itself", async () => {
    const gen = generation();
    const view = trackCalls(new FakeService("a"), gen, () => undefined);
    const session = view.session();
    expect(session).toBeInstanceOf(Session);
    expect(gen.calls).toBe(1);
    session.end();
    await session.closed;
    expect(gen.calls).toBe(0);
  });

  test("does count a call until its promise settles", async () => {
    const gen = generation();
    const view = trackCalls(new FakeService("a"), gen, () => undefined);
    const pending = view.answer();
    expect(gen.calls).toBe(1);
    expect(await pending).toBe("a");
    expect(gen.calls).toBe(0);
    expect(await gen.idle(10)).toBe(true);
  });

  test("does count a streamed answer until the stream is read to its end or cancelled", async () => {
    const gen = generation();
    const view = trackCalls(new FakeService("a"), gen, () => undefined);
    const read = view.stream().audio;
    expect(gen.calls).toBe(1);
    expect((await new Response(read).arrayBuffer()).byteLength).toBe(3);
    expect(gen.calls).toBe(0);
    await view.stream().audio.cancel();
    expect(gen.calls).toBe(0);
  });

  test("does count an async iterable until it finishes, and idle() waits for it", async () => {
    const gen = generation();
    const view = trackCalls(new FakeService("a"), gen, () => undefined);
    const iterator = view.results()[Symbol.asyncIterator]();
    await iterator.next();
    expect(await gen.idle(20)).toBe(false);
    const idle = gen.idle(1000);
    await iterator.next();
    await iterator.next();
    expect(await idle).toBe(true);
  });

  test("does send calls made after retirement to the service now serving", async () => {
    const old = generation();
    const next = generation();
    let current: FakeService | undefined;
    const oldView = trackCalls(new FakeService("old"), old, () => current);
    current = trackCalls(new FakeService("new"), next, () => current);
    expect(await oldView.answer()).toBe("old");
    old.retired = true;
    expect(await oldView.answer()).toBe("new");
    expect(old.calls).toBe(0);
  });
});
