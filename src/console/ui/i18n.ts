/**
 * Arabic and English: the strings, the chosen language (`?lang=` first, then the remembered
 * choice in localStorage — the language only, never the key), and numbers in the language's own
 * digits (Arabic-Indic in Arabic).
 */
import { AR } from "./strings-ar.ts";
import { EN } from "./strings-en.ts";

/** The console's languages. */
export type Lang = "ar" | "en";
/** A string's name. */
export type StringKey = keyof typeof EN;

const STORE = "sawt.console.lang";
let current: Lang = "ar";

/** Picks the language from the URL or the remembered choice; sets the document's lang and dir. */
export function initLang(): Lang {
  const asked = new URLSearchParams(location.search).get("lang");
  const remembered = localStorage.getItem(STORE);
  return setLang(asked === "ar" || asked === "en" ? asked : remembered === "en" ? "en" : "ar");
}

/** Switches language: remembered, reflected in the URL (`?lang=`) and the document direction. */
export function setLang(lang: Lang): Lang {
  current = lang;
  localStorage.setItem(STORE, lang);
  document.documentElement.lang = lang;
  document.documentElement.dir = lang === "ar" ? "rtl" : "ltr";
  const url = new URL(location.href);
  url.searchParams.set("lang", lang);
  history.replaceState(null, "", url.pathname + url.search + url.hash);
  document.title = t("title");
  return lang;
}

/** The current language. */
export function lang(): Lang {
  return current;
}

/** The string `key` in the current language. */
export function t(key: StringKey): string {
  return (current === "ar" ? AR : EN)[key];
}

/** A number in the current language's digits. */
export function num(value: number, digits = 0): string {
  return new Intl.NumberFormat(current === "ar" ? "ar-SA-u-nu-arab" : "en-US", {
    maximumFractionDigits: digits,
    minimumFractionDigits: 0,
  }).format(value);
}

/** A time of day in the current language. */
export function time(iso: string): string {
  return new Intl.DateTimeFormat(current === "ar" ? "ar-SA-u-nu-arab-ca-gregory" : "en-GB", {
    timeStyle: "medium",
    dateStyle: "short",
  }).format(new Date(iso));
}
