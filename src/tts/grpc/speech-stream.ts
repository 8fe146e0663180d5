/**
 * The TTS service's streaming calls over the speech stream (src/tts/stream/, through the service):
 * SynthesizeOnline (one request, one context: its audio as it is synthesised, marks in messages
 * of their own) and StreamSynthesize (streaming text in, named contexts, flush, clear and close).
 * The stream counts one request of the key's rate limit per context, so these calls only verify
 * the key. Messages are written in the order the stream reports its events, each waiting for the
 * client to read the one before (backpressure).
 */
import type * as grpc from "@grpc/grpc-js";
import type { AppContext } from "../../core/context.ts";
import type { SpeechContextInfo, SpeechStream, SpeechStreamEvent } from "../../core/tts.ts";
import { readyService } from "../../edge/readiness.ts";
import { AppError, toAppError } from "../../errors/taxonomy.ts";
import { type CallScope, writeMessage } from "../../grpc/call.ts";
import { grpcDetails } from "../../grpc/errors.ts";
import { NO_AUDIO_DETAIL } from "../service.ts";

/** Largest audio payload of one streamed message. */
export const MAX_STREAM_AUDIO_BYTES = 65536;

/** The context of a message that names none. */
const DEFAULT_CONTEXT = "default";

type Writable = grpc.ServerWritableStream<unknown, unknown> | grpc.ServerDuplexStream<unknown, unknown>;

/** Writes messages one after the other, each once the client has read the one before. */
class CallWriter {
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly call: Writable,
    private readonly signal: AbortSignal,
  ) {}

  /** Queues a message; the promise settles once it was written. */
  write(message: unknown): Promise<void> {
    this.chain = this.chain.then(() => writeMessage(this.call, message, this.signal));
    // A call that went away fails every later write: whoever awaits one hears it, nobody else must.
    this.chain.catch(() => undefined);
    return this.chain;
  }

  /** Settles once every message was written (rejects when the call went away). */
  get drained(): Promise<void> {
    return this.chain;
  }
}

/** A speech resolution as the proto's SpeechResolution. */
export function resolutionMessage(info: Pick<SpeechContextInfo, "voice" | "dialect" | "engine" | "fallback">) {
  return { voice: info.voice, dialect: info.dialect, engine: info.engine, fallback: info.fallback ?? "" };
}

/** Opens the call's speech stream; it ends when the call does. */
function openStream(
  ctx: AppContext,
  scope: CallScope & { key: object },
  onEvent: (event: SpeechStreamEvent) => void | Promise<void>,
) {
  const stream = readyService(ctx, "tts").openSpeechStream({
    key: scope.key as NonNullable<CallScope["key"]>,
    requestId: scope.requestId,
    door: "grpc",
    onEvent,
  });
  scope.signal.addEventListener("abort", () => stream.end(), { once: true });
  return stream;
}

/**
 * SynthesizeOnline: one context speaking the request. The first message carries the resolution;
 * a synthesis with no audio at all is the INTERNAL error every streaming door gives.
 */
export async function synthesizeOnline(
  ctx: AppContext,
  call: Writable,
  scope: CallScope & { key: object },
  settings: Parameters<SpeechStream["open"]>[1],
  input: string,
): Promise<void> {
  const writer = new CallWriter(call, scope.signal);
  const finished = Promise.withResolvers<void>();
  let info: SpeechContextInfo | undefined;
  let first = true;
  let bytes = 0;
  const write = (fields: Record<string, unknown>) => {
    const written = writer.write({
      sample_rate_hz: info!.sampleRate,
      content_type: info!.contentType,
      resolution: first ? resolutionMessage(info!) : undefined,
      ...fields,
    });
    first = false;
    return written;
  };
  const stream = openStream(ctx, scope, (event) => {
    if (event.type === "audio") {
      bytes += event.audio.byteLength;
      let written: Promise<void> | undefined;
      for (let at = 0; at < event.audio.byteLength; at += MAX_STREAM_AUDIO_BYTES)
        written = write({ audio: event.audio.subarray(at, at + MAX_STREAM_AUDIO_BYTES) });
      return written;
    }
    if (event.type === "mark") write({ marks: [{ name: event.name, audio_ms: event.audioMs }] });
    else if (event.type === "done")
      bytes > 0 ? finished.resolve() : finished.reject(new AppError("internal", NO_AUDIO_DETAIL));
    else if (event.type === "error") finished.reject(event.error);
  });
  try {
    info = stream.open(DEFAULT_CONTEXT, settings);
    stream.text(DEFAULT_CONTEXT, input);
    stream.close(DEFAULT_CONTEXT);
    await finished.promise;
    await writer.drained;
  } finally {
    stream.end();
  }
}

