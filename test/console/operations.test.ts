/**
 * The console's Operations page and its two languages in Debian's Chromium against the real
 * server (issue 30, acceptance 3 and 4): a pack installed by upload serves; a key created on the
 * page works until it is revoked there; the request-rate and latency charts move under a small
 * load; Arabic is right-to-left with Arabic-Indic digits, the language is remembered, and no page
 * overflows sideways at 1280×800 or 390×844. `SAWT_CONSOLE_SCREENSHOTS=1` rewrites the
 * screenshots under docs/console/ that the README shows.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { writeLetterVoicePack } from "../support/models/ctc.ts";
import { ROOT } from "../support/sawt.ts";
import { overflows, setUpConsole, signInAs, type ConsoleSetup } from "./support.ts";

// The page's globals, for the callbacks that run in Chromium (the tests' tsconfig has no DOM library).
declare const document: any, location: any;

let s: ConsoleSetup;

beforeAll(async () => {
  s = await setUpConsole();
  await signInAs(s.page, s.sawt.baseUrl, s.adminKey);
}, 120_000);
afterAll(() => s?.close());

const rest = (path: string, key: string, init: RequestInit = {}) =>
  fetch(`${s.sawt.baseUrl}${path}`, { ...init, headers: { "x-api-key": key, ...(init.headers ?? {}) } });

/** Loads the page afresh (a goto to the URL already open would change nothing: no hashchange). */
async function openPage(name: "studio" | "transcribe" | "ops", lang: "ar" | "en"): Promise<void> {
  await s.page.goto("about:blank");
  await s.page.goto(`${s.sawt.baseUrl}/console?lang=${lang}#${name}`);
  await s.page.locator(`.page-${name}`).waitFor();
}

describe("console: operations (admin)", () => {
  test("does install a voice pack uploaded on the page and speak with it", async () => {
    const packs = join(s.dir, "upload");
    await writeLetterVoicePack(join(packs, "Sherine"));
    const archive = join(s.dir, "Sherine.tar.gz");
    expect(Bun.spawnSync(["tar", "czf", archive, "-C", packs, "Sherine"]).exitCode).toBe(0);
    const before = await rest("/v1/tts/audio/speech", s.userKey, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ input: "سلام", voice: "Sherine", response_format: "wav" }),
    });
    expect(before.headers.get("x-tts-voice")).not.toBe("Sherine");
    await openPage("ops", "en");
    await s.page.locator("#pack-file").setInputFiles(archive);
    await s.page.locator("#pack-name").fill("Sherine");
    await s.page.locator("#pack-form button[type=submit]").click();
    await s.page.waitForFunction(
      () => /Installed/.test(document.querySelector("#packs-status").textContent),
      undefined,
      {
        timeout: 60_000,
      },
    );
    expect(await s.page.locator("#pack-progress").evaluate((p: any) => p.value)).toBe(1);
    expect(await s.page.locator("#packs-list").textContent()).toContain("Sherine");
    const after = await rest("/v1/tts/audio/speech", s.userKey, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ input: "سلام", voice: "Sherine", response_format: "wav" }),
    });
    expect(after.status).toBe(200);
    expect(after.headers.get("x-tts-voice")).toBe("Sherine");
    expect(after.headers.get("x-tts-engine")).toBe("piper");
    expect(after.headers.get("x-tts-fallback")).toBeNull();
  }, 90_000);

  test("does create a key shown once, change its limit and revoke it, after which it is refused", async () => {
    await openPage("ops", "en");
    await s.page.locator("#key-name").fill("temporary");
    await s.page.locator("#key-rpm").fill("30");
    await s.page.locator("#key-form button[type=submit]").click();
    const key = (await s.page.locator("#new-key-value").textContent())!.trim();
    expect(key).toMatch(/^sawt_[a-z2-7]{12}_/);
    const id = key.split("_")[1]!;
    const first = await rest("/v1/tts/voices", key);
    expect(first.status).toBe(200);
    expect(first.headers.get("x-ratelimit-limit")).toBe("30");
    const row = s.page.locator("#keys-list tr", { hasText: id });
    await row.locator("input[type=number]").fill("45");
    await row.getByRole("button", { name: "Save" }).click();
    await s.page.waitForFunction(async (keyId) => {
      const input = [...document.querySelectorAll("#keys-list tr")].find((r: any) => r.textContent.includes(keyId));
      return input?.querySelector("input").value === "45";
    }, id);
    expect((await rest("/v1/tts/voices", key)).headers.get("x-ratelimit-limit")).toBe("45");
    await s.page.locator(`button[data-revoke="${id}"]`).click();
    await s.page.locator(`button[data-revoke="${id}"]`).waitFor({ state: "detached" });
    const refused = await rest("/v1/tts/voices", key);
    expect(refused.status).toBe(401);
    // Shown once: a fresh page has the id in the table but the key nowhere.
    await s.page.reload();
    await s.page.locator("#keys-list tr", { hasText: id }).waitFor();
    expect(await s.page.content()).not.toContain(key);
  }, 60_000);

  test("does move the request-rate and latency charts under a small load", async () => {
    await openPage("ops", "en");
    await s.page.waitForFunction(
      () => (document.querySelector("#chart-rate").dataset.points ?? "").length > 0,
      undefined,
      {
        timeout: 10_000,
      },
    );
    const load = (async () => {
      for (let round = 0; round < 10; round++) {
        await Promise.all(Array.from({ length: 8 }, () => rest("/v1/tts/voices", s.userKey)));
        await Bun.sleep(200);
      }
    })();
    await s.page.waitForFunction(
      () => {
        const points = (id: string) => (document.querySelector(id).dataset.points ?? "").split(",").map(Number);
        return Math.max(...points("#chart-rate")) >= 5 && Math.max(...points("#chart-latency")) > 0;
      },
      undefined,
      { timeout: 15_000 },
    );
    await load;
    expect(await s.page.locator("#chart-rate polyline").getAttribute("points")).toMatch(/\d+(\.\d+)?,\d/);
  }, 30_000);

  test("does list recent errors by kind without user text or keys", async () => {
    await rest("/v1/tts/audio/speech", s.userKey, { method: "POST", body: JSON.stringify({ input: "" }) });
    await rest("/v1/tts/voices", "sawt_wrongwrongwr_secret-text");
    await openPage("ops", "en");
    await s.page.locator("#ops-errors table").first().waitFor();
    const text = (await s.page.locator("#ops-errors").textContent())!;
    expect(text).toContain("unauthorized");
    expect(text).toContain("/v1/tts/audio/speech");
    expect(text).not.toContain("secret-text");
  });
});

