/** Commands contributed by features (offline `tts`, `asr`). */
import { asrCommand } from "./asr.ts";
import type { Command } from "./command.ts";
import { ttsCommand } from "./tts.ts";

/** Feature commands appended to the CLI. */
export const extraCommands: readonly Command[] = [ttsCommand, asrCommand];
