/**
 * The call API's REST routes (issue 41): `GET /v1/calls` (the key's open calls), `POST /v1/calls`
 * (an externalMedia call), `POST /v1/calls/{id}/say|clear|hangup` (the WebSocket's commands, same
 * bodies without `type`) and `GET /v1/calls/{id}/transcript?format=` (both sides, in every
 * transcription format). Only the key a call maps to sees it: for any other key it does not
 * exist (404). With `calls.enabled` off every route answers 503 saying so.
 */
import { Elysia } from "elysia";
import * as v from "valibot";
import { TRANSCRIPT_FORMATS, type TranscriptFormat } from "../../core/asr.ts";
import type { AppContext } from "../../core/context.ts";
import { BODY_FIELDS, fieldErrors } from "../../errors/fields.ts";
import { AppError, Detail } from "../../errors/taxonomy.ts";
import { authPlugin } from "../../http/auth.ts";
import { readJsonBody } from "../../http/body.ts";
import { json } from "../../http/json.ts";
import { renderTranscript } from "../../transcripts/formats.ts";
import { type CallCommand, parseCommand } from "../commands.ts";
import type { CallService } from "../service.ts";
import { CALL_DOCS } from "./openapi.ts";

/** `POST /v1/calls`'s body. */
const ExternalMediaSchema = v.object({
  format: v.picklist(["ulaw", "alaw", "slin16"], "Must be ulaw, alaw or slin16"),
  voice: v.optional(v.string("Expected a string")),
  language: v.optional(v.picklist(["ar", "en"], "Must be ar or en")),
});

/** The call API's REST plugin; `calls` gives the process's call service (503 when calls are off). */
export function callRoutes(ctx: AppContext, calls: () => CallService) {
  const body = (request: Request) => readJsonBody(request, ctx.config.server.max_json_bytes);
  const command =
    (type: CallCommand["type"]) =>
    async (context: {
      request: Request;
      params: { id: string };
      caller: { key: Parameters<CallService["get"]>[1] };
    }) => {
      const session = calls().get(context.params.id, context.caller.key);
      const fields = (await body(context.request)) ?? {};
      session.command(parseCommand(type, fields, BODY_FIELDS));
      return json({ call_id: session.id, accepted: type });
    };
  return new Elysia({ name: "calls" })
    .use(authPlugin(ctx))
    .get("/v1/calls", ({ caller }) => json({ object: "list", data: calls().list(caller.key) }), {
      auth: true,
      detail: CALL_DOCS.list,
    })
    .post(
      "/v1/calls",
      async ({ request, caller }) => {
        const service = calls();
        const result = v.safeParse(ExternalMediaSchema, (await body(request)) ?? {});
        if (!result.success)
          throw new AppError("validation", Detail.validationFailed, {
            fields: fieldErrors(result.issues, BODY_FIELDS),
          });
        return json(await service.externalMedia(caller.key, result.output), 201);
      },
      { auth: true, parse: "none", detail: CALL_DOCS.create },
    )
    .post("/v1/calls/:id/say", command("say"), { auth: true, parse: "none", detail: CALL_DOCS.say })
    .post("/v1/calls/:id/clear", command("clear"), { auth: true, parse: "none", detail: CALL_DOCS.clear })
    .post("/v1/calls/:id/hangup", command("hangup"), { auth: true, parse: "none", detail: CALL_DOCS.hangup })
    .get(
      "/v1/calls/:id/transcript",
      ({ params, query, caller }) => {
        const format = (query.format ?? "json") as TranscriptFormat;
        if (!TRANSCRIPT_FORMATS.includes(format))
          throw new AppError("validation", Detail.validationFailed, {
            fields: [{ field: "query.format", message: `Must be one of ${TRANSCRIPT_FORMATS.join(", ")}` }],
          });
        const service = calls();
        let transcript;
        try {
          // An open call's transcript so far; once it ended, the stored one.
          transcript = service.get(params.id, caller.key).buildTranscript();
        } catch {
          const stored = service.stored(params.id, caller.key);
          transcript = stored.transcript;
          // Only a call the process was serving when it died has none (store.ts endInterrupted):
          // its transcript was in that process's memory.
          if (!transcript)
            throw new AppError(
              "not_found",
              `No transcript of call ${params.id}: the server stopped during the call, and its transcript was lost`,
            );
        }
        const rendered = renderTranscript(transcript, format, { granularities: ["segment", "word"] });
        return new Response(rendered.body, { headers: { "content-type": rendered.contentType } });
      },
      { auth: true, detail: CALL_DOCS.transcript },
    );
}
