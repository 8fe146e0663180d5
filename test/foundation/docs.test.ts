import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { defaultText, settingsTable, TABLE_END, TABLE_START } from "../../installer/settings-reference.ts";
import { envName, SETTINGS, type SettingSpec } from "../../src/config/settings.ts";
import { ROOT } from "../support/sawt.ts";

const readme = readFileSync(join(ROOT, "README.md"), "utf8");

test("does document every setting with its env variable and default in the README", () => {
  for (const spec of SETTINGS) {
    const row = readme.split("\n").find((line) => line.startsWith(`| \`${spec.section}.${spec.key}\` |`));
    expect(row, `${spec.section}.${spec.key} missing from README`).toBeDefined();
    expect(row).toContain(`\`${envName(spec)}\``);
    expect(row).toContain(`\`${JSON.stringify(spec.default)}\``);
  }
});

test("does carry in the README exactly the table the settings generate", () => {
  const start = readme.indexOf(TABLE_START);
  const end = readme.indexOf(TABLE_END);
  expect(start, "README settings-table markers").toBeGreaterThan(-1);
  // Regenerate with: bun installer/settings-reference.ts
  expect(readme.slice(start + TABLE_START.length, end).trim()).toBe(settingsTable());
});

/** What the docs call a setting: its full name, or its bare key where no other section has it. */
function settingNames(): Map<string, SettingSpec> {
  const names = new Map<string, SettingSpec>();
  for (const spec of SETTINGS) {
    names.set(`${spec.section}.${spec.key}`, spec);
    const unique = SETTINGS.filter((other) => other.key === spec.key).length === 1;
    if (unique && spec.key.includes("_")) names.set(spec.key, spec);
  }
  return names;
}

interface Problem {
  readonly file: string;
  readonly text: string;
  readonly why: string;
}

/**
 * Every default a page states for a setting, as `` `name` (default V) ``, `` `name` defaults to V ``
 * or `` `name` (N unit) ``, checked against the table; and any other sentence of a paragraph naming a setting that says
 * "default" beside a number, which states a default the check cannot read (as "The defaults, 5 s
 * and 30 s" once did for two settings whose defaults were 0 and 30000).
 */
function defaultProblems(file: string, markdown: string): Problem[] {
  const names = settingNames();
  const problems: Problem[] = [];
  const prose = markdown.replace(/^```[\s\S]*?^```/gm, "");
  // Paragraphs, table rows and list items each stand alone.
  const paragraphs = prose.split(/\n\s*\n|\n(?=\||\s*[-*] |\s*\d+\. )/);
  const stated = /`([a-z_.]+)`\s*(?:\(default\s+([^,;)]+)|defaults to\s+([^\s,;)]+)|\((\d[\d,]*)(?: [A-Za-z]+)?\))/g;
  for (const paragraph of paragraphs) {
    const named = [...paragraph.matchAll(/`([a-z_.]+)`/g)].some((m) => names.has(m[1]!));
    if (!named) continue;
    let rest = paragraph;
    for (const match of paragraph.matchAll(stated)) {
      const spec = names.get(match[1]!);
      if (!spec) continue;
      const value = (match[2] ?? match[3] ?? match[4]!.replaceAll(",", "")).trim().replace(/^`|`$/g, "");
      const wanted = [defaultText(spec), String(spec.default)];
      if (!wanted.includes(value))
        problems.push({ file, text: match[0], why: `table default of ${match[1]} is ${defaultText(spec)}` });
      rest = rest.replace(match[0], "");
    }
    const plain = rest.replace(/`[^`]*`/g, "``");
    for (const sentence of plain.split(/(?<=[.:!?])\s+/)) {
      if (/\bdefaults?\b/i.test(sentence) && /\d/.test(sentence))
        problems.push({
          file,
          text: sentence.trim(),
          why: "states a default as neither (default V) nor defaults to V",
        });
    }
  }
  return problems;
}

describe("defaults stated in the docs", () => {
  const pages = readdirSync(join(ROOT, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => ({ file: `docs/${name}`, text: readFileSync(join(ROOT, "docs", name), "utf8") }));
  const generated = readme.slice(readme.indexOf(TABLE_START), readme.indexOf(TABLE_END));
  pages.push({ file: "README.md", text: readme.replace(generated, "") });

  test("does match the settings table wherever a page states a setting's default", () => {
    expect(pages.flatMap((page) => defaultProblems(page.file, page.text))).toEqual([]);
  });

  test("does catch a page that states a wrong default or one the check cannot read", () => {
    const wrong = "Set `server.drain_grace_ms` (default 5000) above the balancer's check time.";
    expect(defaultProblems("x.md", wrong).map((p) => p.why)).toEqual(["table default of server.drain_grace_ms is 0"]);
    const unreadable = "`drain_grace_ms` plus `drain_timeout_ms` must fit. The defaults, 5 s and 30 s, do.";
    expect(defaultProblems("x.md", unreadable)).toHaveLength(1);
    expect(defaultProblems("x.md", "- one message of `asr.max_upload_mb` (200 MB) plus 64 KiB")).toHaveLength(1);
    const right = "`asr.dialect_seconds` (default 30) and `paths.models_dir` (default `./models`).";
    expect(defaultProblems("x.md", right)).toEqual([]);
  });
});
