/**
 * A test client that plays Asterisk's chan_websocket, written from the message list of
 * docs.asterisk.org's "WebSocket channel driver" page, not from Sawt's code: it dials the server
 * (subprotocol `media`), sends `MEDIA_START` (plain text `MEDIA_START connection_id:… channel:…
 * channel_id:… format:… optimal_frame_size:… ptime:20`, or the JSON event with
 * `channel_variables`), raw audio in BINARY frames of optimal_frame_size in real time (μ-law
 * encoded by ffmpeg), `DTMF_END`, `MEDIA_XOFF`/`MEDIA_XON` and `MEDIA_MARK_PROCESSED`, and hangs up
 * by closing the socket. It records Sawt's media (with arrival times) and its commands.
 */
import { g711Payload } from "../interop/peers/rtp.ts";
import { until } from "../support/sawt.ts";
import { pcm16 } from "./support.ts";

/** A control command Sawt sent, read in the call's format. */
export interface Command {
  readonly command: string;
  /** MARK_MEDIA's correlation id. */
  readonly id?: string;
  readonly at: number;
}

/** See the file comment. */
export class ChanWebsocketClient {
  readonly media: { bytes: Uint8Array; at: number }[] = [];
  readonly commands: Command[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;

  private constructor(
    readonly ws: WebSocket,
    readonly channelId: string,
    readonly format: "ulaw" | "slin16",
    readonly json: boolean,
  ) {
    ws.binaryType = "arraybuffer";
    this.closed = new Promise((resolve) =>
      ws.addEventListener("close", (e) => resolve({ code: e.code, reason: e.reason })),
    );
    ws.addEventListener("message", (e) => {
      if (typeof e.data !== "string") {
        this.media.push({ bytes: new Uint8Array(e.data as ArrayBuffer), at: performance.now() });
        return;
      }
      if (json) {
        const parsed = JSON.parse(e.data) as { command: string; correlation_id?: string };
        this.commands.push({ command: parsed.command, id: parsed.correlation_id, at: performance.now() });
      } else {
        const [command, id] = e.data.split(" ");
        this.commands.push({ command: command!, ...(id !== undefined ? { id } : {}), at: performance.now() });
      }
    });
  }

  /** Bytes of one 20 ms frame: Asterisk's optimal_frame_size for the format. */
  get frameBytes(): number {
    return this.format === "ulaw" ? 160 : 640;
  }

  /** Dials `/v1/calls/asterisk` and sends MEDIA_START; resolves once it is sent (or the socket closed). */
  static async dial(
    baseUrl: string,
    options: {
      format: "ulaw" | "slin16";
      json: boolean;
      channelId?: string;
      variables?: Record<string, string>;
      path?: string;
      /** Send nothing at open (tests of what a silent socket gets). */
      silent?: boolean;
    },
  ): Promise<ChanWebsocketClient> {
    const channelId = options.channelId ?? `pbx1-${Date.now()}.${Math.floor(Math.random() * 1000)}`;
    const ws = new WebSocket(`${baseUrl.replace(/^http/, "ws")}${options.path ?? "/v1/calls/asterisk"}`, ["media"]);
    const client = new ChanWebsocketClient(ws, channelId, options.format, options.json);
    await new Promise<void>((resolve) => {
      ws.addEventListener("open", () => resolve());
      void client.closed.then(() => resolve());
    });
    if (ws.readyState !== WebSocket.OPEN || options.silent) return client;
    const start = {
      connection_id: "sawt",
      channel: `WebSocket/sawt/0x${Math.floor(Math.random() * 2 ** 32).toString(16)}`,
      channel_id: channelId,
      format: options.format,
      optimal_frame_size: client.frameBytes,
      ptime: 20,
    };
    if (options.json)
      ws.send(
        JSON.stringify({
          event: "MEDIA_START",
          ...start,
          channel_variables: { MEDIA_WEBSOCKET_CONNECTION_ID: "sawt", ...options.variables },
        }),
      );
    else
      ws.send(
        `MEDIA_START ${Object.entries(start)
          .map(([k, v]) => `${k}:${v}`)
          .join(" ")}`,
      );
    return client;
  }

  /** An event to Sawt in the call's control format. */
  event(name: string, params: Record<string, string> = {}, bare?: string): void {
    if (this.json) this.ws.send(JSON.stringify({ event: name, channel_id: this.channelId, ...params }));
    else
      this.ws.send(
        [name, ...(bare !== undefined ? [bare] : Object.entries(params).map(([k, v]) => `${k}:${v}`))].join(" "),
      );
  }

  /** The caller's audio in the call's format, in optimal_frame_size BINARY frames on the wall clock. */
  async stream(samples: Float32Array): Promise<void> {
    const pcm = pcm16(samples);
    const bytes = this.format === "ulaw" ? g711Payload(new Int16Array(pcm.buffer), "PCMU") : pcm;
    const start = performance.now();
    for (let at = 0, n = 0; at < bytes.length; at += this.frameBytes, n++) {
      if (this.ws.readyState !== WebSocket.OPEN) return;
      this.ws.send(bytes.subarray(at, at + this.frameBytes));
      const wait = start + (n + 1) * 20 - performance.now();
      if (wait > 0) await Bun.sleep(wait);
    }
  }

  /** `DTMF_END digit:N channel_id:…`. */
  dtmf(digit: string): void {
    this.event("DTMF_END", { digit });
  }

  /** Answers a mark as Asterisk does once it has played it. */
  markProcessed(id: string): void {
    if (this.json) this.event("MEDIA_MARK_PROCESSED", { correlation_id: id });
    else this.event("MEDIA_MARK_PROCESSED", {}, id);
  }

  /** Waits for Sawt's command `name` (the `nth`, from 1). */
  next(name: string, nth = 1): Promise<Command> {
    return until(() => this.commands.filter((c) => c.command === name)[nth - 1], `${name} from Sawt`);
  }

  /** Sawt's media, joined. */
  audio(): Uint8Array {
    return Buffer.concat(this.media.map((m) => m.bytes));
  }

  /** Hangs up as Asterisk does: closes the socket. */
  hangup(): void {
    this.ws.close(1000, "hangup");
  }
}
