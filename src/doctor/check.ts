/** What one `sawt doctor` check reports; shared by the runtime and the install checks. */
import type { SawtConfig } from "../config/config.ts";

/** Outcome of one check. */
export interface CheckResult {
  readonly name: string;
  readonly status: "ok" | "warn" | "fail";
  readonly detail: string;
  readonly fix?: string;
  readonly data?: Record<string, unknown>;
}

/** A check over the loaded config. */
export type DoctorCheck = (config: SawtConfig) => Promise<CheckResult>;
