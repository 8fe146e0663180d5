/**
 * Deepgram's TTS WebSocket, `/v1/speak` (src/tts/deepgram/), fuzzed: queries of encoding,
 * sample_rate, container, model (the voice), speed, callback and unknown parameters with good,
 * bad and huge values, the key every way (or wrong, or none); sessions of Speak (any text: Arabic,
 * nasty strings, empty, not a string, over the limit), Flush, Clear, KeepAlive, Close, unknown
 * types, malformed JSON, binary frames where text is expected, frames over the limit, pauses, and
 * ends by Close, by a close or by a dropped connection; and upgrades sent raw. Contract: a refused
 * upgrade is a 4xx in Deepgram's body (401 for a wrong or missing key); a query the door serves
 * opens with `Metadata` first; only `Metadata`, `Flushed`, `Cleared`, `Warning`, `Error` in their
 * shapes and audio after Metadata; `Flushed` ids rise and never outnumber the Flushes; a Close is
 * answered by 1000 once each Flush before it is (a Clear or an Error aside), and a clean Speak,
 * Flush, Close by audio; an error end is an `Error` then Deepgram's close frame, never a server
 * failure; nothing hangs; no socket is left open.
 */
import type { Box } from "../box.ts";
import { NASTY_STRINGS, type Random } from "../fuzz/random.ts";
import { queryOf, runSocketScript, type Step } from "../fuzz/ws-session.ts";
import type { DoorPlan, DoorTally, FuzzDoor } from "./door.ts";
import {
  deepgramCloseProblems,
  deepgramErrorProblems,
  drawDeepgramKey,
  frameSize,
  keyHeaders,
  probeUpgrade,
  type Tally,
  textProblems,
  runSocketDoor,
  sessionOutcome,
  upgradeExpectation,
} from "./voice-bot-contract.ts";

const DOOR = "tts-deepgram-ws";
const TYPES = new Set(["Metadata", "Flushed", "Cleared", "Warning", "Error"]);
/** Over the socket's frame limit (512 KiB): Bun closes 1009. */
const OVER_FRAME = 512 * 1024 + 9;
const SPEAKABLE = ["مرحبا بكم", "شكرا لك.", "كيف يمكنني مساعدتك اليوم؟", "مرحبا"];

interface Query {
  readonly params: Array<readonly [string, string]>;
  readonly good: boolean;
}

function drawQuery(random: Random): Query {
  const params: Array<readonly [string, string]> = [];
  if (random.chance(0.7)) {
    const [encoding, rate, container] = random.pick([
      ["linear16", random.pick(["16000", "24000", "8000", "48000"]), random.pick(["none", "wav"])],
      ["mulaw", "8000", "none"],
      ["alaw", random.pick(["8000", "16000"]), "none"],
      ["mp3", "22050", "none"],
      ["opus", "48000", "ogg"],
      ["flac", random.pick(["16000", "44100"]), "none"],
    ] as const);
    if (random.chance(0.9)) params.push(["encoding", encoding]);
    if (random.chance(0.7) || encoding !== "linear16") params.push(["sample_rate", rate]);
    if (random.chance(0.3)) params.push(["container", container]);
    if (encoding !== "linear16") params[0] = ["encoding", encoding];
    if (random.chance(0.6))
      params.push(["model", random.pick(["aura-asteria-en", "aura-2-thalia-en", "yara", "Yara", "nope"])]);
    if (random.chance(0.2)) params.push(["speed", random.pick(["1", "0.5", "1.5", "9"])]);
    if (random.chance(0.2)) params.push([random.pick(["bit_rate", "mip_opt_out", "tag", "unknown"]), "1"]);
    return { params, good: true };
  }
  const odd: Record<string, readonly string[]> = {
    encoding: ["wav", "pcm", "LINEAR16", "", "x".repeat(4000), "opus"],
    sample_rate: ["0", "-1", "22050", "8000.5", "abc", "1e9", ""],
    container: ["ogg", "wav", "mp4", ""],
    model: [...NASTY_STRINGS, "x".repeat(8000)],
    speed: ["x", "NaN", "-1", "1e309", ""],
    callback: ["http://127.0.0.1:9/"],
  };
  for (let i = random.int(1, 4); i > 0; i--) {
    const name = random.pick(Object.keys(odd));
    params.push([name, random.pick(odd[name]!)]);
  }
  return { params, good: false };
}

