/**
 * Deepgram's live speech to text, `/v1/listen` over WebSocket (src/asr/deepgram/), fuzzed:
 * queries of every parameter with good, bad and huge values (and unknown ones), the key in every
 * way Deepgram's clients send it (or wrong, or none), sessions of the tone recogniser's clip in
 * frames of any size, garbage audio, empty frames, KeepAlive, Finalize and CloseStream, malformed
 * and unknown and oversized text, pauses, and ends by CloseStream, by a close, or by a dropped
 * connection; and upgrades sent raw. Contract: a refused upgrade is a 4xx in Deepgram's body (401
 * for a key that is wrong or missing, never a 101); a query the door serves opens; only
 * `Results`, `SpeechStarted`, `UtteranceEnd`, `Metadata` and `Error` in their shapes; an end by
 * CloseStream is every final then `Metadata` then 1000, and the clean clip reads مرحبا; an error
 * end is an `Error` then Deepgram's close frame (./voice-bot-contract.ts), never a server
 * failure; no session hangs past its deadline; no socket is left open.
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

const DOOR = "asr-deepgram-live";
const TYPES = new Set(["Results", "SpeechStarted", "UtteranceEnd", "Metadata", "Error"]);
/** Over the door's frame limit (1 MiB), under Bun's (16 MiB). */
const OVER_FRAME = 1024 * 1024 + 17;

/** Values the door serves, per parameter. */
const GOOD: Record<string, readonly string[]> = {
  interim_results: ["true", "false"],
  endpointing: ["10", "300", "1200", "false", "true"],
  utterance_end_ms: ["1000", "2500"],
  vad_events: ["true", "false"],
  language: ["ar", "ar-SA", "ar-EG"],
  model: ["nova-2", "nova-3", "general", "whisper"],
  keyterm: ["مرحبا"],
  punctuate: ["true", "false"],
  smart_format: ["true", "false"],
  numerals: ["true"],
  redact: ["pci", "pii", "ssn"],
  filler_words: ["true"],
  profanity_filter: ["true"],
  tag: ["fuzz"],
  mip_opt_out: ["true"],
  no_delay: ["true"],
  unknown_param: ["x"],
};

/** Values it refuses (or may), and values that are merely strange. */
const ODD: Record<string, readonly string[]> = {
  encoding: ["opus", "flac", "LINEAR16", "", "mp3", "linear32", "x".repeat(5000)],
  sample_rate: ["0", "-1", "44100", "1000000", "1000001", "1e4", "abc", "99999999999999999999", ""],
  channels: ["0", "2", "9", "99", "x", "1.5"],
  multichannel: ["true", "maybe"],
  diarize: ["true", "false"],
  interim_results: ["maybe", "1", ""],
  endpointing: ["-5", "60001", "x", "1e3"],
  utterance_end_ms: ["0", "5001", "x", "-1"],
  vad_events: ["yes"],
  language: ["en-US", "fr", "multi", "", "x".repeat(3000), "ar_EG"],
  keywords: ["مرحبا:2", "x:-1", "a:1e308", "x".repeat(3000), "word", ":"],
  keyterm: ["x".repeat(2000), "", "a,b"],
  redact: ["numbers", "true", "phi", "name", "x"],
  detect_language: ["true", "false"],
  dictation: ["true", "false"],
  measurements: ["true"],
  callback: ["http://127.0.0.1:9/"],
  replace: ["a:b"],
  model: [...NASTY_STRINGS.slice(0, 12), "x".repeat(8000)],
  punctuate: ["x"],
  [`p${"q".repeat(300)}`]: ["1"],
};

interface Query {
  readonly params: Array<readonly [string, string]>;
  /** Only values the door serves: the upgrade must open. */
  readonly good: boolean;
  /** 16 kHz mono linear16: the box's clip reads as it is. */
  readonly clipRate: boolean;
}

