/**
 * How the realtime door checks a session update's fields (./session-config.ts, ./transcription.ts):
 * JSON objects as OpenAI's are (never arrays), numbers in range worded as OpenAI's error events
 * word them, and the error naming a field by its dotted path ({@link ParamError}).
 */
import * as v from "valibot";
import { AppError, Detail } from "../../errors/taxonomy.ts";

/** A client field that cannot be used: `param` is its dotted path, as OpenAI's error events name it. */
export class ParamError extends AppError {
  constructor(
    readonly param: string,
    message: string,
  ) {
    super("validation", Detail.validationFailed, { fields: [{ field: param, message }] });
  }
}

export const OBJECT = "must be an object";
export const STRING = "must be a string";

/** Whether `x` is a JSON object (not an array, not null). */
export const isJsonObject = (x: unknown): x is Record<string, unknown> =>
  typeof x === "object" && x !== null && !Array.isArray(x);

/** A JSON object with these fields (valibot's object schemas take arrays too; OpenAI's objects never are). */
export function jsonObject<const E extends v.ObjectEntries>(entries: E, message = OBJECT) {
  return v.pipe(v.custom<Record<string, unknown>>(isJsonObject, message), v.object(entries, message));
}

/** A number from `min` to `max`, worded as OpenAI's error events carry it. */
export function numberIn(min: number, max: number) {
  const message = `must be a number between ${min} and ${max}`;
  return v.optional(v.pipe(v.number(message), v.finite(message), v.minValue(min, message), v.maxValue(max, message)));
}
