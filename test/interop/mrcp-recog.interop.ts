/**
 * Issue 26, acceptance 2: UniMRCP's umc runs its recogniser and DTMF scenarios against a real
 * Sawt (the constructed tone CTC recogniser, audio umc streams as L16 16 kHz RTP):
 * `builtin:speech/transcribe` gives the transcript, a DEFINE-GRAMMAR'd SRGS menu the matched
 * item, START-OF-INPUT before RECOGNITION-COMPLETE; silence gives no-input-timeout; RFC 4733
 * digits give the digits with input mode dtmf.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { floatToInt16, int16ToBytes } from "../../src/audio/wav.ts";
import { concat, silence } from "../asr/support.ts";
import { startMrcpSawt, type MrcpSawt } from "../mrcp/support.ts";
import { letterToneAudio, writeToneCtcPack } from "../support/models/ctc.ts";
import { tempDir } from "../support/sawt.ts";
import { umcPrefix, umcRoot } from "./umc.ts";

const RATE = 16000;
const found = umcPrefix();
const prefix = "prefix" in found ? found.prefix : "";
const models = tempDir("sawt-mrcp-recog-");
let server: MrcpSawt;

beforeAll(async () => {
  if ("missing" in found) throw new Error(found.missing);
  await writeToneCtcPack(join(models.path, "tone-ctc"));
  server = await startMrcpSawt({
    SAWT_MODELS_DIR: models.path,
    SAWT_ASR_PACK: "tone-ctc",
    SAWT_STREAMING_PARTIAL_INTERVAL_MS: "0",
  });
  await server.sawt.server.enginesSettled;
}, 60_000);

afterAll(async () => {
  await server?.close();
  models.remove();
});

/** Raw 16-bit PCM of `text` spoken by the tone code, padded with silence. */
function utterance(text: string): Uint8Array {
  return int16ToBytes(floatToInt16(concat(silence(0.5, RATE), letterToneAudio(text, RATE), silence(1.5, RATE))));
}

/** A recogniser scenario: a DEFINE-GRAMMAR'd body, or an inline/URI grammar in RECOGNIZE. */
function recogScenario(grammar: { define: boolean; type: string; file: string }, audio: string): string {
  const define = grammar.define
    ? `<define-grammar enable="1" content-type="${grammar.type}" content-location="${grammar.file}"/>\n  <recognize enable="1" audio-source="${audio}"/>`
    : `<define-grammar enable="0"/>\n  <recognize enable="1" content-type="${grammar.type}" content-location="${grammar.file}" audio-source="${audio}"/>`;
  return `<?xml version="1.0" encoding="UTF-8"?>
<umcscenario name="recog" class="Recognizer" profile="uni2">
  <resource-discovery enable="0"/>
  ${define}
  <termination enable="1"><capabilities><codec name="LPCM" rates="${RATE}"/></capabilities></termination>
</umcscenario>`;
}

const CODECS = `L16/96/${RATE} telephone-event/101/${RATE}`;

async function runRecog(
  setup: (root: ReturnType<typeof umcRoot>) => void,
  command: string,
  waitMs: number,
): Promise<string> {
  const root = umcRoot(prefix, server.sipPort, CODECS);
  try {
    setup(root);
    const log = await root.run([command], { waitMs });
    if (process.env.UMC_DEBUG) console.error(log.slice(log.indexOf("Create MRCP Handle")));
    return log;
  } finally {
    root.remove();
  }
}

/** The RECOGNITION-COMPLETE message umc logged (start line to end of its body). */
function completion(log: string): string {
  const at = log.indexOf("RECOGNITION-COMPLETE");
  expect(at).toBeGreaterThan(0);
  return log.slice(at, at + 1500);
}

