/**
 * ElevenLabs' input-streaming WebSockets (src/tts/elevenlabs/), `…/{voice_id}/stream-input` and
 * `…/multi-stream-input`, fuzzed: voice ids Sawt has, ones it does not, odd and huge ones;
 * `output_format` and the other query parameters good and bad; the key as `xi-api-key`, X-API-Key
 * or Bearer, in the first message (`xi_api_key`, `authorization`), wrong or missing; sessions of
 * the initial message (voice_settings, generation_config), text chunks, flushes, context ids,
 * close_context, close_socket, empty texts, refused fields, malformed JSON, binary frames, frames
 * over the limit, pauses, and ends by close_socket (or an empty text), by a close or by a dropped
 * connection; and upgrades sent raw. Contract: a refused upgrade is a 4xx in ElevenLabs' body
 * (401 for a wrong header key); a query the door serves opens; only audio (base64, with a
 * well-formed alignment), `isFinal` and error messages (ElevenLabs' names, never a server
 * failure), `contextId` on multi-stream-input only; no audio for a wrong or missing key; an error
 * end is the error then 1008 (1011 only when busy); a 1000 comes after `isFinal` or close_socket;
 * a clean session speaks, aligns and ends final; nothing hangs; no socket is left open.
 */
import type { Box } from "../box.ts";
import { NASTY_STRINGS, type Random } from "../fuzz/random.ts";
import { queryOf, runSocketScript, type SocketRecord, type Step } from "../fuzz/ws-session.ts";
import type { DoorPlan, DoorTally, FuzzDoor } from "./door.ts";
import {
  frameSize,
  keyHeaders,
  probeUpgrade,
  type Tally,
  textProblems,
  runSocketDoor,
  sessionOutcome,
  upgradeExpectation,
} from "./voice-bot-contract.ts";

const DOORS = ["tts-elevenlabs-single", "tts-elevenlabs-multi"];
const OVER_FRAME = 512 * 1024 + 9;
const KEYS = new Set([
  "audio",
  "isFinal",
  "normalizedAlignment",
  "alignment",
  "contextId",
  "sawt",
  "error",
  "message",
  "code",
]);
const ERRORS = new Set([
  "invalid_api_key",
  "needs_authorization",
  "missing_permissions",
  "too_many_concurrent_requests",
  "not_found",
  "max_character_limit_exceeded",
  "system_busy",
  "input_timeout_exceeded",
  "invalid_request",
]);
const SPEAKABLE = ["مرحبا بكم ", "شكرا لك. ", "كيف يمكنني مساعدتك اليوم؟ ", "مرحبا "];
const GOOD_FORMATS = [
  "pcm_16000",
  "pcm_22050",
  "pcm_44100",
  "ulaw_8000",
  "alaw_8000",
  "mp3_44100_128",
  "mp3_22050_32",
  "opus_48000_64",
];

/** How the key comes: a header, the first message, wrong or none. */
type Way = "xi" | "header" | "bearer" | "first" | "first-bearer" | "wrong-header" | "wrong-first" | "none";

interface Draw {
  readonly path: string;
  readonly multi: boolean;
  readonly good: boolean;
  readonly way: Way;
}

function drawTarget(random: Random): Draw {
  const multi = random.chance(0.5);
  const goodVoice = random.chance(0.9);
  const voice = goodVoice
    ? random.pick(["yara", "Yara", "21m00Tcm4TlvDq8ikWAM", "Sherine", "pNInz6obpgDQGcFmaJgB"])
    : encodeURIComponent(random.pick([...NASTY_STRINGS, "x".repeat(3000), "%", "a b"]).toWellFormed());
  const params: Array<readonly [string, string]> = [];
  const goodQuery = random.chance(0.75);
  if (goodQuery) {
    if (random.chance(0.8)) params.push(["output_format", random.pick(GOOD_FORMATS)]);
    if (random.chance(0.3)) params.push(["model_id", random.pick(["eleven_flash_v2_5", "eleven_multilingual_v2"])]);
    if (random.chance(0.2)) params.push(["inactivity_timeout", random.pick(["20", "60", "180"])]);
    if (random.chance(0.2)) params.push([random.pick(["sync_alignment", "auto_mode", "enable_logging"]), "true"]);
    if (random.chance(0.1)) params.push(["apply_text_normalization", random.pick(["auto", "on"])]);
  } else {
    for (let i = random.int(1, 3); i > 0; i--) {
      params.push(
        random.pick([
          ["output_format", random.pick(["pcm_1", "mp3_8000_8", "wav", "", "ulaw_16000", "x".repeat(3000)])],
          ["output_format", random.pick(GOOD_FORMATS)],
          ["apply_text_normalization", random.pick(["off", "x"])],
          ["inactivity_timeout", random.pick(["0", "-1", "x", "1e9", "0.2"])],
          [random.pick(NASTY_STRINGS.slice(1, 8)), random.pick(NASTY_STRINGS)],
        ] as const),
      );
    }
  }
  const roll = random.next();
  const way: Way =
    roll < 0.06
      ? "wrong-header"
      : roll < 0.1
        ? "wrong-first"
        : roll < 0.13
          ? "none"
          : random.pick(["xi", "xi", "header", "bearer", "first", "first-bearer"]);
  const path = `/v1/text-to-speech/${voice}/${multi ? "multi-stream-input" : "stream-input"}${queryOf(params)}`;
  return { path, multi, good: goodVoice && goodQuery, way };
}

