/**
 * The contract between the MRCP transport kit and the feature doors: a door (src/tts/mrcp/,
 * src/asr/mrcp/) is a {@link MrcpResource} that opens one {@link MrcpChannel} per control channel
 * the IVR allocates; the kit hands it requests and gives it the session's audio and a way to
 * answer. Doors never see SIP, SDP or framing; they never import each other (barge-in crosses
 * resources through {@link MrcpSessionView.bargeIn}).
 */
import type { AppContext } from "../core/context.ts";
import type { ApiKeyRecord } from "../store/keys.ts";
import type { MrcpRequest, RequestState } from "./control/message.ts";
import type { RtpEndpoint } from "../media/endpoint.ts";
import type { AudioCodec } from "../media/codec.ts";

/** MRCP resource names Sawt serves. */
export type ResourceName = "speechsynth" | "speechrecog";

/** What a channel knows of its session. */
export interface MrcpSessionView {
  readonly id: string;
  /** The API key the peer maps to (`mrcp.peers`). */
  readonly key: ApiKeyRecord;
  /** The audio stream linked to this channel: its codec and RTP socket; undefined without m=audio. */
  readonly audio:
    | { readonly codec: AudioCodec; readonly telephoneEvent: number | undefined; readonly rtp: RtpEndpoint }
    | undefined;
  /** A recogniser heard speech start: every other channel with a `bargeIn` hears it. */
  bargeIn(from: MrcpChannel): void;
  /** Activity: resets the idle timer. */
  touch(): void;
}

/** How a channel answers. */
export interface MrcpChannelIo {
  /** `<session>@<resource>`, the Channel-Identifier. */
  readonly id: string;
  readonly session: MrcpSessionView;
  respond(
    request: MrcpRequest,
    status: number,
    state: RequestState,
    headers?: readonly (readonly [string, string])[],
    body?: string,
  ): void;
  event(
    name: string,
    requestId: number,
    state: RequestState,
    headers?: readonly (readonly [string, string])[],
    body?: string,
  ): void;
  /** Channel-level parameters set by SET-PARAMS (lower-case names). */
  readonly params: Map<string, string>;
}

/** One open control channel of a resource. */
export interface MrcpChannel {
  /** A request for this channel (SET-PARAMS/GET-PARAMS are handled by the kit). */
  request(request: MrcpRequest): void;
  /** Another channel of the session heard speech start (barge-in). */
  bargeIn?(): void;
  /** A request is in progress (a session is not idle while one is; its own timers bound it). */
  busy?(): boolean;
  /** The session ends: stop everything, answer nothing more. */
  close(): void;
}

/** A resource type a door serves. */
export interface MrcpResource {
  readonly name: ResourceName;
  /** Header names (lower-case) SET-PARAMS may set on this resource's channels. */
  readonly parameters: ReadonlySet<string>;
  open(ctx: AppContext, io: MrcpChannelIo): MrcpChannel;
}
