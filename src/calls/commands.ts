/**
 * The call API's commands (issue 41), one schema each, read alike from a WebSocket message
 * (`{"type": "say", …}`) and from a REST body (`POST /v1/calls/{id}/say`, the same fields without
 * `type`): `say` speaks text or SSML, `text` streams text in pieces (an LLM's output) and `flush`
 * speaks what is pending and ends the turn, `clear` stops what is playing (barge-in), `hangup`
 * ends the call.
 */
import * as v from "valibot";
import { type FieldNaming, fieldErrors } from "../errors/fields.ts";
import { AppError, Detail } from "../errors/taxonomy.ts";

/** The context a command names when it names none. */
export const DEFAULT_CONTEXT = "default";
/** Longest context name: it travels in chan_websocket's marks, whose text messages Asterisk cuts at 128 bytes. */
export const MAX_CONTEXT_CHARS = 48;

const context = v.optional(
  v.pipe(
    v.string("Expected a string"),
    v.regex(/^[A-Za-z0-9._:-]{1,48}$/, `Must be 1-${MAX_CONTEXT_CHARS} letters, digits or . _ : -`),
    v.description(
      "The playback's name: `playback.done` and `mark` carry it and `clear` may name it (default `default`).",
    ),
  ),
);
const optionalString = (description: string) =>
  v.optional(v.pipe(v.string("Expected a string"), v.description(description)));

/** `say`: speak `text` or `ssml` (one of them) with a voice and dialect, after what is queued. */
export const SayCommandSchema = v.pipe(
  v.object({
    text: optionalString("Plain text to speak (or `ssml`)."),
    ssml: optionalString("SSML to speak, starting with `<speak` (Sawt's subset, as REST takes it)."),
    voice: optionalString("Voice (default: the call's voice, else Yara), as REST's `voice`."),
    dialect: optionalString("Dialect, as REST's `dialect`."),
    context,
  }),
  v.check((say) => (say.text === undefined) !== (say.ssml === undefined), "Give exactly one of text and ssml"),
);
/** A `say` command. */
export type SayCommand = v.InferOutput<typeof SayCommandSchema>;

/**
 * `text`: a piece of streamed text, part of its context's turn; whole sentences are spoken as they
 * complete, `flush` speaks the rest and ends the turn (its one `playback.done`).
 */
export const TextCommandSchema = v.object({
  text: v.pipe(v.string("Expected a string"), v.description("The next piece of text (may be empty with flush).")),
  flush: v.optional(
    v.pipe(v.boolean("Expected a boolean"), v.description("Speak what is pending now and end the turn.")),
  ),
  voice: optionalString("Voice of the turn, read when it starts."),
  dialect: optionalString("Dialect of the turn, read when it starts."),
  context,
});
/** A `text` command. */
export type TextCommand = v.InferOutput<typeof TextCommandSchema>;

/** `clear`: stop the audio now and drop what is queued (of `context` only, when it names one). */
export const ClearCommandSchema = v.object({ context });
/** A `clear` command. */
export type ClearCommand = v.InferOutput<typeof ClearCommandSchema>;

/** `hangup`: end the call (the door hangs up the channel). */
export const HangupCommandSchema = v.object({});

/** One command, as the session runs it. */
export type CallCommand =
  | ({ readonly type: "say" } & SayCommand)
  | ({ readonly type: "text" } & TextCommand)
  | ({ readonly type: "clear" } & ClearCommand)
  | { readonly type: "hangup" };

/** The command types, in the order the docs list them. */
export const COMMAND_TYPES = ["say", "text", "clear", "hangup"] as const;

const SCHEMAS = {
  say: SayCommandSchema,
  text: TextCommandSchema,
  clear: ClearCommandSchema,
  hangup: HangupCommandSchema,
} as const;

/** Parses a command of `type` from its fields (422 naming them as `naming` does). */
export function parseCommand(type: CallCommand["type"], fields: unknown, naming: FieldNaming): CallCommand {
  if (typeof fields !== "object" || fields === null || Array.isArray(fields)) {
    throw new AppError("validation", Detail.validationFailed, {
      fields: [{ field: naming.root, message: "Expected a JSON object" }],
    });
  }
  const result = v.safeParse(SCHEMAS[type], fields);
  if (!result.success)
    throw new AppError("validation", Detail.validationFailed, { fields: fieldErrors(result.issues, naming) });
  return { type, ...result.output } as CallCommand;
}

/** Parses a WebSocket message: a JSON object whose `type` names the command. */
export function parseMessage(message: unknown, naming: FieldNaming): CallCommand {
  const type = typeof message === "object" && message !== null ? (message as { type?: unknown }).type : undefined;
  if (typeof type !== "string" || !(COMMAND_TYPES as readonly string[]).includes(type))
    throw new AppError("bad_request", `Expected a JSON object whose type is one of ${COMMAND_TYPES.join(", ")}`);
  const { type: _, ...fields } = message as Record<string, unknown>;
  return parseCommand(type as CallCommand["type"], fields, naming);
}
