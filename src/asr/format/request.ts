/**
 * What a transcription asks of written forms and redaction, the same on every door: `itn`
 * (default on) and `redact` (classes or types; an unknown one is a 422 naming the door's field)
 * from the request, joined with the server's `asr.redact` (a floor a request cannot lower: Sawt
 * has no per-key settings), `asr.digits`, and the redaction metric. Each door only names its
 * fields (REST form `itn`/`redact`, the realtime session's, jambonz's start message, gRPC's
 * RecognitionConfig) and hands the result to the ASR service or the live session.
 */
import type { TranscriptFormatting } from "../../core/asr.ts";
import type { AppContext } from "../../core/context.ts";
import { AppError, Detail } from "../../errors/taxonomy.ts";
import { parseRedactClasses } from "../../text/redact/classes.ts";

/** The request's own fields, as the door read them (absent: the defaults). */
export interface FormattingFields {
  readonly itn?: boolean;
  /** "pci,pii", ["pci", "phone"], or absent. */
  readonly redact?: unknown;
}

/**
 * The call's formatting. `field` names the door's `redact` field in a 422 (`redact`,
 * `session.redact`, `config.redact`).
 */
export function requestFormatting(
  ctx: Pick<AppContext, "config" | "metrics">,
  fields: FormattingFields,
  field: string,
): TranscriptFormatting {
  const asked = parseRedactClasses(fields.redact, field);
  const floor = parseRedactClasses(ctx.config.asr.redact, "asr.redact");
  return {
    itn: fields.itn ?? true,
    redact: new Set([...floor, ...asked]),
    digits: ctx.config.asr.digits,
    onRedaction: (type) => ctx.metrics.countRedaction(type),
  };
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