function upgradeHeaders(way: Way, key: string): Record<string, string> {
  if (way === "xi") return keyHeaders("xi", key).headers;
  if (way === "header") return keyHeaders("header", key).headers;
  if (way === "bearer") return keyHeaders("bearer", key).headers;
  if (way === "wrong-header") return keyHeaders("wrong", key).headers;
  return {};
}

/** The first message's key fields. */
function messageKey(way: Way, key: string): Record<string, unknown> {
  if (way === "first") return { xi_api_key: key };
  if (way === "first-bearer") return { authorization: `Bearer ${key}` };
  if (way === "wrong-first") return { xi_api_key: `${key.slice(0, -3)}zzz` };
  return {};
}

/** voice_settings; with `good`, only what the door takes. */
function voiceSettings(random: Random, good = false): unknown {
  if (good) return random.pick([{ stability: 0.5, similarity_boost: 0.8 }, { speed: random.pick([1, 0.7, 1.2]) }]);
  return random.pick([
    { stability: 0.5, similarity_boost: 0.8 },
    { speed: random.pick([1, 0.7, 1.2, 5, 0]) },
    { speed: random.pick(["x", null, Number.NaN]) },
    { stability: "x", use_speaker_boost: true },
    "x",
    null,
  ]);
}

function drawSteps(random: Random, draw: Draw, clean: boolean, key: string): { steps: Step[]; oversize: boolean } {
  const json = (body: Record<string, unknown>) => JSON.stringify(body);
  const context = () =>
    draw.multi && random.chance(0.9) ? { context_id: random.pick(["a", "b", "c", "default", "x".repeat(200)]) } : {};
  const first = json({
    text: " ",
    ...(random.chance(0.4) ? { voice_settings: voiceSettings(random, clean) } : {}),
    ...(random.chance(0.3)
      ? { generation_config: { chunk_length_schedule: clean ? [120, 160] : random.pick([[120, 160], [5], "x"]) } }
      : {}),
    ...messageKey(draw.way, key),
    ...(clean && draw.multi ? { context_id: "a" } : {}),
  });
  const steps: Step[] = [first];
  if (clean) {
    const ctx = draw.multi ? { context_id: "a" } : {};
    for (let i = random.int(1, 3); i > 0; i--) steps.push(json({ text: random.pick(SPEAKABLE), ...ctx }));
    steps.push(json({ text: random.pick(SPEAKABLE), flush: true, ...ctx }));
    steps.push(draw.multi || random.chance(0.5) ? json({ close_socket: true }) : json({ text: "" }));
    return { steps, oversize: false };
  }
  let oversize = false;
  for (let i = random.int(0, 8); i > 0; i--) {
    const roll = random.next();
    if (roll < 0.3)
      steps.push(
        json({ text: random.chance(0.6) ? random.pick(SPEAKABLE) : random.text(random.int(0, 30)), ...context() }),
      );
    else if (roll < 0.38) steps.push(json({ text: random.pick(SPEAKABLE), flush: true, ...context() }));
    else if (roll < 0.45) steps.push(json({ flush: true, ...context() }));
    else if (roll < 0.5) steps.push(json({ text: "", ...context() }));
    else if (roll < 0.56) steps.push(json({ close_context: true, ...context() }));
    else if (roll < 0.6)
      steps.push(json({ text: random.pick(SPEAKABLE), voice_settings: voiceSettings(random), ...context() }));
    else if (roll < 0.66)
      steps.push(
        json(
          random.pick([
            { text: random.pick([5, null, ["x"], { a: 1 }]) },
            { text: "x", pronunciation_dictionary_locators: [{ id: "x" }] },
            { text: "x", apply_text_normalization: "off" },
            { text: "x", context_id: random.pick([5, null, ""]) },
            { close_context: "yes" },
            { try_trigger_generation: true },
            {},
          ]),
        ),
      );
    else if (roll < 0.74) steps.push(random.pick(["{", "null", "[]", "42", '"text"', random.text(20), ""]));
    else if (roll < 0.8) steps.push(random.bytes(frameSize(random)));
    else if (roll < 0.86) steps.push({ pause: random.int(0, 60) });
    else if (roll < 0.9) steps.push(json({ text: `${random.pick(NASTY_STRINGS)} `, ...context() }));
    else if (roll < 0.94) steps.push(json({ text: "ب ".repeat(random.int(26_000, 60_000)) }));
    else if (roll < 0.97) steps.push(json({ close_socket: true }));
    else {
      oversize = true;
      steps.push(random.chance(0.5) ? new Uint8Array(OVER_FRAME) : json({ text: "x".repeat(OVER_FRAME) }));
    }
  }
  return { steps, oversize };
}

