/**
 * A test-only live door, written as any new door would be (docs/architecture.md, "Adding a live
 * door"): one adapter folder and one registration line (`startInProcess(env, { plugins:
 * [probeDoor] })`). `POST /test/probe/live?rate=R&threshold=…&prefix_padding_ms=…&silence_duration_ms=…`
 * takes raw pcm16 at R Hz, runs it through the live core in 20 ms chunks as a caller would send it,
 * and answers every event of the live event model as JSON: what any door receives for that audio.
 */
import { Elysia } from "elysia";
import { openLiveSession } from "../../../../src/asr/live/session.ts";
import type { LiveEvent } from "../../../../src/core/asr.ts";
import type { AppContext } from "../../../../src/core/context.ts";
import { presentedKey, verify } from "../../../../src/edge/auth.ts";
import type { FeaturePlugin } from "../../../../src/app/http-app.ts";

/** The probe door's HTTP plugin. */
export const probeDoor: FeaturePlugin = (ctx: AppContext) =>
  new Elysia().post(
    "/test/probe/live",
    async ({ request, query }) => {
      const key = verify(ctx, presentedKey(request.headers));
      const rate = Number(query.rate ?? 16000);
      const format = { encoding: "pcm_s16le" as const, sampleRate: rate };
      const events: LiveEvent[] = [];
      const ended = Promise.withResolvers<void>();
      const session = openLiveSession(
        ctx,
        {
          door: "realtime",
          requestId: "probe",
          caller: { key },
          onEvent: (event) => events.push(event),
          onEnd: () => ended.resolve(),
        },
        format,
      );
      const turnDetection = {
        threshold: Number(query.threshold ?? 0.5),
        prefixPaddingMs: Number(query.prefix_padding_ms ?? 300),
        silenceDurationMs: Number(query.silence_duration_ms ?? 500),
      };
      session.configure({ turnDetection, partialIntervalMs: ctx.config.streaming.partial_interval_ms }, format);
      const bytes = new Uint8Array(await request.arrayBuffer());
      const chunk = (rate * 2 * 20) / 1000;
      for (let at = 0; at < bytes.length; at += chunk) await session.audio(bytes.subarray(at, at + chunk));
      await session.finish();
      await ended.promise;
      return events.map((e) => (e.type === "final" ? { ...e, computeSeconds: 0 } : e));
    },
    { parse: "none" },
  );