const speak = (text: unknown) => JSON.stringify({ type: "Speak", text });

function drawSteps(random: Random, clean: boolean): { steps: Step[]; oversize: boolean; clear: boolean } {
  if (clean) {
    const steps: Step[] = [];
    for (let i = random.int(1, 3); i > 0; i--) steps.push(speak(random.pick(SPEAKABLE)));
    steps.push(JSON.stringify({ type: "Flush" }));
    return { steps, oversize: false, clear: false };
  }
  const steps: Step[] = [];
  let oversize = false;
  let clear = false;
  for (let i = random.int(1, 8); i > 0; i--) {
    const roll = random.next();
    if (roll < 0.3) steps.push(speak(random.chance(0.5) ? random.pick(SPEAKABLE) : random.text(random.int(0, 40))));
    else if (roll < 0.38) steps.push(speak(random.pick([...NASTY_STRINGS, 5, null, ["x"], { a: 1 }])));
    else if (roll < 0.55) steps.push(JSON.stringify({ type: "Flush" }));
    else if (roll < 0.62) {
      clear = true;
      steps.push(JSON.stringify({ type: "Clear" }));
    } else if (roll < 0.67) steps.push(JSON.stringify({ type: "KeepAlive" }));
    else if (roll < 0.75)
      steps.push(
        JSON.stringify({ type: random.pick(["speak", "Finalize", "CloseStream", "", 5, null, "x".repeat(300)]) }),
      );
    else if (roll < 0.83) steps.push(random.pick(["{", "null", "[]", '"Speak"', "Flush", random.text(20), ""]));
    else if (roll < 0.9) steps.push(random.bytes(frameSize(random)));
    else if (roll < 0.95) steps.push({ pause: random.int(0, 60) });
    else if (roll < 0.98) steps.push(speak("ب ".repeat(random.int(26_000, 60_000))));
    else {
      oversize = true;
      steps.push(random.chance(0.5) ? new Uint8Array(OVER_FRAME) : speak("x".repeat(OVER_FRAME)));
    }
  }
  return { steps, oversize, clear };
}

/** The messages' shapes; audio only after Metadata; Flushed ids rising, no more than Flushes sent. */
function messageProblems(record: Awaited<ReturnType<typeof runSocketScript>>, flushes: number): string[] {
  const problems: string[] = [];
  let lastId = -1;
  let flushed = 0;
  for (const text of record.texts) {
    if (typeof text === "string") continue;
    const type = String(text.type);
    if (!TYPES.has(type)) problems.push(`message type ${type.slice(0, 40)}`);
    if (type === "Metadata" && (typeof text.request_id !== "string" || typeof text.model_name !== "string"))
      problems.push("Metadata shape");
    if (type === "Flushed") {
      flushed++;
      const id = text.sequence_id;
      if (typeof id !== "number" || id <= lastId || id >= flushes) problems.push(`Flushed sequence_id ${String(id)}`);
      if (typeof id === "number") lastId = id;
    }
    if (type === "Cleared" && typeof text.sequence_id !== "number") problems.push("Cleared shape");
    if (type === "Warning" && (typeof text.description !== "string" || typeof text.code !== "string"))
      problems.push("Warning shape");
    if (type === "Error") problems.push(...deepgramErrorProblems(text));
  }
  if (flushed > flushes) problems.push(`${flushed} Flushed for ${flushes} Flushes`);
  const first = record.texts[0];
  if (record.binaryAfter.some((n) => n === 0)) problems.push("audio before Metadata");
  if (record.opened && typeof first === "object" && first.type !== "Metadata" && first.type !== "Error")
    problems.push(`first message ${String(first.type)}`);
  return problems;
}

