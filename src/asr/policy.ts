/**
 * The key's policy on every ASR call, whatever door it came through (issue 37: "doors pass the
 * wire's options; the engine applies the key's policy"): the key's stored phrase list is added to
 * the phrases the call asked for (./boost/store.ts), and the server's redaction floor
 * (`asr.redact`, which no request lowers), `asr.digits` and the redaction metric are joined to the
 * written forms and redaction the call asked for. The ASR service applies it to files
 * (./service.ts), the live core to live calls (./live/session.ts); no door does, so a new door
 * cannot forget it. TTS does the same with the key's lexicon.
 */
import type { Database } from "bun:sqlite";
import type { SawtConfig } from "../config/config.ts";
import type { AppContext } from "../core/context.ts";
import type { Hotword, TranscriptFormatting, TranscriptFormattingRequest } from "../core/asr.ts";
import { parseRedactClasses } from "../text/redact/classes.ts";
import { mergeHotwords } from "./boost/hotwords.ts";
import { phraseStoreOf } from "./boost/store.ts";

/** What the policy is built from. */
export interface AsrPolicySources {
  /** The store holding each key's phrase list; absent where there is none (`sawt asr`). */
  readonly db?: Database;
  readonly config: Pick<SawtConfig["asr"], "redact" | "digits">;
  /** Hears each redaction once (the metric). */
  readonly onRedaction?: (type: string) => void;
}

/** See the file comment. */
export class AsrPolicy {
  private readonly floor: ReadonlySet<string>;

  constructor(private readonly sources: AsrPolicySources) {
    this.floor = parseRedactClasses(sources.config.redact, "asr.redact");
  }

  /** The phrases a call of `keyId` decodes with: what it asked for and the key's list (its boost wins). */
  hotwords(keyId: string | undefined, asked: readonly Hotword[] = []): Hotword[] {
    const stored =
      keyId === undefined || this.sources.db === undefined ? [] : phraseStoreOf(this.sources.db).list(keyId);
    return mergeHotwords(asked, stored);
  }

  /** The written forms and redaction a call gets: what it asked for, over the server's floor. */
  formatting(asked: TranscriptFormattingRequest = {}): TranscriptFormatting {
    return {
      itn: asked.itn ?? true,
      redact: new Set([...this.floor, ...(asked.redact ?? [])]),
      digits: this.sources.config.digits,
      ...(this.sources.onRedaction ? { onRedaction: this.sources.onRedaction } : {}),
    };
  }
}

const policies = new WeakMap<AppContext, AsrPolicy>();

/** The policy of a running service: its key store, its settings and its redaction metric. */
export function asrPolicyOf(ctx: Pick<AppContext, "db" | "config" | "metrics">): AsrPolicy {
  let policy = policies.get(ctx as AppContext);
  if (!policy) {
    policy = new AsrPolicy({
      db: ctx.db,
      config: ctx.config.asr,
      onRedaction: (type) => ctx.metrics.countRedaction(type),
    });
    policies.set(ctx as AppContext, policy);
  }
  return policy;
}
