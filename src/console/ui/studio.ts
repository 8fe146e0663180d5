/**
 * Prompt studio: text or SSML in, voice, dialect, speed and format chosen; the audio plays and
 * downloads, and the reading (`POST /v1/tts/analyze`) shows beside it with what Sawt changed
 * marked; a word added to the key's lexicon is spoken again at once, so the difference is heard.
 */
import { foldArabic } from "../../text/arabic/fold.ts";
import { ApiError, call, json } from "./api.ts";
import { bdi, field, h, replace } from "./dom.ts";
import { num, t } from "./i18n.ts";

const DIALECTS = ["ar-najdi", "ar-hijazi", "ar-qassimi", "ar-egyptian", "ar-levantine"];
const FORMATS = ["mp3", "wav", "opus", "flac"];

interface Voice {
  voice_id: string;
  name?: string;
}
interface Sentence {
  type: string;
  voice?: string;
  engine?: string;
  normalized?: string;
  diacritized?: string;
  phonemes?: string;
}
interface Entry {
  grapheme: string;
  alias?: string;
  ipa?: string;
  dialect?: string;
}

/**
 * `text`'s words, those not in `known` marked as changed; compared by the text kit's `display`
 * folding, so a word that only gained harakat is unchanged.
 */
function marked(text: string, known: ReadonlySet<string>): HTMLElement {
  const out = h("bdi", { class: "reading" });
  for (const [i, word] of text.split(/\s+/).entries()) {
    if (i > 0) out.append(" ");
    const plain = foldArabic(word, "display");
    out.append(known.has(plain) ? word : h("mark", { title: t("changed") }, word));
  }
  return out;
}

function words(text: string): Set<string> {
  return new Set(foldArabic(text, "display").split(/\s+/));
}

