/**
 * The process-wide budget for decoded audio held in memory (issue #16). A compressed upload is
 * tiny next to its decoded float PCM (one hour of silent FLAC: 600 KB on the wire, 230 MB as
 * floats), so the upload limit says nothing about memory. Every ASR request reserves what it may
 * hold at most before it decodes or buffers audio, and gives it back when it ends; a reservation
 * that would overdraw the budget is refused at once with the engine's 503 busy error, so the
 * decoded audio of all requests together never exceeds the budget.
 */
import { AppError } from "../errors/taxonomy.ts";
import { SPEECH_SAMPLE_RATE } from "./speech-rate.ts";

/** Bytes of one second of 16 kHz mono float32 audio. */
export const PCM_BYTES_PER_SECOND = SPEECH_SAMPLE_RATE * 4;

/** A granted reservation; release it exactly once (further calls do nothing). */
export interface PcmHold {
  readonly bytes: number;
  release(): void;
}

/** Settings of a budget. */
export interface PcmBudgetOptions {
  /** Total bytes of decoded audio all requests may hold at once. */
  readonly totalBytes: number;
  /** Detail of the 503 (the engine's busy text). */
  readonly busyDetail: string;
  /** Retry-After seconds of the 503. */
  readonly retryAfterSeconds?: number;
}

/** A counting budget of decoded-audio bytes. */
export class PcmBudget {
  private used = 0;
  private peak = 0;
  private refusedCount = 0;

  constructor(readonly options: PcmBudgetOptions) {}

  /** Bytes reserved now. */
  get reserved(): number {
    return this.used;
  }

  /** Highest reservation total seen, and how many reservations were refused. */
  get stats(): { reserved: number; peak: number; refused: number; total: number } {
    return { reserved: this.used, peak: this.peak, refused: this.refusedCount, total: this.options.totalBytes };
  }

  /** Reserves `bytes` or throws AppError `unavailable` (503, busy detail) when they do not fit. */
  reserve(bytes: number): PcmHold {
    const wanted = Math.max(0, Math.ceil(bytes));
    if (this.used + wanted > this.options.totalBytes) {
      this.refusedCount++;
      throw new AppError("unavailable", this.options.busyDetail, { retryAfter: this.options.retryAfterSeconds ?? 5 });
    }
    this.used += wanted;
    this.peak = Math.max(this.peak, this.used);
    let held = true;
    return {
      bytes: wanted,
      release: () => {
        if (!held) return;
        held = false;
        this.used -= wanted;
      },
    };
  }
}
