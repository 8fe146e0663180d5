/** Commands contributed by features (offline `tts`, `asr`; cluster `voices`). */
import { asrCommand } from "./asr.ts";
import type { Command } from "./command.ts";
import { ttsCommand } from "./tts.ts";
import { voicesCommand } from "./voices.ts";

/** Feature commands appended to the CLI. */
export const extraCommands: readonly Command[] = [ttsCommand, asrCommand, voicesCommand];
