/** `sawt serve`: runs the service until SIGTERM/SIGINT, then drains and exits 0. */
import { loadConfig } from "../config/config.ts";
import { log, setLogLevel } from "../log/logger.ts";
import { startServer } from "../app/server.ts";
import { superviseServer } from "../app/supervision.ts";
import { VERSION } from "../version.ts";
import { parseArgs, stringFlag } from "./args.ts";
import type { Command } from "./command.ts";

const flags = { config: "value" } as const;

/** The serve command. */
export const serveCommand: Command = {
  name: "serve",
  usage: `Usage: sawt serve [--config FILE]

Runs Sawt. Prints one JSON line {"msg":"listening","http":P,"grpc_asr":P,"grpc_tts":P} on stdout
(with "sip":P and "mrcp":P when mrcp.enabled, "audiosocket":P when calls.enabled) once every port is bound; logs go to stderr as JSON lines. SIGTERM or SIGINT drains: health
turns 503 (draining), new speech requests get 503, in-flight and queued work finishes (up to
server.drain_timeout_ms), ports close, the database is closed cleanly, exit 0. A second signal
exits at once with 1. With server.drain_grace_ms, /ready answers 503 that long first while
requests are still served, so a load balancer stops sending before the drain refuses anything.
SIGHUP reloads the model packs: new requests use the packs now in paths.models_dir once they are
warm, requests in flight finish on the old ones (docs/models.md).

Options:
  --config FILE   TOML config (default: $SAWT_CONFIG, else built-in defaults)`,
  flags,
  async run(argv) {
    const args = parseArgs(argv, flags);
    const config = loadConfig({ file: stringFlag(args, "config") });
    setLogLevel(config.log.level);
    const server = await startServer(config);
    process.stdout.write(
      JSON.stringify({
        msg: "listening",
        http: server.ports.http,
        grpc_asr: server.ports.grpc_asr,
        grpc_tts: server.ports.grpc_tts,
        ...(server.ports.sip !== undefined ? { sip: server.ports.sip, mrcp: server.ports.mrcp } : {}),
        ...(server.ports.audiosocket !== undefined ? { audiosocket: server.ports.audiosocket } : {}),
      }) + "\n",
    );
    log.info("started", { version: VERSION, host: config.server.host, ...server.ports });
    // systemd (Type=notify): READY=1 after the engines settle, watchdog pings, STOPPING=1 below.
    const supervision = superviseServer(server);
    return await new Promise<number>((resolve) => {
      let stopping = false;
      const shutdown = (signal: string) => {
        if (stopping) {
          // A second signal (an impatient operator's second Ctrl-C): stop waiting for the drain.
          log.warn("second signal, exiting without finishing the drain", { signal });
          resolve(1);
          return;
        }
        stopping = true;
        log.info("shutdown", { signal, drain_timeout_ms: config.server.drain_timeout_ms });
        supervision.stopping();
        const grace = config.server.drain_grace_ms;
        // Should closing hang past the drain deadline, do not outlive it by much.
        setTimeout(
          () => {
            log.error("shutdown did not finish in time, exiting");
            resolve(1);
          },
          grace + config.server.drain_timeout_ms + 10_000,
        ).unref();
        // Behind a load balancer: /ready (and gRPC health) answer 503 first while requests are still
        // served, so the balancer's health checks take this box out before anything is refused.
        if (grace > 0) {
          server.ctx.shuttingDown = true;
          log.info("not ready, serving until the balancer notices", { drain_grace_ms: grace });
        }
        Bun.sleep(grace)
          .then(() => server.stop())
          .then(
            () => {
              supervision.close();
              log.info("stopped");
              resolve(0);
            },
            (error) => {
              log.error("shutdown failed", { error: error instanceof Error ? error : String(error) });
              resolve(1);
            },
          );
      };
      // SIGHUP (`systemctl kill --kill-whom=main -s HUP sawt`): pick up installed or removed model packs, no call dropped.
      process.on("SIGHUP", () => {
        if (!stopping)
          void server.reload("SIGHUP").catch((error) => log.error("models reload failed", { error: String(error) }));
      });
      process.on("SIGTERM", () => shutdown("SIGTERM"));
      process.on("SIGINT", () => shutdown("SIGINT"));
    });
  },
};
