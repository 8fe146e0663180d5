/**
 * The console's entry: language, sign-in, the header and the three pages (hash routes #studio,
 * #transcribe, #ops). Operations shows for admin keys — the admin API decides who is one, and
 * refuses the others whatever the page shows.
 */
import { ApiError, apiKey, call, signIn, signOut } from "./api.ts";
import { h, replace } from "./dom.ts";
import { initLang, lang, setLang, t } from "./i18n.ts";
import { opsPage } from "./ops.ts";
import { studioPage } from "./studio.ts";
import { transcribePage } from "./transcribe.ts";

type PageName = "studio" | "transcribe" | "ops";
const root = document.getElementById("app")!;
let isAdmin = false;
let leave: (() => void) | undefined;

/** What the key may do: any valid key lists voices; an admin key reads the overview. */
async function probeKey(): Promise<boolean> {
  await call("/v1/tts/voices");
  isAdmin = await call("/v1/admin/overview").then(
    () => true,
    () => false,
  );
  return true;
}

function pageName(): PageName {
  const name = location.hash.slice(1);
  return name === "transcribe" || (name === "ops" && isAdmin) ? name : "studio";
}

function header(active: PageName): HTMLElement {
  const link = (name: PageName, label: string) =>
    h("a", { href: `#${name}`, id: `nav-${name}`, "aria-current": name === active ? "page" : null }, label);
  return h(
    "header",
    { class: "top" },
    h("strong", { class: "brand" }, t("brand")),
    h(
      "nav",
      { "aria-label": t("title") },
      link("studio", t("navStudio")),
      link("transcribe", t("navTranscribe")),
      isAdmin && link("ops", t("navOps")),
    ),
    h(
      "div",
      { class: "tools" },
      h(
        "button",
        {
          type: "button",
          id: "lang-switch",
          lang: lang() === "ar" ? "en" : "ar",
          title: t("languageName"),
          onclick: () => {
            setLang(lang() === "ar" ? "en" : "ar");
            render();
          },
        },
        t("language"),
      ),
      h(
        "button",
        {
          type: "button",
          id: "sign-out",
          onclick: () => {
            signOut();
            render();
          },
        },
        t("signOut"),
      ),
    ),
  );
}

function signInForm(error?: string): HTMLElement {
  const input = h("input", { type: "password", id: "api-key", name: "api-key", autocomplete: "off", required: true });
  const form = h(
    "form",
    { class: "card signin", id: "signin" },
    h("h1", {}, t("title")),
    h("label", { for: "api-key" }, t("apiKey")),
    input,
    h("p", { class: "hint" }, t("signInHelp")),
    error ? h("p", { class: "error", role: "alert" }, `${t("keyRefused")}: `, h("bdi", {}, error)) : null,
    h("button", { type: "submit" }, t("signIn")),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    signIn(input.value.trim());
    input.value = "";
    probeKey().then(render, (e: unknown) => {
      signOut();
      replace(root, signInForm(e instanceof ApiError ? e.message : String(e)));
    });
  });
  return form;
}

function render(): void {
  leave?.();
  leave = undefined;
  document.title = t("title");
  if (!apiKey()) {
    replace(root, h("div", { class: "bar" }, header("studio").querySelector(".tools #lang-switch")!), signInForm());
    root.querySelector<HTMLInputElement>("#api-key")?.focus();
    return;
  }
  const active = pageName();
  const page = h("section", { id: "page", class: `page page-${active}` });
  replace(root, header(active), page);
  const mount = active === "ops" ? opsPage : active === "transcribe" ? transcribePage : studioPage;
  leave = mount(page);
}

/** A page change by link: render, then move the focus to the new page's heading (keyboard and screen-reader users land there). */
function navigate(): void {
  render();
  const heading = root.querySelector<HTMLElement>("#page h1");
  heading?.setAttribute("tabindex", "-1");
  heading?.focus();
}

window.addEventListener("hashchange", navigate);
initLang();
if (apiKey()) probeKey().then(render, () => (signOut(), render()));
else render();
