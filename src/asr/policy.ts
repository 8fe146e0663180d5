/**
 * The key's policy on every ASR call, whatever door it came through (issue 37: "doors pass the
 * wire's options; the engine applies the key's policy"): the key's stored phrase list is added to
 * the phrases the call asked for (./boost/store.ts), and the server's redaction floor
 * (`asr.redact`, which no request lowers), `asr.digits` and the redaction metric are joined to the
 * written forms and redaction the call asked for. The ASR service applies it to files
 * (./service.ts), the live core to live calls (./live/session.ts); no door does, so a new door
 * cannot forget it. TTS does the same with the key's lexicon.
 */
import type { SawtConfig } from "../config/config.ts";
import type { AppContext } from "../core/context.ts";
import type { Hotword, TranscriptFormatting, TranscriptFormattingRequest } from "../core/asr.ts";
import { parseRedactClasses } from "../text/redact/classes.ts";
import { mergeHotwords } from "./boost/hotwords.ts";
import { phraseStoreOf } from "./boost/store.ts";

/** What the policy is built from. */
export interface AsrPolicySources {
  /** A key's stored phrase list; absent where there is no key store (`sawt asr`). */
  readonly phrases?: (keyId: string) => readonly Hotword[];
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
    const stored = keyId === undefined ? [] : (this.sources.phrases?.(keyId) ?? []);
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

const policies = new WeakMap<object, AsrPolicy>();
const sent = new WeakMap<object, Map<string, readonly Hotword[]>>();

/**
 * The jobs worker's phrase lists: it has no key store (src/app/jobs-worker.ts), so the service
 * sends each file's key's list with the file and the worker keeps it here, where its engine's
 * policy reads it instead of the store.
 */
export function sentPhraseLists(ctx: Pick<AppContext, "db">): Map<string, readonly Hotword[]> {
  let lists = sent.get(ctx);
  if (!lists) sent.set(ctx, (lists = new Map()));
  return lists;
}

/** The policy of a running process: its key store (or the lists it was sent), its settings and its redaction metric. */
export function asrPolicyOf(ctx: Pick<AppContext, "db" | "config" | "metrics">): AsrPolicy {
  let policy = policies.get(ctx);
  if (!policy) {
    policy = new AsrPolicy({
      phrases: (keyId) => sent.get(ctx)?.get(keyId) ?? phraseStoreOf(ctx.db).list(keyId),
      config: ctx.config.asr,
      onRedaction: (type) => ctx.metrics.countRedaction(type),
    });
    policies.set(ctx, policy);
  }
  return policy;
}
