/**
 * The Operations page's two managing cards: model packs (list, install by upload with progress,
 * remove) and API keys (create — the new key shown once, in this card only —, change the limit,
 * revoke).
 */
import { ApiError, call, json, upload } from "./api.ts";
import { bdi, field, h, replace, table } from "./dom.ts";
import { num, t, time } from "./i18n.ts";

interface Pack {
  name: string;
  family: string | null;
  serves: string | null;
  problems: string[];
  size_bytes: number;
}
interface Key {
  id: string;
  name: string;
  rpm: number;
  admin: boolean;
  created_at: string;
  revoked_at: string | null;
}

const shown = (error: unknown) => (error instanceof ApiError ? `${error.status}: ${error.message}` : String(error));

/** The packs card. */
export function packsCard(): HTMLElement {
  const list = h("div", { id: "packs-list" });
  const status = h("p", { id: "packs-status", class: "status", role: "status" });
  const file = h("input", { id: "pack-file", type: "file", accept: ".tar,.tar.gz,.tgz,.tar.bz2,.zip" });
  const name = h("input", { id: "pack-name", type: "text", pattern: "[A-Za-z0-9][A-Za-z0-9._\\-]*" });
  const progress = h("progress", { id: "pack-progress", max: 1, value: 0, "aria-label": t("progress") });

  async function refresh(): Promise<void> {
    const { packs } = await json<{ packs: Pack[] }>("/v1/admin/packs");
    replace(
      list,
      table(
        t("packs"),
        [t("name"), t("family"), t("serves"), t("size"), t("remove")],
        packs.map((p) => [
          bdi(p.name),
          bdi(p.family ?? "—"),
          bdi(p.serves ?? p.problems.join("; ")),
          p.size_bytes >= 1e6 ? `${num(p.size_bytes / 1e6, 1)} MB` : `${num(p.size_bytes / 1e3, 1)} kB`,
          h(
            "button",
            {
              type: "button",
              class: "small danger",
              "data-pack": p.name,
              onclick: () =>
                call(`/v1/admin/packs/${encodeURIComponent(p.name)}`, { method: "DELETE" }).then(refresh, (e) => {
                  status.textContent = shown(e);
                }),
            },
            t("remove"),
          ),
        ]),
      ),
    );
  }

  const form = h(
    "form",
    { id: "pack-form", class: "inline" },
    field(t("packFile"), file),
    field(t("packName"), name),
    h("button", { type: "submit" }, t("install")),
    progress,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const chosen = file.files?.[0];
    if (!chosen) return;
    const query = new URLSearchParams({ filename: chosen.name.replace(/[^A-Za-z0-9._-]/g, "_") });
    if (name.value.trim()) query.set("name", name.value.trim());
    status.textContent = t("busy");
    try {
      const result = await upload<{ pack: { name: string; serves: string } }>(
        `/v1/admin/packs?${query}`,
        chosen,
        (f) => {
          progress.value = f;
        },
      );
      // The list first, so that "Installed" never shows beside a list without the pack.
      await refresh();
      replace(status, `${t("installed")}: `, bdi(result.pack.name), " — ", bdi(result.pack.serves));
    } catch (error) {
      status.textContent = shown(error);
    }
  });
  void refresh().catch((e) => (status.textContent = shown(e)));
  return h(
    "section",
    { class: "card", id: "packs" },
    h("h2", {}, t("packs")),
    list,
    h("h3", {}, t("installPack")),
    form,
    status,
  );
}

/** The keys card. */
export function keysCard(): HTMLElement {
  const list = h("div", { id: "keys-list" });
  const status = h("p", { id: "keys-status", class: "status", role: "status" });
  const created = h("div", { id: "new-key" });

  async function refresh(): Promise<void> {
    const { keys } = await json<{ keys: Key[] }>("/v1/admin/keys");
    replace(
      list,
      table(
        t("keys"),
        [t("keyId"), t("name"), t("limit"), t("admin"), t("status"), t("revoke")],
        keys.map((k) => {
          const rpm = h("input", {
            type: "number",
            min: 1,
            value: String(k.rpm),
            "aria-label": `${t("limit")} ${k.id}`,
            class: "narrow",
          });
          const save = () =>
            json(`/v1/admin/keys/${k.id}`, "PATCH", { rpm: Number(rpm.value) }).then(refresh, (e) => {
              status.textContent = shown(e);
            });
          const revoke = () =>
            call(`/v1/admin/keys/${k.id}`, { method: "DELETE" }).then(refresh, (e) => {
              status.textContent = shown(e);
            });
          return [
            bdi(k.id),
            bdi(k.name),
            h(
              "span",
              { class: "inline" },
              rpm,
              h("button", { type: "button", class: "small", onclick: save }, t("save")),
            ),
            k.admin ? t("yes") : t("no"),
            k.revoked_at ? `${t("revoked")} ${time(k.revoked_at)}` : t("active"),
            k.revoked_at
              ? null
              : h(
                  "button",
                  { type: "button", class: "small danger", "data-revoke": k.id, onclick: revoke },
                  t("revoke"),
                ),
          ];
        }),
      ),
    );
  }

  const name = h("input", { id: "key-name", type: "text", required: true, maxlength: 100 });
  const rpm = h("input", { id: "key-rpm", type: "number", min: 1, value: "60" });
  const admin = h("input", { id: "key-admin", type: "checkbox" });
  const form = h(
    "form",
    { id: "key-form", class: "inline" },
    field(t("name"), name),
    field(t("limit"), rpm),
    field(t("admin"), admin),
    h("button", { type: "submit" }, t("create")),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const key = await json<Key & { key: string }>("/v1/admin/keys", "POST", {
        name: name.value,
        rpm: Number(rpm.value),
        admin: admin.checked,
      });
      const output = h("output", { id: "new-key-value", dir: "ltr" }, key.key);
      replace(created, h("p", {}, t("newKey")), output);
      name.value = "";
      await refresh();
    } catch (error) {
      status.textContent = shown(error);
    }
  });
  void refresh().catch((e) => (status.textContent = shown(e)));
  return h(
    "section",
    { class: "card", id: "keys" },
    h("h2", {}, t("keys")),
    list,
    h("h3", {}, t("createKey")),
    form,
    created,
    status,
  );
}
