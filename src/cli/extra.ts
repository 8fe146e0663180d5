/** Commands contributed by features (offline `tts`, `asr`). */
import type { Command } from "./command.ts";
import { ttsCommand } from "./tts.ts";

/** Feature commands appended to the CLI. */
export const extraCommands: readonly Command[] = [ttsCommand];
