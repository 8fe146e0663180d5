/** Turns schema (valibot) issues into the 422 field list of the validation error shape. */
import * as v from "valibot";
import type { FieldError } from "./taxonomy.ts";

/** Maps valibot issues to field errors with a location prefix (`body`, `form`): `body.speed`. */
export function fieldErrors(issues: readonly v.BaseIssue<unknown>[], location: string): FieldError[] {
  return issues.map((issue) => {
    const path = v.getDotPath(issue);
    return { field: path ? `${location}.${path}` : location, message: issue.message };
  });
}
