/**
 * What can be redacted and how a request names it: the classes `pci` (payment card data, PCI
 * DSS) and `pii` (other personal identifiers), or single types. An unknown name is a typed
 * validation error, never ignored: a client that asked to hide something must not get it shown.
 */
import { AppError, Detail } from "../../errors/taxonomy.ts";

/** Every redaction type, as it appears in `[REDACTED:<type>]` and `redactions[].type`. */
export const REDACTION_TYPES = ["card", "cvv", "expiry", "iban", "national_id", "phone", "email"] as const;
/** One redaction type. */
export type RedactionType = (typeof REDACTION_TYPES)[number];

/** The classes and the types each one covers. */
export const REDACTION_CLASSES: Readonly<Record<string, readonly RedactionType[]>> = {
  pci: ["card", "cvv", "expiry"],
  pii: ["iban", "national_id", "phone", "email"],
};

/**
 * Parses `redact` ("pci,pii", ["pci", "phone"], or nothing) into the set of types to hide.
 * Throws a 422 naming `field` for a wrong type or an unknown class.
 */
export function parseRedactClasses(value: unknown, field: string): ReadonlySet<RedactionType> {
  if (value === undefined || value === null || value === false) return new Set();
  const names =
    typeof value === "string"
      ? value.split(",")
      : Array.isArray(value) && value.every((v) => typeof v === "string")
        ? value
        : undefined;
  if (names === undefined) throw invalid(field, "Expected a comma-separated string or an array of strings");
  const types = new Set<RedactionType>();
  for (const raw of names as string[]) {
    const name = raw.trim().toLowerCase();
    if (name === "") continue;
    const expanded =
      REDACTION_CLASSES[name] ??
      (REDACTION_TYPES.includes(name as RedactionType) ? [name as RedactionType] : undefined);
    if (!expanded) {
      const known = [...Object.keys(REDACTION_CLASSES), ...REDACTION_TYPES].join(", ");
      throw invalid(field, `Unknown redaction class; expected one of ${known}`);
    }
    for (const t of expanded) types.add(t);
  }
  return types;
}

function invalid(field: string, message: string): AppError {
  return new AppError("validation", Detail.validationFailed, { fields: [{ field, message }] });
}
