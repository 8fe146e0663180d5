/**
 * The kinds of operator setting, each built as a valibot schema from the same arguments that the
 * docs print (bounds, choices, item form). A setting's schema validates the value wherever it came
 * from (default, TOML, env); its messages are the ones `loadConfig` puts after the key's name.
 */
import * as v from "valibot";

/** How a setting's env variable reads (env values are always strings). */
export type SettingType = "string" | "int" | "bool" | "port" | "string[]";

/** One setting as declared: its schema and what the README, the TOML template and the loader read. */
export interface Setting<S extends v.GenericSchema = v.GenericSchema> {
  readonly type: SettingType;
  readonly schema: S;
  readonly default: v.InferOutput<S>;
  /** One or two sentences: what it does, what 0 or empty means. */
  readonly doc: string;
  /** Inclusive bounds of a number setting. */
  readonly min?: number;
  readonly max?: number;
  /** Allowed values of a string setting. */
  readonly oneOf?: readonly string[];
  /** Where the docs say more: a link the README appends to `doc`. */
  readonly see?: { readonly title: string; readonly href: string };
}

/** What a setting may add to its kind's facts. */
type Extra = Pick<Setting, "see">;

const STRING = "must be a string";
const BOOL = "must be true or false";
const NUMBER = "must be a number";
const LIST = "must be a list of strings";

/** Free text. */
export function text(value: string, doc: string, extra: Extra = {}): Setting<v.StringSchema<string>> {
  return { type: "string", schema: v.string(STRING), default: value, doc, ...extra };
}

/** One of a few words. */
export function choice<const T extends readonly [string, ...string[]]>(options: T, value: T[number], doc: string) {
  const schema = v.pipe(v.string(STRING), v.picklist(options, `must be one of ${options.join(", ")}`));
  return { type: "string", schema, default: value, doc, oneOf: options } satisfies Setting<typeof schema>;
}

function bounded(type: "int" | "port", value: number, min: number, max: number, doc: string, extra: Extra) {
  const between = `must be between ${min} and ${max}`;
  const schema = v.pipe(
    v.number(NUMBER),
    v.finite(NUMBER),
    v.integer("must be an integer"),
    v.minValue(min, between),
    v.maxValue(max, between),
  );
  return { type, schema, default: value, doc, min, max, ...extra } satisfies Setting<typeof schema>;
}

/** A whole number: `int(default, min, max, doc)`, bounds inclusive. */
export function int(value: number, min: number, max: number, doc: string, extra: Extra = {}) {
  return bounded("int", value, min, max, doc, extra);
}

/** A TCP port; 0 binds a free one. */
export function port(value: number, doc: string) {
  return bounded("port", value, 0, 65535, doc, {});
}

/** On or off. */
export function flag(value: boolean, doc: string, extra: Extra = {}): Setting<v.BooleanSchema<string>> {
  return { type: "bool", schema: v.boolean(BOOL), default: value, doc, ...extra };
}

function isRegExp(source: string): boolean {
  try {
    new RegExp(source, "iu");
    return true;
  } catch {
    return false;
  }
}

/** A list of regular expressions (matched case-insensitively). */
export function patterns(doc: string) {
  const item = v.pipe(
    v.string(LIST),
    v.check(isRegExp, (issue) => `contains an invalid regular expression ${JSON.stringify(issue.input)}`),
  );
  const schema = v.array(item, LIST);
  return { type: "string[]", schema, default: [] as string[], doc } satisfies Setting<typeof schema>;
}

/** A list of items of one form, `hint` naming it with an example. */
export function list(form: RegExp, hint: string, doc: string, extra: Extra = {}) {
  const item = v.pipe(
    v.string(LIST),
    v.regex(form, (issue) => `item ${JSON.stringify(issue.input)} must look like ${hint}`),
  );
  const schema = v.array(item, LIST);
  return { type: "string[]", schema, default: [] as string[], doc, ...extra } satisfies Setting<typeof schema>;
}

/**
 * `value` as `setting` holds it, or why it cannot be, in the setting's own words. A wrong type
 * anywhere in a list outranks a badly formed item, as the type is the first thing to fix.
 */
export function checkSetting(
  setting: Setting,
  value: unknown,
): { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly problem: string } {
  const result = v.safeParse(setting.schema, value);
  if (result.success) return { ok: true, value: result.output };
  const typeIssue = result.issues.find((issue) => issue.kind === "schema");
  return { ok: false, problem: (typeIssue ?? result.issues[0]).message };
}
