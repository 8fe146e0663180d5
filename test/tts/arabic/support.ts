/** Helpers of the Arabic reading tests: the README reference, JSON posts, the espeak seam. */
import { observeEspeakRequests } from "../../../src/tts/espeak/library.ts";

/** The sentence and the diacritisation the model's README gives (shared/models/tashkeel/README.md). */
export const REFERENCE_INPUT = "إن روعة اللغة العربية لا تتبدى إلا لعشاقها";
export const REFERENCE_OUTPUT = "إِنَّ رَوْعَةَ اللُّغَةِ الْعَرَبِيَّةِ لَا تَتَبَدَّى إِلَّا لِعُشَّاقِهَا";

/** Posts `body` to `path` with `key`; returns status and parsed JSON. */
export async function post(
  baseUrl: string,
  path: string,
  key: string,
  body: unknown,
  method = "POST",
): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { "content-type": "application/json", "X-API-Key": key },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {}
  return { status: res.status, body: parsed, headers: res.headers };
}

/** Texts the espeak worker is asked to synthesise while `run` runs. */
export async function espeakSynthesisTexts(run: () => Promise<unknown>): Promise<string[]> {
  const texts: string[] = [];
  const stop = observeEspeakRequests((request) => {
    if (request.op === "synthesize") texts.push(request.text);
  });
  try {
    await run();
  } finally {
    stop();
  }
  return texts;
}
