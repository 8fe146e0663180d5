/**
 * The console's one way to make DOM: `h(tag, props, ...children)`. Strings become text nodes and
 * attributes are set with setAttribute, never parsed as HTML, so a voice name, a lexicon entry or
 * a transcript that looks like markup is shown as the text it is (no innerHTML anywhere).
 */

/** What a child may be: a node, text, or nothing. */
export type Child = Node | string | number | null | undefined | false;
/** Attributes (strings, booleans), `on<event>` handlers, and a few properties (`value`, `checked`). */
export type Props = Record<string, string | number | boolean | null | undefined | EventListener>;

/** Creates an element with attributes, handlers and children. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === null || value === undefined || value === false) continue;
    if (typeof value === "function") element.addEventListener(name.slice(2), value);
    else if (name === "value" || name === "checked") (element as unknown as Record<string, unknown>)[name] = value;
    else element.setAttribute(name, value === true ? "" : String(value));
  }
  append(element, children);
  return element;
}

/** Appends children (text for strings). */
export function append(parent: Node, children: readonly Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === "object" ? child : document.createTextNode(String(child)));
  }
}

/** Replaces an element's children. */
export function replace(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

/** Text in its own bidi isolate: Latin ids in Arabic lines and Arabic text in English ones keep their order. */
export function bdi(text: string, props: Props = {}): HTMLElement {
  return h("bdi", props, text);
}

/** A labelled form field: `<label for>` + control, in one row. */
export function field(label: string, control: HTMLElement): HTMLElement {
  const id = control.id || `f-${Math.random().toString(36).slice(2, 9)}`;
  control.id = id;
  return h("div", { class: "field" }, h("label", { for: id }, label), control);
}

/** A table whose header row is `head`; wrapped so a wide table scrolls inside the page, not the page. */
export function table(caption: string, head: readonly string[], rows: readonly Child[][]): HTMLElement {
  return h(
    "div",
    { class: "table-wrap" },
    h(
      "table",
      {},
      // The card's heading says it on screen; the caption names the table for screen readers.
      h("caption", { class: "visually-hidden" }, caption),
      h("thead", {}, h("tr", {}, ...head.map((c) => h("th", { scope: "col" }, c)))),
      h("tbody", {}, ...rows.map((r) => h("tr", {}, ...r.map((c) => h("td", {}, c))))),
    ),
  );
}
