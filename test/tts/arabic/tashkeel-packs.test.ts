/**
 * Acceptance 1 with a `tashkeel/` pack: the real published model (2024 shape) installed as a
 * pack, and a pack in libtashkeel's current three-input shape (constructed to the published
 * interface, ../../support/models/tashkeel-hints.ts), each diacritise the README sentence to the
 * reference, and espeak-ng is handed that text. `tts.tashkeel = "off"` reads text as written.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { classesOf, writeHintedTashkeelPack, writeRealTashkeelPack } from "../../support/models/tashkeel-hints.ts";
import { startInProcess, type InProcessSawt } from "../../support/in-process.ts";
import { tempDir } from "../../support/sawt.ts";
import { espeakSynthesisTexts, post, REFERENCE_INPUT, REFERENCE_OUTPUT } from "./support.ts";

async function serve(prepare: (models: string) => Promise<void>, env: Record<string, string> = {}) {
  const dir = tempDir("sawt-arabic-pack-");
  const models = join(dir.path, "models");
  await prepare(models);
  const sawt = await startInProcess({ SAWT_MODELS_DIR: models, ...env });
  await sawt.server.enginesSettled;
  const key = sawt.server.ctx.keys.create({ name: "arabic", rpm: 10_000 }).key;
  return {
    sawt,
    key,
    analyze: (body: Record<string, unknown>) => post(sawt.baseUrl, "/v1/tts/analyze", key, body),
    speak: (input: string) =>
      espeakSynthesisTexts(() =>
        fetch(`${sawt.baseUrl}/v1/tts/audio/speech`, {
          method: "POST",
          headers: { "content-type": "application/json", "X-API-Key": key },
          body: JSON.stringify({ input, response_format: "pcm" }),
        }).then((r) => r.arrayBuffer()),
      ),
    async close() {
      await sawt.close();
      dir.remove();
    },
  };
}

describe("the real libtashkeel model installed as a tashkeel/ pack", () => {
  let server: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => (server = await serve((models) => writeRealTashkeelPack(join(models, "tashkeel")))));
  afterAll(() => server.close());

  test("does diacritise the README sentence to the reference and hand espeak-ng that text when the pack serves", async () => {
    const { body } = await server.analyze({ input: REFERENCE_INPUT });
    expect(body.tashkeel).toBe("pack");
    expect(body.sentences[0].diacritized).toBe(REFERENCE_OUTPUT);
    expect(await server.speak(REFERENCE_INPUT)).toEqual([REFERENCE_OUTPUT]);
  });
});

describe("a tashkeel/ pack in the three-input shape (diac_inputs + hint_id_map.json)", () => {
  let server: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    const classes = await classesOf(REFERENCE_OUTPUT);
    server = await serve((models) => writeHintedTashkeelPack(join(models, "tashkeel"), classes));
  });
  afterAll(() => server.close());

  test("does diacritise the README sentence to the reference and hand espeak-ng that text when the pack serves", async () => {
    const { body } = await server.analyze({ input: REFERENCE_INPUT });
    expect(body.tashkeel).toBe("pack");
    expect(body.sentences[0].diacritized).toBe(REFERENCE_OUTPUT);
    expect(await server.speak(REFERENCE_INPUT)).toEqual([REFERENCE_OUTPUT]);
  });

  test("does feed the author's marks as hint ids at their letters' positions and keep them", async () => {
    // The model gives a letter the class of the hint on the letter after it (else the reference
    // class of its position): a kasra written on «و» shows up on the unmarked «ر» before it, and
    // fatha + shadda written on «ع» (hint 11, in either order) on «و». Written marks stay.
    const kasra = await server.analyze({ input: "إن روِعة" });
    expect(kasra.body.sentences[0].diacritized).toBe(
      "إ\u0650ن\u0651\u064E ر\u0650و\u0650ع\u064Eة\u064E".normalize("NFC"),
    );
    const shadda = await server.analyze({ input: "إن روعَّة" });
    expect(shadda.body.sentences[0].diacritized).toBe(
      "إ\u0650ن\u0651\u064E ر\u064Eو\u0651\u064Eع\u064E\u0651ة\u064E".normalize("NFC"),
    );
  });
});

describe("tts.tashkeel = off", () => {
  let server: Awaited<ReturnType<typeof serve>>;
  beforeAll(
    async () =>
      (server = await serve((models) => mkdir(models, { recursive: true }).then(() => undefined), {
        SAWT_TTS_TASHKEEL: "off",
      })),
  );
  afterAll(() => server.close());

  test("does read the text as written and hand espeak-ng the undiacritised text when off", async () => {
    const { body } = await server.analyze({ input: REFERENCE_INPUT });
    expect(body.tashkeel).toBe("off");
    expect(body.sentences[0].diacritized).toBe(REFERENCE_INPUT);
    expect(await server.speak(REFERENCE_INPUT)).toEqual([REFERENCE_INPUT]);
  });
});