async function digest(bytes: ArrayBuffer): Promise<string> {
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(hash, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Mounts the studio in `page`; returns its clean-up. */
export function studioPage(page: HTMLElement): () => void {
  const text = h("textarea", { id: "tts-input", rows: 4, value: "مرحبا بكم في خدمة العملاء" });
  const voice = h("select", { id: "tts-voice" });
  const dialect = h(
    "select",
    { id: "tts-dialect" },
    h("option", { value: "" }, t("dialectAuto")),
    ...DIALECTS.map((d) => h("option", { value: d }, d)),
  );
  const speed = h("input", { id: "tts-speed", type: "number", min: 0.5, max: 2, step: 0.1, value: "1" });
  const format = h("select", { id: "tts-format" }, ...FORMATS.map((f) => h("option", { value: f }, f)));
  const audio = h("audio", { id: "tts-audio", controls: true });
  const downloadLink = h("a", { id: "tts-download", class: "button", hidden: true }, t("download"));
  const facts = h("p", { id: "tts-facts", class: "facts" });
  const status = h("p", { id: "tts-status", class: "status", role: "status" });
  const analysis = h("div", { id: "tts-analysis" });
  const lexiconList = h("div", { id: "lexicon-list" });
  let objectUrl: string | undefined;

  const body = () => {
    const request: Record<string, unknown> = {
      input: text.value,
      voice: voice.value,
      speed: Number(speed.value),
      response_format: format.value,
    };
    if (dialect.value) request.dialect = dialect.value;
    return request;
  };

  async function speak(): Promise<void> {
    status.textContent = t("busy");
    try {
      const response = await call("/v1/tts/audio/speech", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body()),
      });
      const bytes = await response.arrayBuffer();
      const type = response.headers.get("content-type") ?? "application/octet-stream";
      if (objectUrl) URL.revokeObjectURL(objectUrl);
      objectUrl = URL.createObjectURL(new Blob([bytes], { type }));
      audio.dataset.bytes = String(bytes.byteLength);
      audio.dataset.digest = await digest(bytes);
      // How many answers the element has had: tests and screen readers can tell a new one from the last.
      audio.dataset.count = String(Number(audio.dataset.count ?? 0) + 1);
      audio.src = objectUrl;
      downloadLink.href = objectUrl;
      downloadLink.download = `sawt-${response.headers.get("x-tts-voice") ?? "speech"}.${format.value}`;
      downloadLink.hidden = false;
      replace(
        facts,
        `${t("voice")}: `,
        bdi(response.headers.get("x-tts-voice") ?? ""),
        ` · ${t("engine")}: `,
        bdi(response.headers.get("x-tts-engine") ?? ""),
        ` · ${num(bytes.byteLength)} B`,
        response.headers.has("x-tts-fallback") ? h("br") : null,
        response.headers.has("x-tts-fallback") ? bdi(response.headers.get("x-tts-fallback")!) : null,
      );
      status.textContent = "";
      await audio.play().catch(() => undefined);
      await analyze();
    } catch (error) {
      status.textContent = error instanceof ApiError ? `${error.status}: ${error.message}` : String(error);
    }
  }

  async function analyze(): Promise<void> {
    const result = await json<{ sentences: Sentence[] }>("/v1/tts/analyze", "POST", body());
    const known = words(text.value);
    const rows = result.sentences.filter((s) => s.type === "sentence");
    replace(
      analysis,
      ...rows.map((s) =>
        h(
          "dl",
          { class: "sentence" },
          h("dt", {}, t("normalized")),
          h("dd", { class: "normalized" }, marked(s.normalized ?? "", known)),
          h("dt", {}, t("diacritized")),
          h("dd", { class: "diacritized" }, marked(s.diacritized ?? "", words(s.normalized ?? ""))),
          h("dt", {}, t("phonemes")),
          h("dd", { class: "phonemes", dir: "ltr" }, bdi(s.phonemes ?? "")),
          h("dt", {}, t("engine")),
          h("dd", {}, bdi(`${s.voice ?? ""} · ${s.engine ?? ""}`)),
        ),
      ),
    );
  }

  async function showLexicon(): Promise<void> {
    const { entries } = await json<{ entries: Entry[] }>("/v1/tts/lexicon");
    if (entries.length === 0) return replace(lexiconList, h("p", {}, t("noEntries")));
    const list = h("ul", { class: "lexicon" });
    for (const e of entries) {
      const remove = async () => {
        await call(`/v1/tts/lexicon?grapheme=${encodeURIComponent(e.grapheme)}`, { method: "DELETE" });
        await showLexicon();
      };
      list.append(
        h(
          "li",
          {},
          bdi(e.grapheme, { class: "grapheme" }),
          " → ",
          bdi(e.alias ?? e.ipa ?? "", { class: "alias" }),
          e.dialect ? bdi(` (${e.dialect})`) : null,
          " ",
          h("button", { type: "button", class: "small", onclick: remove }, t("remove")),
        ),
      );
    }
    replace(lexiconList, list);
  }

  const grapheme = h("input", { id: "lex-grapheme", type: "text", required: true });
  const alias = h("input", { id: "lex-alias", type: "text", required: true });
  const lexForm = h(
    "form",
    { id: "lexicon-form", class: "inline" },
    field(t("grapheme"), grapheme),
    field(t("alias"), alias),
    h("button", { type: "submit" }, t("addWord")),
  );
  lexForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      await json("/v1/tts/lexicon", "PUT", {
        entries: [{ grapheme: grapheme.value.trim(), alias: alias.value.trim() }],
      });
      await showLexicon();
      await speak();
    } catch (error) {
      status.textContent = error instanceof ApiError ? `${error.status}: ${error.message}` : String(error);
    }
  });

  const form = h(
    "form",
    { id: "tts-form", class: "card" },
    field(t("text"), text),
    h("div", { class: "row" }, field(t("voice"), voice), field(t("dialect"), dialect)),
    h("div", { class: "row" }, field(t("speed"), speed), field(t("format"), format)),
    h("div", { class: "row actions" }, h("button", { type: "submit", id: "tts-speak" }, t("speak")), downloadLink),
    status,
    audio,
    facts,
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void speak();
  });

  replace(
    page,
    h("h1", {}, t("navStudio")),
    h("div", { class: "columns" }, form, h("div", { class: "card" }, h("h2", {}, t("analysis")), analysis)),
    h("div", { class: "card" }, h("h2", {}, t("lexicon")), lexForm, lexiconList),
  );
  json<{ voices: Voice[] }>("/v1/tts/voices").then(({ voices }) => {
    replace(voice, ...voices.map((v) => h("option", { value: v.voice_id }, v.name ?? v.voice_id)));
  });
  void showLexicon();
  return () => {
    audio.pause();
    if (objectUrl) URL.revokeObjectURL(objectUrl);
  };
}