function drawQuery(random: Random): Query {
  const params: Array<readonly [string, string]> = [];
  const good = random.chance(0.65);
  const clipRate = good && random.chance(0.7);
  if (good) {
    const encoding = clipRate ? "linear16" : random.pick(["linear16", "linear16", "mulaw", "alaw"]);
    params.push(["encoding", encoding]);
    // G.711 is 8 kHz (the rate may be left out); linear16 any rate from the door's range.
    const rate = encoding === "linear16" ? random.pick(["8000", "16000", "24000", "48000"]) : "8000";
    if (clipRate || encoding === "linear16" || random.chance(0.5))
      params.push(["sample_rate", clipRate ? "16000" : rate]);
    if (!clipRate && random.chance(0.3)) params.push(["channels", "2"]);
    for (let i = random.int(0, 5); i > 0; i--) {
      const name = random.pick(Object.keys(GOOD));
      params.push([name, random.pick(GOOD[name]!)]);
    }
    return { params, good, clipRate };
  }
  if (random.chance(0.8)) params.push(["encoding", random.pick(["linear16", "mulaw", "opus", ...ODD.encoding!])]);
  if (random.chance(0.7)) params.push(["sample_rate", random.pick(["16000", "8000", ...ODD.sample_rate!])]);
  for (let i = random.int(1, 5); i > 0; i--) {
    const pool = random.chance(0.6) ? ODD : GOOD;
    const name = random.pick(Object.keys(pool));
    params.push([name, random.pick(pool[name]!)]);
  }
  return { params, good, clipRate };
}

/** The box's clip in frames of random sizes (kept to whole samples when `whole`). */
function clipFrames(box: Box, random: Random, whole: boolean): Uint8Array[] {
  const frames: Uint8Array[] = [];
  for (let at = 0; at < box.pcm.length; ) {
    let size = random.pick([320, 640, 3200, 16000, random.int(1, 9000)]);
    if (whole) size += size % 2;
    frames.push(box.pcm.subarray(at, at + size));
    at += size;
  }
  return frames;
}

const CONTROL = ["KeepAlive", "Finalize", "CloseStream"];

function drawSteps(box: Box, random: Random, clean: boolean): { steps: Step[]; oversize: boolean } {
  if (clean) {
    const steps: Step[] = clipFrames(box, random, true);
    if (random.chance(0.3)) steps.splice(random.int(0, steps.length), 0, JSON.stringify({ type: "KeepAlive" }));
    if (random.chance(0.2)) steps.push(JSON.stringify({ type: "Finalize" }));
    return { steps, oversize: false };
  }
  const steps: Step[] = [];
  let oversize = false;
  for (let i = random.int(1, 8); i > 0; i--) {
    const roll = random.next();
    if (roll < 0.25) steps.push(...clipFrames(box, random, false).slice(0, random.int(1, 6)));
    else if (roll < 0.45) steps.push(random.bytes(frameSize(random)));
    else if (roll < 0.65) steps.push(JSON.stringify({ type: random.pick(CONTROL) }));
    else if (roll < 0.75)
      steps.push(random.pick(["{", "null", "[]", "42", '"KeepAlive"', "KeepAlive", random.text(20), ""]));
    else if (roll < 0.85)
      steps.push(
        JSON.stringify({ type: random.pick([...NASTY_STRINGS, 5, null, ["Finalize"], "Speak", "closestream"]) }),
      );
    else if (roll < 0.9) steps.push({ pause: random.int(0, 60) });
    else if (roll < 0.97) steps.push(JSON.stringify({ type: "KeepAlive", extra: random.text(random.int(0, 200)) }));
    else if (random.chance(0.5)) {
      oversize = true;
      steps.push(new Uint8Array(OVER_FRAME));
    } else steps.push(`{"type":"${"x".repeat(600_000)}"}`);
  }
  return { steps, oversize };
}

/** The messages' shapes and order. */
function messageProblems(texts: ReadonlyArray<Record<string, unknown> | string>): string[] {
  const problems: string[] = [];
  let metadataAt = -1;
  for (const [i, text] of texts.entries()) {
    if (typeof text === "string") continue;
    const type = String(text.type);
    if (!TYPES.has(type)) problems.push(`message type ${type.slice(0, 40)}`);
    if (metadataAt >= 0) problems.push(`${type} after Metadata`);
    if (type === "Metadata") {
      metadataAt = i;
      if (typeof text.request_id !== "string" || typeof text.duration !== "number") problems.push("Metadata shape");
    }
    if (type === "Results") {
      const alternative = (text.channel as { alternatives?: Array<Record<string, unknown>> } | undefined)
        ?.alternatives?.[0];
      const metadata = text.metadata as { request_id?: unknown } | undefined;
      if (
        typeof alternative?.transcript !== "string" ||
        !Array.isArray(alternative.words) ||
        typeof text.is_final !== "boolean" ||
        typeof text.speech_final !== "boolean" ||
        !Array.isArray(text.channel_index) ||
        typeof metadata?.request_id !== "string"
      )
        problems.push("Results shape");
    }
    if (type === "SpeechStarted" && typeof text.timestamp !== "number") problems.push("SpeechStarted shape");
    if (type === "UtteranceEnd" && typeof text.last_word_end !== "number") problems.push("UtteranceEnd shape");
    if (type === "Error") problems.push(...deepgramErrorProblems(text));
  }
  return problems;
}