describe("console: languages and layout", () => {
  test("does lay Arabic out right to left with Arabic digits and remember the language", async () => {
    await openPage("ops", "ar");
    expect(await s.page.evaluate(() => [document.documentElement.dir, document.documentElement.lang])).toEqual([
      "rtl",
      "ar",
    ]);
    await s.page.waitForFunction(() => /[٠-٩]/.test(document.querySelector("#ops-gauges").textContent));
    await s.page.goto(`${s.sawt.baseUrl}/console#studio`);
    await s.page.locator(".page-studio").waitFor();
    expect(await s.page.evaluate(() => document.documentElement.dir)).toBe("rtl");
    expect(await s.page.evaluate(() => location.search)).toBe("?lang=ar");
    await s.page.locator("#lang-switch").click();
    expect(await s.page.evaluate(() => [document.documentElement.dir, location.search])).toEqual(["ltr", "?lang=en"]);
    expect(await s.page.locator("#nav-studio").textContent()).toBe("Prompt studio");
  });

  test("does sign in and change page with the keyboard alone", async () => {
    await openPage("studio", "en");
    await s.page.locator("#sign-out").click();
    // The key field has the focus when the page opens; Enter submits.
    await s.page.keyboard.type(s.adminKey);
    await s.page.keyboard.press("Enter");
    await s.page.locator("#nav-transcribe").waitFor();
    await s.page.locator("#nav-transcribe").focus();
    await s.page.keyboard.press("Enter");
    await s.page.locator(".page-transcribe").waitFor();
    // The focus lands on the new page's heading, then moves on into the page.
    expect(await s.page.evaluate(() => document.activeElement?.textContent)).toBe("Transcription");
    await s.page.keyboard.press("Tab");
    expect(await s.page.evaluate(() => document.activeElement?.id)).toBe("asr-file");
  });

  test("does fit every page in both languages at 1280×800 and 390×844", async () => {
    const shots = process.env.SAWT_CONSOLE_SCREENSHOTS === "1" ? join(ROOT, "docs", "console") : undefined;
    if (shots) mkdirSync(shots, { recursive: true });
    for (const lang of ["ar", "en"] as const) {
      for (const name of ["studio", "transcribe", "ops"] as const) {
        await s.page.setViewportSize({ width: 1280, height: 800 });
        await openPage(name, lang);
        if (name === "studio") {
          await s.page.locator("#tts-voice option").first().waitFor({ state: "attached" });
          await s.page.locator("#tts-speak").click();
          await s.page.locator("#tts-analysis .normalized").first().waitFor();
        }
        if (name === "transcribe") {
          await s.page.locator("#asr-file").setInputFiles(s.speechWav);
          await s.page.locator("#asr-submit").click();
          await s.page.locator("#file-transcript").waitFor();
        }
        if (name === "ops") {
          await s.page.locator("#keys-list table").waitFor();
          await s.page.waitForFunction(
            () => (document.querySelector("#chart-rate").dataset.points ?? "").includes(","),
            undefined,
            {
              timeout: 10_000,
            },
          );
        }
        expect(await s.page.evaluate(() => document.documentElement.dir)).toBe(lang === "ar" ? "rtl" : "ltr");
        expect(await overflows(s.page), `${name} ${lang} 1280×800`).toBe(false);
        if (shots) await s.page.screenshot({ path: join(shots, `${name}-${lang}.png`), fullPage: true });
        await s.page.setViewportSize({ width: 390, height: 844 });
        expect(await overflows(s.page), `${name} ${lang} 390×844`).toBe(false);
      }
    }
    await s.page.setViewportSize({ width: 1280, height: 800 });
  }, 90_000);
});
