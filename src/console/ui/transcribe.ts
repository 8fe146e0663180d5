/**
 * Transcription: a file uploaded with a progress bar (`verbose_json`: segments, words, dialect,
 * confidence), and the microphone live through the realtime WebSocket (./mic.ts).
 */
import { ApiError, upload } from "./api.ts";
import { bdi, field, h, replace, table } from "./dom.ts";
import { num, t } from "./i18n.ts";
import { micPanel } from "./mic.ts";

interface Word {
  word: string;
  start: number;
  end: number;
}
interface Segment {
  start: number;
  end: number;
  text: string;
  dialect?: string;
  confidence?: number;
  words?: Word[];
}
interface Verbose {
  text: string;
  language?: string;
  dialect?: string | null;
  dialect_confidence?: number;
  confidence?: number;
  duration?: number;
  segments?: Segment[];
  words?: Word[];
}

function showResult(out: HTMLElement, result: Verbose): void {
  const segments = result.segments ?? [];
  const words = result.words ?? segments.flatMap((s) => s.words ?? []);
  const confidence = result.confidence ?? result.dialect_confidence;
  replace(
    out,
    h("h3", {}, t("transcript")),
    h("p", { id: "file-transcript", class: "transcript" }, bdi(result.text)),
    h(
      "p",
      { class: "facts" },
      `${t("languageCol")}: `,
      bdi(result.language ?? "—"),
      ` · ${t("dialect")}: `,
      bdi(result.dialect ?? "—"),
      confidence !== undefined ? ` · ${t("confidence")}: ${num(confidence, 2)}` : "",
      result.duration !== undefined ? ` · ${t("duration")}: ${num(result.duration, 2)}` : "",
    ),
    table(
      t("segments"),
      [t("start"), t("end"), t("transcript"), t("dialect"), t("confidence")],
      segments.map((s) => [
        num(s.start, 2),
        num(s.end, 2),
        bdi(s.text),
        bdi(s.dialect ?? "—"),
        s.confidence === undefined ? "—" : num(s.confidence, 2),
      ]),
    ),
    table(
      t("words"),
      [t("start"), t("end"), t("words")],
      words.map((w) => [num(w.start, 2), num(w.end, 2), bdi(w.word)]),
    ),
  );
}

/** Mounts the transcription page in `page`; returns its clean-up. */
export function transcribePage(page: HTMLElement): () => void {
  const file = h("input", {
    id: "asr-file",
    type: "file",
    accept: "audio/*,video/mp4,.wav,.mp3,.ogg,.flac,.m4a,.webm",
  });
  const progress = h("progress", { id: "asr-progress", max: 1, value: 0, "aria-label": t("progress") });
  const status = h("p", { id: "asr-status", class: "status", role: "status" });
  const out = h("div", { id: "asr-result" });
  const form = h(
    "form",
    { id: "asr-form", class: "card" },
    h("h2", {}, t("upload")),
    field(t("file"), file),
    h("div", { class: "row actions" }, h("button", { type: "submit", id: "asr-submit" }, t("transcribe")), progress),
    status,
    out,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const chosen = file.files?.[0];
    if (!chosen) return;
    const data = new FormData();
    data.append("file", chosen, chosen.name);
    data.append("response_format", "verbose_json");
    progress.value = 0;
    status.textContent = t("busy");
    try {
      const result = await upload<Verbose>("/v1/asr/audio/transcriptions", data, (f) => (progress.value = f));
      status.textContent = "";
      showResult(out, result);
    } catch (error) {
      status.textContent = error instanceof ApiError ? `${error.status}: ${error.message}` : String(error);
    }
  });
  const mic = micPanel();
  replace(page, h("h1", {}, t("navTranscribe")), form, mic.element);
  return mic.stop;
}