/** Problems of one alignment object. */
function alignmentProblems(alignment: unknown): string[] {
  const a = alignment as { chars?: unknown; charStartTimesMs?: unknown; charDurationsMs?: unknown } | null;
  const chars = a?.chars;
  const starts = a?.charStartTimesMs;
  const durations = a?.charDurationsMs;
  if (!Array.isArray(chars) || !Array.isArray(starts) || !Array.isArray(durations)) return ["alignment shape"];
  if (starts.length !== chars.length || durations.length !== chars.length) return ["alignment lengths"];
  const whole = (n: unknown) => Number.isInteger(n) && (n as number) >= 0;
  if (!chars.every((c) => typeof c === "string") || !starts.every(whole) || !durations.every(whole))
    return ["alignment values"];
  return starts.every((s, i) => i === 0 || s >= starts[i - 1]) ? [] : ["alignment times fall"];
}

function messageProblems(record: SocketRecord, multi: boolean): string[] {
  const problems: string[] = [];
  for (const text of record.texts) {
    if (typeof text === "string") continue;
    const unknown = Object.keys(text).filter((k) => !KEYS.has(k));
    if (unknown.length > 0) problems.push(`unknown fields ${unknown.join(",").slice(0, 60)}`);
    if (multi !== (typeof text.contextId === "string") && text.error === undefined)
      problems.push(multi ? "a message without its contextId" : "a contextId on stream-input");
    if (typeof text.error === "string") {
      if (!ERRORS.has(text.error)) problems.push(`error ${text.error}`);
      if (typeof text.message !== "string" || text.message === "") problems.push("error without a message");
      if (text.code !== 1008 && !(text.code === 1011 && text.error === "system_busy"))
        problems.push(`error code ${String(text.code)}`);
    } else if (typeof text.audio === "string") {
      if (text.isFinal !== false || text.audio === "" || Buffer.from(text.audio, "base64").length === 0)
        problems.push("audio message");
      if (text.alignment !== undefined)
        problems.push(...alignmentProblems(text.alignment), ...alignmentProblems(text.normalizedAlignment));
    } else if (text.isFinal !== true) problems.push(`message ${Object.keys(text).join(",").slice(0, 60)}`);
  }
  return problems;
}