describe("umc recogniser scenarios against Sawt", () => {
  test("does answer builtin:speech/transcribe with the transcript after START-OF-INPUT", async () => {
    const log = await runRecog(
      (root) => {
        root.data("transcribe.uri", "builtin:speech/transcribe");
        root.data("utt.pcm", utterance("سلام عليكم"));
        root.scenario(
          "recognizer.xml",
          recogScenario({ define: false, type: "text/uri-list", file: "transcribe.uri" }, "utt.pcm"),
        );
      },
      "run recog",
      5000,
    );
    const complete = completion(log);
    expect(log.indexOf("START-OF-INPUT")).toBeGreaterThan(0);
    expect(log.indexOf("START-OF-INPUT")).toBeLessThan(log.indexOf("RECOGNITION-COMPLETE"));
    expect(complete).toContain("Completion-Cause: 000 success");
    expect(complete).toMatch(/<instance>سلام عليكم<\/instance>/);
    expect(complete).toMatch(/<input mode="speech"[^>]*>/);
  }, 60_000);

  test("does answer a DEFINE-GRAMMAR'd SRGS menu with the matched item", async () => {
    const grammar = `<?xml version="1.0" encoding="UTF-8"?>
<grammar xmlns="http://www.w3.org/2001/06/grammar" xml:lang="ar-SA" version="1.0" mode="voice" root="menu">
  <rule id="menu"><one-of><item>رصيد</item><item>تحويل</item><item>موظف</item></one-of></rule>
</grammar>`;
    const log = await runRecog(
      (root) => {
        root.data("menu.xml", grammar);
        root.data("utt.pcm", utterance("تحويل"));
        root.scenario(
          "recognizer.xml",
          recogScenario({ define: true, type: "application/srgs+xml", file: "menu.xml" }, "utt.pcm"),
        );
      },
      "run recog",
      5000,
    );
    const complete = completion(log);
    expect(complete).toContain("Completion-Cause: 000 success");
    expect(complete).toMatch(/<instance>تحويل<\/instance>/);
  }, 60_000);

  test("does complete with no-input-timeout when the caller says nothing", async () => {
    const log = await runRecog(
      (root) => {
        root.data("transcribe.uri", "builtin:speech/transcribe");
        root.data("quiet.pcm", int16ToBytes(floatToInt16(silence(7, RATE))));
        root.scenario(
          "recognizer.xml",
          recogScenario({ define: false, type: "text/uri-list", file: "transcribe.uri" }, "quiet.pcm"),
        );
      },
      "run recog",
      7000,
    );
    expect(completion(log)).toContain("Completion-Cause: 002 no-input-timeout");
    expect(log).not.toContain("START-OF-INPUT");
  }, 60_000);

  test("does give RFC 4733 digits with input mode dtmf", async () => {
    const log = await runRecog(
      (root) =>
        root.scenario(
          "dtmfrecognizer.xml",
          `<?xml version="1.0" encoding="UTF-8"?>
<umcscenario name="dtmf" class="DtmfRecognizer" profile="uni2">
  <resource-discovery enable="0"/>
  <recognize enable="1" content-type="text/uri-list" grammar="builtin:dtmf/digits?length=4" digits="1234"/>
  <termination enable="1"><capabilities><codec name="LPCM" rates="${RATE}"/></capabilities></termination>
</umcscenario>`,
        ),
      "run dtmf",
      4000,
    );
    const complete = completion(log);
    expect(complete).toContain("Completion-Cause: 000 success");
    expect(complete).toMatch(/<input mode="dtmf"[^>]*>1234<\/input>/);
    expect(log.indexOf("START-OF-INPUT")).toBeLessThan(log.indexOf("RECOGNITION-COMPLETE"));
  }, 60_000);

  test("does release every session and RTP port after the scenarios", async () => {
    const deadline = Date.now() + 3000;
    while (server.sawt.server.mrcp!.sessions > 0 && Date.now() < deadline) await Bun.sleep(50);
    expect(server.sawt.server.mrcp!.sessions).toBe(0);
  });
});
