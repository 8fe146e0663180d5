/**
 * What a transcription asks of written forms and redaction, read the same way on every door: `itn`
 * (default on) and `redact` (classes or types; an unknown one is a 422 naming the door's field).
 * Each door only names its fields (REST form `itn`/`redact`, the realtime session's, jambonz's
 * start message, gRPC's RecognitionConfig, a job's) and hands what the wire asked to the ASR
 * service or the live session, which add the server's floor (../policy.ts).
 */
import type { TranscriptFormattingRequest } from "../../core/asr.ts";
import { AppError, Detail } from "../../errors/taxonomy.ts";
import { parseRedactClasses } from "../../text/redact/classes.ts";

/** The request's own fields, as the door read them (absent: the defaults). */
export interface FormattingFields {
  readonly itn?: boolean;
  /** "pci,pii", ["pci", "phone"], or absent. */
  readonly redact?: unknown;
}

/**
 * What the wire asked, checked. `field` names the door's `redact` field in a 422 (`redact`,
 * `session.redact`, `config.redact`).
 */
export function formattingRequest(fields: FormattingFields, field: string): TranscriptFormattingRequest {
  const redact = parseRedactClasses(fields.redact, field);
  return { ...(fields.itn !== undefined ? { itn: fields.itn } : {}), ...(redact.size > 0 ? { redact } : {}) };
}

/** A door's `itn` value read as a boolean (`true`/`false`, also as form text), or a 422 naming `field`. */
export function itnField(value: unknown, field: string): boolean | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value === "boolean") return value;
  if (typeof value === "string" && /^(true|false)$/i.test(value.trim())) return value.trim().toLowerCase() === "true";
  throw new AppError("validation", Detail.validationFailed, {
    fields: [{ field, message: "Expected true or false" }],
  });
}
