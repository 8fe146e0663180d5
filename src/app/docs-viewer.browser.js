// Sawt's offline API reference viewer. @elysiajs/swagger's page loads its renderer from a CDN,
// which air-gapped installs cannot reach; this self-contained script is served at /docs/viewer.js
// in its place (the plugin's `scalarCDN` option). It reads the spec URL from the page's
// <script id="api-reference" data-url>, fetches the OpenAPI document and renders it with plain
// DOM calls: text goes through textContent only, never HTML.
(function () {
  "use strict";
  var holder = document.getElementById("api-reference");
  var specUrl = (holder && holder.getAttribute("data-url")) || "/docs/json";
  var METHODS = ["get", "post", "put", "patch", "delete"];

  function el(tag, attrs) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (name) { node.setAttribute(name, attrs[name]); });
    for (var i = 2; i < arguments.length; i++) append(node, arguments[i]);
    return node;
  }
  function append(node, child) {
    if (child === null || child === undefined || child === false) return;
    if (Array.isArray(child)) child.forEach(function (c) { append(node, c); });
    else node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
  }
  // Minimal markdown: paragraphs, "- " bullets and `code` spans.
  function prose(text) {
    if (!text) return null;
    var out = el("div", { class: "prose", dir: "auto" });
    String(text).split(/\n{2,}/).forEach(function (block) {
      var list = null;
      var para = null;
      block.split("\n").forEach(function (line) {
        if (/^\s*- /.test(line)) {
          if (!list) { list = el("ul"); out.appendChild(list); para = null; }
          list.appendChild(el("li", {}, inline(line.replace(/^\s*- /, ""))));
        } else {
          if (!para) { para = el("p"); out.appendChild(para); list = null; } else para.appendChild(document.createTextNode(" "));
          append(para, inline(line));
        }
      });
    });
    return out;
  }
  function inline(text) {
    return text.split("`").map(function (part, i) { return i % 2 === 1 ? el("code", {}, part) : part; });
  }
  function lookup(spec, ref) {
    return ref.replace(/^#\//, "").split("/").reduce(function (obj, key) { return obj && obj[key]; }, spec);
  }
  function resolve(spec, obj) {
    for (var guard = 0; obj && obj.$ref && guard < 10; guard++) obj = lookup(spec, obj.$ref);
    return obj || {};
  }
  function refName(obj) { return obj && obj.$ref ? obj.$ref.split("/").pop() : null; }
  function typeOf(spec, schema) {
    var name = refName(schema);
    var s = resolve(spec, schema);
    if (s.oneOf) return s.oneOf.map(function (x) { return typeOf(spec, x); }).join(" | ");
    var type = name || s.type || "any";
    if (s.type === "array") type = typeOf(spec, s.items || {}) + "[]";
    if (s.format) type += " (" + s.format + ")";
    if (s.nullable) type += " | null";
    return type;
  }
  function rules(s) {
    var out = [];
    if (s.enum) out.push("one of: " + s.enum.join(", "));
    if (s.minimum !== undefined) out.push("min " + s.minimum);
    if (s.maximum !== undefined) out.push("max " + s.maximum);
    if (s.example !== undefined) out.push("example: " + JSON.stringify(s.example));
    return out.join("; ");
  }
  function schemaTable(spec, schema) {
    var s = resolve(spec, schema);
    if (s.oneOf) return el("div", {}, s.oneOf.map(function (x) { return el("div", {}, el("h5", {}, typeOf(spec, x)), schemaTable(spec, x)); }));
    if (!s.properties) return el("p", { class: "type" }, typeOf(spec, schema));
    var required = s.required || [];
    return el("table", { class: "fields" },
      el("thead", {}, el("tr", {}, el("th", {}, "field"), el("th", {}, "type"), el("th", {}, "required"), el("th", {}, "description"))),
      el("tbody", {}, Object.keys(s.properties).map(function (name) {
        var p = resolve(spec, s.properties[name]);
        var nested = p.type === "array" && p.items ? resolve(spec, p.items) : null;
        return el("tr", {},
          el("td", {}, el("code", {}, name)),
          el("td", { class: "type" }, typeOf(spec, s.properties[name])),
          el("td", {}, required.indexOf(name) >= 0 ? "yes" : "no"),
          el("td", { dir: "auto" }, prose(p.description), rules(p) ? el("div", { class: "rules", dir: "auto" }, rules(p)) : null,
            nested && nested.properties ? schemaTable(spec, p.items) : null));
      })));
  }
  function example(value) {
    return el("pre", { class: "example", dir: "auto" }, typeof value === "string" ? value : JSON.stringify(value, null, 2));
  }
  function content(spec, media) {
    return Object.keys(media || {}).map(function (type) {
      var m = media[type];
      var examples = m.examples ? Object.keys(m.examples).map(function (k) { var e = resolve(spec, m.examples[k]); return el("div", {}, el("h5", {}, e.summary || k), example(e.value)); }) : [];
      return el("div", { class: "media" }, el("h4", {}, type), m.schema ? schemaTable(spec, m.schema) : null,
        m.example !== undefined ? el("div", {}, el("h5", {}, "example"), example(m.example)) : null, examples);
    });
  }
  function operation(spec, path, method, op) {
    var id = (op.operationId || method + path).replace(/[^A-Za-z0-9_-]/g, "_");
    var params = (op.parameters || []).map(function (p) { return resolve(spec, p); });
    return el("section", { class: "op", id: id },
      el("h3", {}, el("span", { class: "method " + method }, method.toUpperCase()), " ", el("code", { class: "path" }, path), " ", op.summary || "",
        op.deprecated ? el("span", { class: "deprecated" }, "deprecated") : null),
      prose(op.description),
      op.security && op.security.length ? el("p", { class: "auth" }, "Authentication: ", op.security.map(function (req, i) {
        return [i ? " or " : "", Object.keys(req).map(function (name) { var sch = spec.components.securitySchemes[name]; return sch.type === "apiKey" ? sch.name + " header" : "Authorization: Bearer <key>"; })];
      })) : el("p", { class: "auth" }, "No API key needed."),
      params.length ? el("div", {}, el("h4", {}, "Parameters"), el("table", { class: "fields" },
        el("thead", {}, el("tr", {}, el("th", {}, "name"), el("th", {}, "in"), el("th", {}, "required"), el("th", {}, "description"))),
        el("tbody", {}, params.map(function (p) {
          return el("tr", {}, el("td", {}, el("code", {}, p.name)), el("td", {}, p.in), el("td", {}, p.required ? "yes" : "no"), el("td", { dir: "auto" }, prose(p.description), p.schema ? el("div", { class: "rules" }, rules(p.schema)) : null));
        })))) : null,
      op.requestBody ? el("div", {}, el("h4", {}, "Request body"), content(spec, resolve(spec, op.requestBody).content)) : null,
      el("h4", {}, "Responses"),
      Object.keys(op.responses || {}).map(function (status) {
        var r = resolve(spec, op.responses[status]);
        return el("details", { class: "response s" + status.charAt(0) }, el("summary", {}, el("b", {}, status), " ", r.description || ""),
          r.headers ? el("p", { class: "headers" }, "Headers: ", Object.keys(r.headers).join(", ")) : null, content(spec, r.content));
      }));
  }
  function render(spec) {
    var root = el("main", { id: "sawt-docs" });
    var ops = [];
    Object.keys(spec.paths || {}).forEach(function (path) {
      METHODS.forEach(function (method) { if (spec.paths[path][method]) ops.push({ path: path, method: method, op: spec.paths[path][method] }); });
    });
    var tags = (spec.tags || []).map(function (t) { return t.name; });
    ops.forEach(function (o) { (o.op.tags || ["Other"]).forEach(function (t) { if (tags.indexOf(t) < 0) tags.push(t); }); });
    append(root, el("header", {}, el("h1", {}, (spec.info && spec.info.title) || "API"), el("span", { class: "version" }, "version " + ((spec.info && spec.info.version) || "")),
      el("a", { href: specUrl, class: "raw" }, "OpenAPI JSON")));
    append(root, prose(spec.info && spec.info.description));
    append(root, el("nav", {}, el("h2", {}, "Endpoints"), el("ul", {}, ops.map(function (o) {
      return el("li", {}, el("a", { href: "#" + (o.op.operationId || o.method + o.path).replace(/[^A-Za-z0-9_-]/g, "_") }, el("span", { class: "method " + o.method }, o.method.toUpperCase()), " ", o.path));
    }))));
    var schemes = (spec.components && spec.components.securitySchemes) || {};
    append(root, el("section", {}, el("h2", {}, "Authentication"), el("ul", {}, Object.keys(schemes).map(function (name) {
      var s = schemes[name];
      return el("li", {}, el("b", {}, name), ": ", s.type === "apiKey" ? "header " + s.name : "HTTP " + s.scheme, " ", prose(s.description));
    }))));
    tags.forEach(function (tag) {
      var group = ops.filter(function (o) { return (o.op.tags || ["Other"]).indexOf(tag) >= 0; });
      if (!group.length) return;
      var info = (spec.tags || []).filter(function (t) { return t.name === tag; })[0];
      append(root, [el("h2", {}, tag), info ? prose(info.description) : null, group.map(function (o) { return operation(spec, o.path, o.method, o.op); })]);
    });
    var schemas = (spec.components && spec.components.schemas) || {};
    append(root, el("h2", {}, "Schemas"));
    append(root, Object.keys(schemas).map(function (name) {
      return el("section", { class: "schema", id: "schema-" + name }, el("h3", {}, name), prose(schemas[name].description), schemaTable(spec, schemas[name]),
        schemas[name].example !== undefined ? example(schemas[name].example) : null);
    }));
    document.body.appendChild(root);
    document.title = (spec.info && spec.info.title) || document.title;
  }
  var style = document.createElement("style");
  style.textContent = [
    "body{margin:0;font:15px/1.5 system-ui,-apple-system,'Segoe UI','Noto Sans Arabic',sans-serif;color:#1d2330;background:#fafbfc}",
    "#sawt-docs{max-width:1080px;margin:0 auto;padding:24px}",
    "header{display:flex;gap:16px;align-items:baseline;border-bottom:2px solid #d5dae3;margin-bottom:16px}",
    "h2{margin-top:40px;border-bottom:1px solid #d5dae3}",
    ".op{background:#fff;border:1px solid #d5dae3;border-radius:8px;padding:12px 18px;margin:16px 0}",
    ".method{display:inline-block;min-width:56px;text-align:center;border-radius:4px;color:#fff;font-size:12px;padding:2px 6px;background:#5b6475}",
    ".method.get{background:#2f7d32}.method.post{background:#1f5fbf}.method.delete{background:#b3261e}",
    ".deprecated{margin-left:8px;font-size:12px;color:#8a4b00;border:1px solid #8a4b00;border-radius:4px;padding:1px 6px}",
    "code,pre{font-family:ui-monospace,'DejaVu Sans Mono',monospace;font-size:13px}",
    "pre.example{background:#f1f3f7;padding:10px;border-radius:6px;overflow:auto;unicode-bidi:plaintext}",
    "table.fields{border-collapse:collapse;width:100%;margin:6px 0}table.fields td,table.fields th{border:1px solid #e1e5ec;padding:4px 8px;vertical-align:top;text-align:start}",
    ".type,.rules{color:#5b6475;font-size:13px}details.response{margin:4px 0}details.response summary{cursor:pointer}",
    ".s2 b{color:#2f7d32}.s4 b{color:#8a4b00}.s5 b{color:#b3261e}nav ul{columns:2;list-style:none;padding:0}",
  ].join("\n");
  document.head.appendChild(style);
  fetch(specUrl, { headers: { accept: "application/json" } })
    .then(function (r) { if (!r.ok) throw new Error("HTTP " + r.status); return r.json(); })
    .then(render)
    .catch(function (error) { document.body.appendChild(el("p", { id: "sawt-docs-error" }, "Could not load the API description from " + specUrl + ": " + error.message)); });
})();