async function runCase(box: Box, random: Random, tally: Tally): Promise<void> {
  const query = drawQuery(random);
  const keyWay = drawDeepgramKey(random);
  const path = `/v1/speak${queryOf(query.params)}`;
  const bad = keyWay === "wrong" || keyWay === "none";
  if (random.chance(0.2)) return probeUpgrade(box, path, keyWay, upgradeExpectation(bad, query.good), tally);
  const clean = query.good && random.chance(0.4);
  const { steps, oversize, clear } = drawSteps(random, clean);
  const end = clean || random.chance(0.5) ? "wait" : random.pick(["close", "drop"] as const);
  if (end === "wait") steps.push(JSON.stringify({ type: "Close" }));
  const flushes = steps.filter((s) => typeof s === "string" && s === JSON.stringify({ type: "Flush" })).length;
  const { headers, protocols } = keyHeaders(keyWay, box.key);
  const record = await runSocketScript({
    url: `${box.sawt.baseUrl.replace(/^http/, "ws")}${path}`,
    headers,
    ...(protocols ? { protocols } : {}),
    steps,
    end,
    lingerMs: random.int(0, 80),
    deadlineMs: 30_000,
  });
  const where = `${path.slice(0, 100)} (${keyWay}, ${steps.length} steps, ${end})`;
  const problems = [...textProblems(record, box), ...messageProblems(record, flushes)];
  if (bad && record.opened) problems.push("opened with a wrong or missing key");
  if (!bad && query.good && !record.opened) problems.push("a query the door serves did not open");
  if (record.hung) problems.push("no close by the deadline");
  problems.push(...deepgramCloseProblems(record, oversize));
  const types = record.texts.map((t) => (typeof t === "object" ? String(t.type) : ""));
  const error = types.includes("Error");
  if (record.serverClosed && record.code === 1000 && end !== "wait") problems.push("closed 1000 without a Close");
  if (end === "wait" && record.serverClosed && record.code === 1000 && !clear && !error) {
    const flushed = types.filter((t) => t === "Flushed").length;
    if (flushed !== flushes) problems.push(`closed after ${flushed} Flushed for ${flushes} Flushes`);
  }
  const ending = record.texts.find((t): t is Record<string, unknown> => typeof t === "object" && t.type === "Error");
  if (clean && ending && !/SERVICE_UNAVAILABLE|TOO_MANY/.test(String(ending.variant)))
    problems.push(`a clean session ended ${String(ending.variant)}: ${String(ending.description).slice(0, 80)}`);
  if (clean && record.opened && !error) {
    if (record.binaryBytes === 0) problems.push("a clean Speak, Flush, Close gave no audio");
    if (record.code !== 1000) problems.push(`a clean session closed ${record.code}`);
  }
  for (const problem of problems) tally.breach(`${where}: ${problem}`);
  const last = record.texts.at(-1);
  tally.see(
    sessionOutcome(record, end, typeof last === "object" && last.type === "Error" ? String(last.message) : undefined),
  );
  if (record.binaryBytes > 0) tally.see("audio");
}

function run(box: Box, plan: DoorPlan): Promise<DoorTally> {
  return runSocketDoor(box, plan, [DOOR], runCase);
}

/** Deepgram's TTS WebSocket `/v1/speak`. */
export const deepgramSpeakDoor: FuzzDoor = {
  name: "Deepgram /v1/speak",
  covers:
    "queries of encoding, sample_rate, container, model (voice), speed, callback and unknown ones, good, bad and huge, the key every way or wrong or none; Speak with any text (nasty, empty, not a string, over the limit), Flush, Clear, KeepAlive, Close, unknown types, malformed JSON, binary frames, frames over the limit, ends by Close, close or a dropped connection; raw upgrades",
  run,
  settleMs: 3000,
};
