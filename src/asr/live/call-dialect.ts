/**
 * The call-level dialect of a live call, by the file path's rule (../dialect/call.ts): the best
 * label of the mean dialect-id logits over the first `dialectSeconds` of speech, each utterance
 * weighted by its seconds inside that budget. A live call hears its utterances one by one, so
 * its decision is that rule over the speech heard so far; once the budget is heard it is the
 * file's decision and never changes. Every final carries it, whatever the door.
 */
import { callDialect, scoreSpeech, type DialectDecision, type ScoredSpeech } from "../dialect/call.ts";
import { SPEECH_SAMPLE_RATE } from "../../audio/speech-rate.ts";
import type { DialectIdentifier } from "../recognizer.ts";

/** See the file comment. */
export class LiveCallDialect {
  private readonly scored: (ScoredSpeech | null)[] = [];
  private heard = 0;
  private current: DialectDecision | null = null;

  constructor(
    private readonly identifier: DialectIdentifier | null,
    private readonly dialectSeconds: number,
  ) {}

  /** The decision so far (null without a dialect-id pack or before any speech was scored). */
  get decision(): DialectDecision | null {
    return this.current;
  }

  /**
   * Hears one utterance: scored (through `run`, the engine's admission) while the budget is not
   * yet heard, then the decision is taken again over everything scored.
   */
  async hear(
    samples: Float32Array,
    run: <T>(job: () => Promise<T>) => Promise<T>,
    signal?: AbortSignal,
  ): Promise<DialectDecision | null> {
    const identifier = this.identifier;
    if (identifier === null || this.heard >= this.dialectSeconds || samples.length === 0) return this.current;
    this.scored.push(await run(() => scoreSpeech(identifier, samples, signal)));
    this.heard += samples.length / SPEECH_SAMPLE_RATE;
    this.current = callDialect(this.scored, identifier.labels, this.dialectSeconds);
    return this.current;
  }
}