/** A StreamSynthesizeRequest as proto-loader decodes it. */
export interface StreamSynthesizeMessage {
  context?: string;
  settings?: Record<string, unknown> | null;
  text?: string;
  flush?: boolean;
  clear?: boolean;
  close?: boolean;
}

/** What StreamSynthesize needs from the adapter: how a message's settings become a context's. */
export type SettingsParser = (settings: Record<string, unknown>) => Parameters<SpeechStream["open"]>[1];

/** The event as a StreamSynthesizeResponse. */
function response(event: SpeechStreamEvent): Record<string, unknown> {
  const context = event.context;
  switch (event.type) {
    case "audio":
      return { context, audio: event.audio };
    case "mark":
      return { context, mark: { name: event.name, audio_ms: event.audioMs } };
    case "flushed":
      return { context, flushed: {} };
    case "cleared":
      return { context, cleared: { audio_ms_sent: event.sent.ms, samples_sent: event.sent.samples } };
    case "done":
      return { context, end: { bytes: 0 } };
    case "error":
      return { context, error: { code: event.error.grpcCode, details: grpcDetails(event.error) } };
  }
}

/**
 * StreamSynthesize: text in, per context. When the client ends its side, the contexts still open
 * are closed (their text spoken) and the call ends once they all have.
 */
export async function streamSynthesize(
  ctx: AppContext,
  call: grpc.ServerDuplexStream<StreamSynthesizeMessage, unknown>,
  scope: CallScope & { key: object },
  parseSettings: SettingsParser,
): Promise<void> {
  const writer = new CallWriter(call, scope.signal);
  const open = new Map<string, { bytes: number; closing?: boolean }>();
  let allDone: (() => void) | undefined;
  const stream = openStream(ctx, scope, (event) => {
    const state = open.get(event.context);
    if (event.type === "audio" && state) {
      state.bytes += event.audio.byteLength;
      let written: Promise<void> | undefined;
      for (let at = 0; at < event.audio.byteLength; at += MAX_STREAM_AUDIO_BYTES)
        written = writer.write({
          context: event.context,
          audio: event.audio.subarray(at, at + MAX_STREAM_AUDIO_BYTES),
        });
      return written;
    }
    const message = response(event);
    if (event.type === "done" || event.type === "error") {
      if (event.type === "done") message.end = { bytes: state?.bytes ?? 0 };
      open.delete(event.context);
      if (open.size === 0) allDone?.();
    }
    writer.write(message);
  });
  // Messages are read with listeners, not `for await`: ending that iteration destroys the duplex
  // stream, writable side included, and the replies still to come would never be written.
  const input = Promise.withResolvers<void>();
  call.on("data", (message: StreamSynthesizeMessage) => {
    const context = message.context || DEFAULT_CONTEXT;
    try {
      apply(stream, message, context, open, parseSettings, (started) => writer.write(started));
    } catch (thrown) {
      const error = toAppError(thrown);
      writer.write({ context, error: { code: error.grpcCode, details: grpcDetails(error) } });
    }
  });
  call.once("end", () => input.resolve());
  call.once("error", (error) => input.reject(error));
  scope.signal.addEventListener("abort", () => input.reject(scope.signal.reason), { once: true });
  try {
    await input.promise;
    for (const [context, state] of open) if (!state.closing && stream.has(context)) stream.close(context);
    if (open.size > 0) await new Promise<void>((resolve) => (allDone = resolve));
    await writer.drained;
  } finally {
    stream.end();
  }
}

/** Applies one client message: settings (open), text, flush, clear, close, in that order. */
function apply(
  stream: SpeechStream,
  message: StreamSynthesizeMessage,
  context: string,
  open: Map<string, { bytes: number; closing?: boolean }>,
  parseSettings: SettingsParser,
  started: (message: Record<string, unknown>) => void,
): void {
  const openWith = (settings: Record<string, unknown>) => {
    const info = stream.open(context, parseSettings(settings));
    open.set(context, { bytes: 0 });
    started({
      context,
      started: {
        resolution: resolutionMessage(info),
        response_format: info.format,
        content_type: info.contentType,
        sample_rate_hz: info.sampleRate,
      },
    });
  };
  if (message.settings) {
    if (stream.has(context)) throw new AppError("bad_request", `Context ${context} is already open`);
    openWith(message.settings);
  }
  if (message.text) {
    if (!stream.has(context)) openWith({});
    stream.text(context, message.text);
  }
  if (message.flush) stream.flush(context);
  if (message.clear) stream.clear(context);
  if (message.close) {
    stream.close(context);
    const state = open.get(context);
    if (state) state.closing = true;
  }
}
