/**
 * One generation of a loaded engine: the service a model reload (./engines.ts) put on the
 * context, and the calls still running on it. The context holds a counting view of the service
 * ({@link trackCalls}); a call counts from its start until its answer is complete — a promise
 * settled, a stream or async iterable finished or cancelled — so a reload can swap in the next
 * generation at once and release this one only when its last call is done.
 */
import type { LoadedEngine } from "../core/engines.ts";

/** A loaded engine and the calls in flight on it. */
export class Generation<S> {
  private inFlight = 0;
  /** Set when a newer generation replaced this one: calls made after that go to the newer one. */
  retired = false;
  private idleWaiters: Array<() => void> = [];

  constructor(
    /** Counts reloads of this engine: 1 at start-up (health details `generation`). */
    readonly number: number,
    readonly loaded: LoadedEngine<S>,
  ) {}

  /** Calls not yet finished. */
  get calls(): number {
    return this.inFlight;
  }

  /** Counts one call; the function returned ends it (idempotent). */
  enter(): () => void {
    this.inFlight++;
    let left = false;
    return () => {
      if (left) return;
      left = true;
      if (--this.inFlight === 0) for (const wake of this.idleWaiters.splice(0)) wake();
    };
  }

  /** Resolves true once no call is in flight, false when `timeoutMs` passes first. */
  async idle(timeoutMs: number): Promise<boolean> {
    if (this.inFlight === 0) return true;
    const idle = new Promise<boolean>((resolve) => this.idleWaiters.push(() => resolve(true)));
    return Promise.race([idle, Bun.sleep(timeoutMs).then(() => this.inFlight === 0)]);
  }
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return (
    typeof value === "object" && value !== null && Symbol.asyncIterator in value && !(value instanceof ReadableStream)
  );
}

async function* finishing<T>(source: AsyncIterable<T>, leave: () => void): AsyncGenerator<T> {
  try {
    yield* source;
  } finally {
    leave();
  }
}

function finishingStream<T>(source: ReadableStream<T>, leave: () => void): ReadableStream<T> {
  const reader = source.getReader();
  return new ReadableStream<T>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          leave();
          controller.close();
        } else controller.enqueue(value);
      } catch (error) {
        leave();
        controller.error(error);
      }
    },
    async cancel(reason) {
      leave();
      await reader.cancel(reason);
    },
  });
}

/**
 * A call's answer with its streaming parts wrapped so `leave` runs when they finish: a stream or
 * async iterable itself, an object with a `closed` promise (a session, as it is), or an object
 * carrying a stream (`{ audio: ReadableStream }`, `{ chunks: AsyncIterable }`). Anything else is
 * complete as it is.
 */
function trackAnswer(value: unknown, leave: () => void): unknown {
  if (value instanceof ReadableStream) return finishingStream(value, leave);
  if (isAsyncIterable(value)) return finishing(value, leave);
  // A session object that says when it is over (a speech stream's `closed`) counts until then.
  if (typeof value === "object" && value !== null && (value as { closed?: unknown }).closed instanceof Promise) {
    (value as { closed: Promise<unknown> }).closed.then(leave, leave);
    return value;
  }
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    const entries = Object.entries(value);
    const streaming = entries.find(([, v]) => v instanceof ReadableStream || isAsyncIterable(v));
    if (streaming) return { ...value, [streaming[0]]: trackAnswer(streaming[1], leave) };
  }
  leave();
  return value;
}

/**
 * The view of `service` the context holds: every method call counts on `generation` until its
 * answer is complete. Feature-blind, so a method added to a service later is tracked too. A
 * caller that kept this view across a reload (a long-lived session calling once per utterance)
 * is sent to `successor()` — the service now on the context — once this generation is retired,
 * so no call reaches released sessions.
 */
export function trackCalls<S extends object>(
  service: S,
  generation: Generation<unknown>,
  successor: () => S | undefined,
): S {
  const view: S = new Proxy(service, {
    get(target, property) {
      const next = generation.retired ? successor() : undefined;
      if (next !== undefined && next !== view) return Reflect.get(next, property);
      const value = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        const leave = generation.enter();
        let result: unknown;
        try {
          result = Reflect.apply(value, target, args);
        } catch (error) {
          leave();
          throw error;
        }
        if (result instanceof Promise) {
          return result.then(
            (answer) => trackAnswer(answer, leave),
            (error) => {
              leave();
              throw error;
            },
          );
        }
        return trackAnswer(result, leave);
      };
    },
  });
  return view;
}
