/**
 * The console's assets, fixed when the server's code is bundled: the script and stylesheet come
 * from the build-time macro in ../bundle.ts, so the compiled executable carries them and serves
 * the console with no file on disk and nothing from outside.
 */
import { consoleScript, consoleStyles } from "../bundle.ts" with { type: "macro" };

/** The bundled console script (a browser ES module). */
export const CONSOLE_SCRIPT: string = consoleScript();
/** The console stylesheet. */
export const CONSOLE_STYLES: string = consoleStyles();
