/**
 * The call API's WebSockets (issue 41), for the application: `/v1/calls` sends `call.started`
 * for every new call the key may see (so an application learns of calls it did not start), and
 * `/v1/calls/{id}` follows one call — `call.started` first, then its events until `call.ended`,
 * after which the socket closes (1000) — and takes its commands (`say`, `text`, `clear`,
 * `hangup`; JSON objects with a `type`). Several sockets may watch one call; commands from all of
 * them, and from the REST routes, run in arrival order. Each command counts one request of the
 * key's rate limit, as a REST call does, but `text` pieces: the speech context they speak in counts
 * one when it opens (the speech stream's rule on every door). A command that cannot run is
 * answered with an `error` event and the socket stays open.
 */
import { Elysia } from "elysia";
import type { AppContext } from "../../core/context.ts";
import { admit } from "../../edge/auth.ts";
import { AppError, toAppError } from "../../errors/taxonomy.ts";
import { webSocketRoutes } from "../../http/ws-route.ts";
import { parseMessage } from "../commands.ts";
import { errorEvent } from "../events.ts";
import type { CallService } from "../service.ts";

/** A WebSocket message names its fields as sent; the whole message is `message`. */
const MESSAGE_FIELDS = { root: "message" } as const;
/** Idle seconds before Bun closes a quiet application socket (a call may be long and quiet). */
const IDLE_TIMEOUT_S = 960;

/** The call id of `/v1/calls/{id}`. */
function callIdOf(request: Request): string {
  const segment = new URL(request.url).pathname.split("/")[3] ?? "";
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Both application WebSockets; `calls` gives the process's call service (503 when calls are off). */
export function callSocketRoutes(ctx: AppContext, calls: () => CallService) {
  const maxPayloadLength = ctx.config.server.max_json_bytes;
  const feed = webSocketRoutes(ctx, {
    name: "calls-feed",
    paths: ["/v1/calls"],
    maxPayloadLength,
    idleTimeout: IDLE_TIMEOUT_S,
    errorEvent: (error) => errorEvent(error),
    connect(socket, upgrade) {
      const stop = calls().follow(upgrade.key, (event) => socket.sendJson(event));
      return {
        receive: () =>
          void socket.sendError(
            new AppError("bad_request", "This socket only announces calls: command a call on /v1/calls/{id}"),
          ),
        abandon: stop,
      };
    },
  });
  const call = webSocketRoutes(ctx, {
    name: "calls-call",
    paths: ["/v1/calls/:id"],
    maxPayloadLength,
    idleTimeout: IDLE_TIMEOUT_S,
    errorEvent: (error) => errorEvent(error, undefined),
    connect(socket, upgrade) {
      const session = calls().get(callIdOf(upgrade.request), upgrade.key);
      const stop = session.watch((event) => {
        socket.sendJson(event);
        if (event.type === "call.ended") socket.close(1000, "call ended");
      });
      return {
        receive(message) {
          try {
            if (message instanceof Uint8Array) throw new AppError("bad_request", "Commands are JSON text messages");
            let command;
            try {
              command = parseMessage(message, MESSAGE_FIELDS);
            } catch (error) {
              admit(ctx, upgrade.key);
              throw error;
            }
            // A `text` piece is part of its context, which the speech stream counts once, as every streaming door does.
            if (command.type !== "text") admit(ctx, upgrade.key);
            session.command(command);
          } catch (error) {
            socket.sendJson(errorEvent(toAppError(error), session.id));
          }
        },
        abandon: stop,
      };
    },
  });
  return new Elysia({ name: "calls-sockets" }).use(feed).use(call);
}