async function runCase(box: Box, random: Random, tally: Tally): Promise<void> {
  const query = drawQuery(random);
  const keyWay = drawDeepgramKey(random);
  const path = `/v1/listen${queryOf(query.params)}`;
  if (random.chance(0.2)) {
    const bad = keyWay === "wrong" || keyWay === "none";
    return probeUpgrade(box, path, keyWay, upgradeExpectation(bad, query.good), tally);
  }
  const clean = query.clipRate && random.chance(0.5);
  const { steps, oversize } = drawSteps(box, random, clean);
  const end = clean || random.chance(0.5) ? "wait" : random.pick(["close", "drop"] as const);
  if (end === "wait") steps.push(random.chance(0.85) ? JSON.stringify({ type: "CloseStream" }) : new Uint8Array(0));
  const { headers, protocols } = keyHeaders(keyWay, box.key);
  const record = await runSocketScript({
    url: `${box.sawt.baseUrl.replace(/^http/, "ws")}${path}`,
    headers,
    ...(protocols ? { protocols } : {}),
    steps,
    end,
    lingerMs: random.int(0, 80),
    deadlineMs: 20_000,
  });
  const where = `${path.slice(0, 100)} (${keyWay}, ${steps.length} steps, ${end})`;
  const problems = [...textProblems(record, box), ...messageProblems(record.texts)];
  const bad = keyWay === "wrong" || keyWay === "none";
  if (bad && record.opened) problems.push("opened with a wrong or missing key");
  if (!bad && query.good && !record.opened) problems.push("a query the door serves did not open");
  if (record.hung) problems.push("no close by the deadline");
  problems.push(...deepgramCloseProblems(record, oversize));
  const last = record.texts.at(-1);
  const error = typeof last === "object" && last.type === "Error" ? last : undefined;
  if (record.serverClosed && record.code === 1000 && (typeof last !== "object" || last.type !== "Metadata"))
    problems.push("closed 1000 without Metadata");
  const busy = /SERVICE_UNAVAILABLE|TOO_MANY/.test(String(error?.variant));
  if (clean && record.opened && error && !busy) problems.push(`the clip's session ended ${String(error.message)}`);
  if (clean && record.opened && !error) {
    const finals = record.texts
      .filter((t): t is Record<string, any> => typeof t === "object" && t.type === "Results" && t.is_final === true)
      .map((t) => String(t.channel.alternatives[0].transcript))
      .join(" ");
    if (!finals.includes("مرحبا")) problems.push(`the clip read ${JSON.stringify(finals.slice(0, 60))}`);
    if (record.code !== 1000) problems.push(`the clip's session closed ${record.code}`);
  }
  if (busy) tally.see("busy");
  for (const problem of problems) tally.breach(`${where}: ${problem}`);
  tally.see(sessionOutcome(record, end, error ? String(error.message) : undefined));
}

function run(box: Box, plan: DoorPlan): Promise<DoorTally> {
  return runSocketDoor(box, plan, [DOOR], runCase);
}

/** Deepgram's live `/v1/listen`. */
export const deepgramListenDoor: FuzzDoor = {
  name: "Deepgram /v1/listen",
  covers:
    "queries of every parameter (encoding, sample_rate, channels, interim_results, endpointing, utterance_end_ms, vad_events, language, model, keywords, keyterm, punctuate, smart_format, redact and the refused ones) good, bad, huge and unknown, the key every way or wrong or none; the clip in frames of any size, garbage and oversized audio, KeepAlive, Finalize, CloseStream, malformed, unknown and oversized text, ends by CloseStream, close or a dropped connection; raw upgrades",
  run,
  settleMs: 3000,
};
