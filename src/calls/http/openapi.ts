/**
 * How the call API's REST routes read in the API docs (tag `Calls`). The WebSocket routes
 * (`/v1/calls`, `/v1/calls/{id}`, and chan_websocket's `/v1/calls/asterisk`) are described in
 * docs/asterisk.md: OpenAPI has no way to say them.
 */
import type { OpenAPIV3 } from "openapi-types";
import { TRANSCRIPT_FORMATS } from "../../core/asr.ts";
import { AUTHED_HEADERS, authedOperation } from "../../http/openapi.ts";

const TAG = ["Calls"];

const CALL_ID: OpenAPIV3.ParameterObject = {
  name: "id",
  in: "path",
  required: true,
  schema: { type: "string" },
  description:
    "The call id: the AudioSocket UUID (lower-case 8-4-4-4-12), the chan_websocket channel_id, or the id POST /v1/calls answered.",
  example: "4f1c2a9e-1b2c-4d5e-8f90-a1b2c3d4e5f6",
};

const CALL_EXAMPLE = {
  id: "4f1c2a9e-1b2c-4d5e-8f90-a1b2c3d4e5f6",
  door: "audiosocket",
  format: "slin",
  sample_rate: 8000,
  started_at: "2026-01-12T09:30:00.000Z",
};

const json = (description: string, example: unknown, schema?: OpenAPIV3.SchemaObject): OpenAPIV3.ResponseObject => ({
  description,
  headers: AUTHED_HEADERS,
  content: { "application/json": { ...(schema ? { schema } : {}), example } },
});

const COMMAND_OK = json("The command was taken; its playback reports on the call's WebSocket.", {
  call_id: CALL_EXAMPLE.id,
  accepted: "say",
});

const context: OpenAPIV3.SchemaObject = {
  type: "string",
  pattern: "^[A-Za-z0-9._:-]{1,48}$",
  description: "The playback's name, carried by `playback.done` and `mark`; `clear` may name one (default `default`).",
};

/** The operations, by route. */
export const CALL_DOCS = {
  list: authedOperation({
    operationId: "listCalls",
    summary: "List the key's open calls",
    description:
      "Calls that map to this key, on any door (AudioSocket, chan_websocket, externalMedia). WebSocket `/v1/calls` sends `call.started` for each new one.",
    tags: TAG,
    success: { "200": json("The open calls.", { object: "list", data: [CALL_EXAMPLE] }) },
    errors: [503],
  }),
  create: authedOperation({
    operationId: "createExternalMediaCall",
    summary: "Open an externalMedia call",
    description:
      "Holds an RTP port for an ARI `externalMedia` channel: pass `external_host` and `format` to ARI. Sawt latches onto the first RTP packet's source and payload type (no SDP), sends its speech there, and reads RFC 4733 digits. The call maps to this key.",
    tags: TAG,
    requestBody: {
      required: true,
      content: {
        "application/json": {
          schema: {
            type: "object",
            required: ["format"],
            properties: {
              format: { type: "string", enum: ["ulaw", "alaw", "slin16"] },
              voice: { type: "string", description: "The voice `say` uses when it names none." },
              language: { type: "string", enum: ["ar", "en"], description: "The recogniser's language." },
            },
          },
          example: { format: "ulaw", voice: "Yara" },
        },
      },
    },
    success: {
      "201": json("The call, open and waiting for RTP.", {
        id: CALL_EXAMPLE.id,
        external_host: "10.0.0.5:21000",
        format: "ulaw",
      }),
    },
    errors: [400, 413, 422, 503],
  }),
  say: command("sayToCall", "Speak into a call", "say", {
    type: "object",
    properties: {
      text: { type: "string", description: "Plain text to speak (or `ssml`)." },
      ssml: {
        type: "string",
        description: "SSML, starting with `<speak`; each `<mark name>` is a `mark` event once the caller heard it.",
      },
      voice: { type: "string" },
      dialect: { type: "string" },
      context,
    },
  }),
  clear: command("clearCall", "Stop what a call is saying (barge-in)", "clear", {
    type: "object",
    properties: { context },
  }),
  hangup: command("hangUpCall", "Hang a call up", "hangup", { type: "object", properties: {} }),
  transcript: authedOperation({
    operationId: "getCallTranscript",
    summary: "A call's transcript, both sides",
    description:
      "The caller's words (speaker `caller`, channel 0) and what Sawt said (speaker `bot`, channel 1), in time order, in any transcription format; the transcript so far while the call is open, kept for `calls.retention_days` after it ended.",
    tags: TAG,
    parameters: [
      CALL_ID,
      {
        name: "format",
        in: "query",
        required: false,
        schema: { type: "string", enum: [...TRANSCRIPT_FORMATS], default: "json" },
      },
    ],
    success: {
      "200": {
        description: "The transcript in the format asked for.",
        headers: AUTHED_HEADERS,
        content: { "application/json": { example: { text: "السلام عليكم أهلا بك", language: "ar" } } },
      },
    },
    errors: [404, 422, 503],
  }),
};

function command(operationId: string, summary: string, type: string, schema: OpenAPIV3.SchemaObject) {
  return authedOperation({
    operationId,
    summary,
    description: `The \`${type}\` command, as the call's WebSocket takes it (without \`type\`). Commands from every socket and route run in arrival order.`,
    tags: TAG,
    parameters: [CALL_ID],
    requestBody: { required: type === "say", content: { "application/json": { schema } } },
    success: { "200": COMMAND_OK },
    errors: [400, 404, 413, 422, 503],
  });
}