async function runCase(box: Box, random: Random, tally: Tally): Promise<void> {
  const draw = drawTarget(random);
  if (random.chance(0.2)) {
    const way =
      draw.way === "wrong-header"
        ? "wrong"
        : draw.way === "xi" || draw.way === "header" || draw.way === "bearer"
          ? draw.way
          : "none";
    return probeUpgrade(box, draw.path, way, upgradeExpectation(way === "wrong", draw.good), tally);
  }
  const clean = draw.good && random.chance(0.4);
  const { steps, oversize } = drawSteps(random, draw, clean, box.key);
  const end = clean ? "wait" : random.pick(["wait", "close", "drop"] as const);
  if (end === "wait" && !clean) steps.push(JSON.stringify({ close_socket: true }));
  const record = await runSocketScript({
    url: `${box.sawt.baseUrl.replace(/^http/, "ws")}${draw.path}`,
    headers: upgradeHeaders(draw.way, box.key),
    steps,
    end,
    lingerMs: random.int(0, 80),
    deadlineMs: 30_000,
  });
  const where = `${draw.path.slice(0, 100)} (${draw.way}, ${steps.length} steps, ${end})`;
  const problems = [...textProblems(record, box), ...messageProblems(record, draw.multi)];
  const unkeyed = draw.way === "wrong-first" || draw.way === "none";
  if (draw.way === "wrong-header" && record.opened) problems.push("opened with a wrong key");
  if (draw.way !== "wrong-header" && draw.good && !record.opened) problems.push("a route the door serves did not open");
  if (unkeyed && record.binaryBytes + record.texts.filter((t) => typeof t === "object" && "audio" in t).length > 0)
    problems.push("audio without a key");
  if (record.hung)
    problems.push(
      `no close by the deadline; sent ${record.sent}: ${steps.map((s) => (typeof s === "string" ? s.slice(0, 80) : s instanceof Uint8Array ? `<${s.length} bytes>` : `pause ${s.pause}`)).join(" | ")}; saw ${record.raw.map((t) => t.slice(0, 80)).join(" | ")}`,
    );
  const last = record.texts.at(-1);
  // The error that ends the socket (multi-stream-input's per-context errors name their context).
  const error =
    typeof last === "object" && typeof last.error === "string" && last.contextId === undefined ? last : undefined;
  if (record.opened && record.serverClosed) {
    if (![1000, 1008, 1009, 1011].includes(record.code)) problems.push(`closed ${record.code}`);
    if (
      record.code === 1000 &&
      !(typeof last === "object" && last.isFinal === true) &&
      !steps.includes('{"close_socket":true}')
    )
      problems.push("closed 1000 without isFinal or close_socket");
    if (record.code !== 1000 && !error && !(record.code === 1009 && oversize))
      problems.push(`closed ${record.code} without an error`);
    if (error && record.code !== error.code && !(record.code === 1009 && oversize))
      problems.push(`closed ${record.code} after error code ${String(error.code)}`);
  }
  if (
    unkeyed &&
    record.opened &&
    record.serverClosed &&
    (!error || !/^(invalid_api_key|needs_authorization)$/.test(String(error.error)))
  )
    problems.push(`a socket without a key ended ${record.code} ${String(error?.error)}`);
  const busy = /^(system_busy|too_many_concurrent_requests)$/.test(String(error?.error));
  if (clean && record.opened && !unkeyed && error && !busy)
    problems.push(`a clean session ended ${String(error.error)}`);
  if (clean && record.opened && !unkeyed && !error) {
    const audio = record.texts.filter(
      (t): t is Record<string, unknown> => typeof t === "object" && typeof t.audio === "string",
    );
    if (audio.length === 0) problems.push("a clean session spoke no audio");
    if (!audio.some((a) => a.alignment !== undefined)) problems.push("a clean session had no alignment");
    if (!record.texts.some((t) => typeof t === "object" && t.isFinal === true))
      problems.push("a clean session had no isFinal");
    if (record.code !== 1000) problems.push(`a clean session closed ${record.code}`);
  }
  for (const problem of problems) tally.breach(`${where}: ${problem}`);
  tally.see(sessionOutcome(record, end, error ? String(error.error) : undefined));
  if (record.texts.some((t) => typeof t === "object" && typeof t.audio === "string")) tally.see("audio");
}

function run(box: Box, plan: DoorPlan): Promise<DoorTally> {
  return runSocketDoor(box, plan, DOORS, runCase);
}

/** ElevenLabs' stream-input and multi-stream-input. */
export const elevenLabsDoor: FuzzDoor = {
  name: "ElevenLabs stream-input",
  covers:
    "stream-input and multi-stream-input; voice ids known, unknown, odd and huge; output_format and other query parameters good and bad; the key as xi-api-key, X-API-Key, Bearer, in the first message, wrong or missing; initial messages with voice_settings and generation_config, text chunks, flushes, context ids, close_context, close_socket, empty texts, refused fields, malformed JSON, binary frames, frames over the limit, ends by close_socket, close or a dropped connection; raw upgrades",
  run,
  settleMs: 3000,
};
