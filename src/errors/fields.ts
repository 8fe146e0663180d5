/**
 * Turns schema (valibot) issues into the 422 field list of the validation error shape, named in
 * the terms of the door that received the request: REST says `body.sample_rate` and
 * `form.language`, gRPC names the proto field (`sample_rate_hz`), the WebSocket the message field.
 * One schema validates every door; only these names differ.
 */
import * as v from "valibot";
import type { FieldError } from "./taxonomy.ts";

/** How one door names the fields of a request it validated with a shared schema. */
export interface FieldNaming {
  /** Prefix of every field (`body`, `form`), or none when the door names fields bare (gRPC, WebSocket). */
  readonly prefix?: string;
  /** The name of the whole request, for problems not tied to one field (e.g. "Expected a JSON object"). */
  readonly root: string;
  /** Wire names of schema fields that the door calls differently (`sample_rate` → `sample_rate_hz`). */
  readonly rename?: Readonly<Record<string, string>>;
}

/** REST JSON bodies: `body.<field>`. */
export const BODY_FIELDS: FieldNaming = { prefix: "body", root: "body" };
/** REST multipart forms: `form.<field>`. */
export const FORM_FIELDS: FieldNaming = { prefix: "form", root: "form" };

/** The name a door gives the field at `path` (a dotted schema path, or undefined for the root). */
export function fieldName(path: string | undefined, naming: FieldNaming): string {
  if (!path) return naming.root;
  const [head, ...rest] = path.split(".");
  const wire = [naming.rename?.[head!] ?? head!, ...rest].join(".");
  return naming.prefix ? `${naming.prefix}.${wire}` : wire;
}

/** Maps valibot issues to field errors named as `naming` says (`body.speed`, `sample_rate_hz`). */
export function fieldErrors(issues: readonly v.BaseIssue<unknown>[], naming: FieldNaming): FieldError[] {
  return issues.map((issue) => ({
    field: fieldName(v.getDotPath(issue) ?? undefined, naming),
    message: issue.message,
  }));
}
