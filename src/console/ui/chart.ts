/**
 * A hand-drawn SVG line chart (no library fits better for two small series): the last points of
 * a series scaled to the box, with the latest value written beside the title. Attributes only, no
 * inline style, so the page's CSP needs no 'unsafe-inline'.
 */
import { h } from "./dom.ts";
import { num } from "./i18n.ts";

const SVG = "http://www.w3.org/2000/svg";
const W = 300;
const H = 100;

/** A chart element and its update. */
export interface LineChart {
  readonly element: HTMLElement;
  push(value: number): void;
}

/** A chart titled `title` keeping `capacity` points. */
export function lineChart(id: string, title: string, capacity = 30, digits = 1): LineChart {
  const points: number[] = [];
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", title);
  const axis = document.createElementNS(SVG, "line");
  for (const [k, v] of Object.entries({ x1: 0, y1: H - 1, x2: W, y2: H - 1, class: "axis" }))
    axis.setAttribute(k, String(v));
  const line = document.createElementNS(SVG, "polyline");
  line.setAttribute("class", "series");
  line.setAttribute("fill", "none");
  svg.append(axis, line);
  const latest = h("span", { class: "latest" });
  const element = h("figure", { class: "chart", id }, h("figcaption", {}, title, " ", latest));
  element.append(svg);
  return {
    element,
    push(value) {
      points.push(Number.isFinite(value) ? value : 0);
      if (points.length > capacity) points.shift();
      const top = Math.max(...points, 1e-9) * 1.1;
      const step = W / Math.max(capacity - 1, 1);
      line.setAttribute(
        "points",
        points.map((p, i) => `${(i * step).toFixed(1)},${(H - 2 - (p / top) * (H - 4)).toFixed(1)}`).join(" "),
      );
      element.dataset.points = points.join(",");
      latest.textContent = num(points[points.length - 1]!, digits);
    },
  };
}
