// The results explorer: any drives on any test, compared in the browser from the figures
// `roundup render` writes to explore-data.js. Plain JavaScript, no library, no network: the
// page works from the file system. Every state is in the URL's fragment
// (#drives=a,b&tests=suite/test&...), so a view is a link. Charts are drawn as the static
// SVG charts are (src/render/chart/bars.rs): the same sizes, colours, fonts and rules.
"use strict";
(function () {
  const DATA = window.ROUNDUP_DATA;
  const SVG_NS = "http://www.w3.org/2000/svg";
  const C = { bar: "#0072B2", highlight: "#E69F00", ink: "#222222", muted: "#666666", grid: "#DDDDDD" };
  const FONT = "roundup-sans, DejaVu Sans, sans-serif"; // SVG_FONT_FAMILIES in src/render/chart
  const el = (id) => document.getElementById(id);

  // ---- figures as the site prints them (src/units.rs `figure`, render/format.rs) ----

  /** `v` to `d` decimals, ties to even as Rust's formatting rounds them. */
  function fixed(v, d) {
    const m = v * Math.pow(10, d);
    if (Number.isInteger(m * 2) && !Number.isInteger(m)) {
      const down = Math.floor(m);
      const n = down % 2 === 0 ? down : down + 1;
      return (n / Math.pow(10, d)).toFixed(d);
    }
    return v.toFixed(d);
  }

  function figure(v, extra = 0) {
    if (v === null || v === undefined || !isFinite(v)) return "–";
    const a = Math.abs(v);
    if (a >= 100 || a === 0) return fixed(v, extra);
    if (a >= 10) return fixed(v, 1 + extra);
    if (a >= 1) return fixed(v, 2 + extra);
    return fixed(v, Math.floor(-Math.log10(a)) + 2 + extra);
  }

  /** An axis tick, as the static charts write it: a whole number with thousands
   *  separators, another with up to three significant digits and no trailing zeros. */
  function tick(v) {
    if (Number.isInteger(v) && Math.abs(v) < 1e15) {
      const digits = String(Math.abs(v)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
      return (v < 0 ? "-" : "") + digits;
    }
    const s = figure(v);
    return s.includes(".") ? s.replace(/0+$/, "").replace(/\.$/, "") : s;
  }

  const MS_FROM_US = 999.5;
  function latency(us, extra = 0) {
    if (us === null || us === undefined || !isFinite(us)) return "–";
    return us >= MS_FROM_US ? figure(us / 1000, extra) + " ms" : figure(us, extra) + " µs";
  }

  /** A row's latencies (render/format.rs `latency_row`): where two neighbours that differ
   *  would read alike and one decimal more parts them, the whole row with it. */
  function latencyRow(values) {
    const shown = values.map((v, i) => (v === null || v === undefined || !isFinite(v) ? -1 : i)).filter((i) => i >= 0);
    const apart = (t) => shown.every((i, k) => k === 0 || values[shown[k - 1]] === values[i] || t[shown[k - 1]] !== t[i]);
    const plain = values.map((v) => latency(v));
    if (apart(plain)) return plain;
    const wider = values.map((v) => latency(v, 1));
    return apart(wider) ? wider : plain;
  }

  /** The unit a metric is shown in over `values` (render/format.rs `Scale::of`). */
  function scaleOf(metric, values) {
    const top = values.filter((v) => v !== null && isFinite(v)).reduce((a, b) => Math.max(a, b), 0);
    const ms = metric.startsWith("lat_") && top >= MS_FROM_US;
    const names = {
      iops: ["IOPS", "IOPS"],
      mb_per_s: ["MB/s", "MB/s"],
      lat_mean_us: ms ? ["ms", "mean latency, ms"] : ["µs", "mean latency, µs"],
      lat_p99_us: ms ? ["ms", "99th percentile latency, ms"] : ["µs", "99th percentile latency, µs"],
    };
    const [unit, caption] = names[metric] || (ms ? ["ms", "maximum latency, ms"] : ["µs", "maximum latency, µs"]);
    const factor = ms ? 1e-3 : 1;
    return { unit, caption, at: (v) => (v === null ? null : v * factor) };
  }

  const direction = (better) => (better === "higher" ? "higher is better" : "lower is better");

  // ---- the state, in the URL's fragment ----

  const drives = new Map(DATA.drives.map((d) => [d.key, d]));
  const tests = new Map(DATA.tests.map((t) => [t.key, t]));
  const state = { drives: [], tests: [], controller: "", interface: "", class: "", nand: "", q: "", tq: "", filter: "", sort: "", dir: "" };

  function readFragment() {
    const params = new Map();
    for (const part of location.hash.replace(/^#/, "").split("&")) {
      if (!part) continue;
      const i = part.indexOf("=");
      const k = i < 0 ? part : part.slice(0, i);
      params.set(k, i < 0 ? "" : part.slice(i + 1));
    }
    const list = (k) => (params.get(k) || "").split(",").filter(Boolean).map(decodeURIComponent);
    state.drives = list("drives").filter((k) => drives.has(k));
    state.tests = list("tests").filter((k) => tests.has(k));
    for (const k of ["controller", "interface", "class", "nand", "q", "tq", "filter", "sort", "dir"]) {
      state[k] = decodeURIComponent(params.get(k) || "");
    }
  }

  function writeFragment() {
    // Names keep their `/` and `@` readable (`tests=demo/random-write-4k`); the rest is encoded.
    const enc = (v) => encodeURIComponent(v).replace(/%2F/g, "/").replace(/%40/g, "@");
    const parts = [];
    if (state.drives.length) parts.push("drives=" + state.drives.map(enc).join(","));
    if (state.tests.length) parts.push("tests=" + state.tests.map(enc).join(","));
    for (const k of ["controller", "interface", "class", "nand", "q", "tq", "filter", "sort", "dir"]) {
      if (state[k]) parts.push(k + "=" + enc(state[k]));
    }
    const hash = parts.length ? "#" + parts.join("&") : "";
    if (location.hash !== hash) history.replaceState(null, "", hash || location.pathname);
  }

  // ---- the picker ----

  function option(select, value, text) {
    const o = document.createElement("option");
    o.value = value;
    o.textContent = text;
    select.appendChild(o);
  }

  function fillFilters() {
    for (const [id, field] of [["f-controller", "controller"], ["f-interface", "interface"], ["f-class", "class"], ["f-nand", "nand"]]) {
      const select = el(id);
      option(select, "", "any");
      const seen = [...new Set(DATA.drives.map((d) => d[field]).filter(Boolean))].sort();
      for (const v of seen) option(select, v, v);
    }
  }

  function driveLabel(d) {
    return d.name + ", firmware " + d.firmware + (d.current ? "" : " (earlier)");
  }

  /** A list item with a checkbox choosing `key` for `field` (`drives` or `tests`), labelled
   *  `text` (as text: a name from a drive file is never markup). */
  function choice(field, id, key, selected, text) {
    const li = document.createElement("li");
    const box = document.createElement("input");
    box.type = "checkbox";
    box.id = id;
    box.checked = selected;
    box.dataset.key = key;
    box.addEventListener("change", () => toggle(field, key, box.checked));
    const label = document.createElement("label");
    label.htmlFor = id;
    label.textContent = text;
    li.append(box, " ", label);
    return li;
  }

  function renderDrivePicker() {
    const list = el("drive-list");
    list.textContent = "";
    const q = state.q.toLowerCase();
    let shown = 0;
    DATA.drives.forEach((d, i) => {
      const selected = state.drives.includes(d.key);
      const match =
        (!state.controller || d.controller === state.controller) &&
        (!state.interface || d.interface === state.interface) &&
        (!state.class || d.class === state.class) &&
        (!state.nand || d.nand === state.nand) &&
        (!q || (d.name + " " + d.key + " " + d.controller).toLowerCase().includes(q));
      if (!match && !selected) return;
      shown++;
      const li = choice("drives", "drive-" + i, d.key, selected, driveLabel(d));
      const info = document.createElement("span");
      info.className = "muted";
      info.textContent = [d.controller, d.interface, d.nand].filter(Boolean).join(", ");
      li.append(" ", info);
      list.appendChild(li);
    });
    el("drive-count").textContent = shown + " of " + DATA.drives.length + " drives shown, " + state.drives.length + " chosen";
  }

  function renderTestPicker() {
    const list = el("test-list");
    list.textContent = "";
    const q = state.tq.toLowerCase();
    DATA.tests.forEach((t, i) => {
      const selected = state.tests.includes(t.key);
      const text = (t.suite_title || t.suite) + ": " + t.title;
      if (q && !selected && !(text + " " + t.key).toLowerCase().includes(q)) return;
      list.appendChild(choice("tests", "test-" + i, t.key, selected, text));
    });
  }

  function toggle(field, key, on) {
    const list = state[field].filter((k) => k !== key);
    if (on) list.push(key);
    state[field] = list;
    update();
  }

  // ---- charts, drawn as src/render/chart/bars.rs draws them ----

  let measure = null;
  /** The width of `text` at `size` as src/render/chart/mod.rs `text_width` measures it:
   *  the bundled font's advances (explore-data.js), so that a label fits or is cut exactly
   *  as in the static charts; the browser's measure for a character without one. */
  function textWidth(text, size, bold) {
    const adv = DATA.advances[bold ? "bold" : "regular"];
    let w = 0;
    for (const c of text) {
      if (adv[c] !== undefined) {
        w += adv[c] * size;
      } else {
        measure = measure || document.createElement("canvas").getContext("2d");
        measure.font = (bold ? "bold " : "") + size + "px " + FONT;
        w += measure.measureText(c).width;
      }
    }
    return Math.floor(w);
  }

  /** `text` as it fits `room` (src/render/chart/mod.rs `fit`): at `max`, else the largest
   *  size down to `min` in half pixels, else at `min` cut short with an ellipsis. */
  function fit(text, max, min, bold, room) {
    for (let at = max; at >= min; at -= 0.5) if (textWidth(text, at, bold) <= room) return [text, at];
    const chars = [...text];
    const cut = (n) => chars.slice(0, n).join("").trimEnd() + "…";
    let fits = 0, tooLong = chars.length;
    while (tooLong - fits > 1) {
      const mid = Math.floor((fits + tooLong) / 2);
      if (textWidth(cut(mid), min, bold) <= room) fits = mid;
      else tooLong = mid;
    }
    return [cut(fits), min];
  }

  function niceStep(max) {
    if (!(max > 0) || !isFinite(max)) return 1;
    const raw = max / 5;
    const mag = Math.pow(10, Math.floor(Math.log10(raw)));
    const r = raw / mag;
    return mag * (r <= 1 ? 1 : r <= 2 ? 2 : r <= 5 ? 5 : 10);
  }

  function node(name, attrs, text) {
    const n = document.createElementNS(SVG_NS, name);
    for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, String(v));
    if (text !== undefined) n.textContent = text;
    return n;
  }

  /** Text as the static charts write it (plotters' SVG backend): its top or its middle at
   *  `y`, sizes in the backend's points (px / 1.24). */
  function label(svg, text, x, y, size, opts) {
    const attrs = {
      x, y, dy: opts.middle ? "0.5ex" : "0.76em", "text-anchor": opts.anchor || "start",
      "font-family": "roundup-sans", "font-size": size / 1.24, fill: opts.color,
    };
    if (opts.bold) attrs["font-weight"] = "bold";
    svg.appendChild(node("text", attrs, text));
  }

  const line = (svg, x, y1, y2, color) =>
    svg.appendChild(node("polyline", { fill: "none", stroke: color, "stroke-width": 1, points: `${x},${y1} ${x},${y2} ` }));

  /** A bar chart: `bars` are {label, value, highlight}, top first. */
  function barChart(id, title, subtitle, caption, bars) {
    const W = 760, TOP = 70, ROW = 28, RIGHT = 80;
    const H = TOP + Math.max(bars.length, 1) * ROW + 34;
    const svg = node("svg", { xmlns: SVG_NS, width: W, height: H, viewBox: "0 0 " + W + " " + H, role: "img", class: "chart", "aria-labelledby": id + "-title " + id + "-desc" });
    svg.appendChild(node("title", { id: id + "-title" }, title));
    svg.appendChild(node("desc", { id: id + "-desc" }, bars.map((b) => b.label + ": " + figure(b.value)).join("; ")));
    svg.appendChild(node("rect", { x: 0, y: 0, width: W, height: H, fill: "#FFFFFF" }));
    const room = W - 24;
    [[title, 10, 22, 16, true, C.ink], [subtitle, 36, 16, 13, false, C.muted], [caption, 54, 16, 13, true, C.muted]].forEach(([t, y, size, min, bold, color]) => {
      const [text, s] = fit(t, size, min, bold, room);
      label(svg, text, 12, y, s, { bold, color });
    });
    // The widest label measured bold (ties: the greater text), as the static chart finds it.
    const [widest, widestLabel] = bars
      .map((b) => [textWidth(b.label, 17, true), b.label])
      .reduce((m, w) => (w[0] > m[0] || (w[0] === m[0] && w[1] > m[1]) ? w : m), [0, ""]);
    const x0 = Math.min(Math.max(widest + 24, 140), 360);
    const x1 = W - RIGHT;
    const max = bars.reduce((m, b) => (b.value !== null && isFinite(b.value) ? Math.max(m, b.value) : m), 0);
    const step = niceStep(max);
    const topValue = Math.max(Math.ceil(max / step), 1) * step;
    const labelSize = fit(widestLabel, 17, 13, true, x0 - 14)[1];
    const x = (v) => (v === null || !isFinite(v) ? x0 : x0 + Math.round((Math.max(v, 0) / topValue) * (x1 - x0)));
    const bottom = TOP + bars.length * ROW;
    for (let t = 0; t <= topValue + step * 0.01; t += step) {
      line(svg, x(t), TOP - 4, bottom, C.grid);
      label(svg, tick(t), x(t), bottom + 6, 15, { color: C.muted, anchor: "middle" });
    }
    line(svg, x0, TOP - 4, bottom, C.muted);
    bars.forEach((b, i) => {
      const y = TOP + i * ROW;
      const end = x(b.value);
      svg.appendChild(node("rect", { x: x0, y: y + 4, width: Math.max(end, x0 + 1) - x0, height: ROW - 8, fill: b.highlight ? C.highlight : C.bar }));
      label(svg, figure(b.value), end + 6, y + 4 + (ROW - 8) / 2, 16, { bold: b.highlight, color: C.ink, middle: true });
      const [text, size] = fit(b.label, labelSize, labelSize, b.highlight, x0 - 14);
      label(svg, text, x0 - 10, y + ROW / 2, size, { bold: b.highlight, color: C.ink, anchor: "end", middle: true });
    });
    return svg;
  }

  // ---- the view ----

  /** Chosen drives with a figure in `variant`, best first (ties by key), as the static
   *  charts order their bars. */
  function barsOf(variant) {
    const byKey = new Map(variant.bars.map((b) => [b.key, b]));
    const chosen = state.drives.filter((k) => byKey.has(k)).map((k) => byKey.get(k));
    const higher = variant.better === "higher";
    chosen.sort((a, b) => {
      const va = a.value === null ? NaN : a.value, vb = b.value === null ? NaN : b.value;
      if (isNaN(va) !== isNaN(vb)) return isNaN(va) ? 1 : -1;
      if (va !== vb && !isNaN(va)) return higher ? vb - va : va - vb;
      return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
    });
    return chosen;
  }

  const COLUMNS = [
    ["drive", "Drive"], ["firmware", "Firmware"], ["value", null],
    ["mean", "Mean latency"], ["p50", "Median"], ["p99", "99th percentile"], ["p999", "99.9th percentile"], ["max", "Maximum latency"],
  ];

  function rowsOf(variant, bars, scale) {
    return bars.map((b) => {
      const d = drives.get(b.key);
      return {
        key: b.key, highlight: b.key === state.drives[0],
        sortKeys: { drive: d.name, firmware: d.firmware, value: b.value, mean: b.mean, p50: b.p50, p99: b.p99, p999: b.p999, max: b.max },
        cells: [d.name, d.firmware, figure(scale.at(b.value)) + " " + scale.unit].concat(latencyRow([b.mean, b.p50, b.p99, b.p999, b.max])),
      };
    });
  }

  function sortRows(rows) {
    if (!state.sort) return rows;
    const sign = state.dir === "desc" ? -1 : 1;
    return rows.slice().sort((a, b) => {
      const x = a.sortKeys[state.sort], y = b.sortKeys[state.sort];
      if (typeof x === "string") return sign * x.localeCompare(y);
      const nx = x === null ? Infinity : x, ny = y === null ? Infinity : y;
      return nx === ny ? 0 : sign * (nx < ny ? -1 : 1);
    });
  }

  function figureTable(caption, head, rows) {
    const table = document.createElement("table");
    table.className = "figures";
    const cap = document.createElement("caption");
    cap.textContent = caption;
    table.appendChild(cap);
    const tr = document.createElement("tr");
    COLUMNS.forEach(([key], i) => {
      const th = document.createElement("th");
      th.scope = "col";
      const button = document.createElement("button");
      button.type = "button";
      button.className = "sort";
      button.textContent = head[i];
      button.dataset.sort = key;
      if (state.sort === key) th.setAttribute("aria-sort", state.dir === "desc" ? "descending" : "ascending");
      button.addEventListener("click", () => {
        state.dir = state.sort === key && state.dir !== "desc" ? "desc" : "asc";
        state.sort = key;
        update();
      });
      th.appendChild(button);
      tr.appendChild(th);
    });
    const thead = document.createElement("thead");
    thead.appendChild(tr);
    table.appendChild(thead);
    const body = document.createElement("tbody");
    const f = state.filter.toLowerCase();
    for (const r of sortRows(rows)) {
      if (f && !r.cells.join(" ").toLowerCase().includes(f)) continue;
      const row = document.createElement("tr");
      if (r.highlight) row.className = "reviewed";
      r.cells.forEach((c, i) => {
        const cell = document.createElement(i === 0 ? "th" : "td");
        if (i === 0) cell.scope = "row";
        cell.textContent = c;
        row.appendChild(cell);
      });
      body.appendChild(row);
    }
    table.appendChild(body);
    return table;
  }

  function csvField(s) {
    return /[",\n]/.test(s) ? '"' + s.replace(/"/g, '""') + '"' : s;
  }

  function download(name, type, text) {
    const a = document.createElement("a");
    a.href = URL.createObjectURL(new Blob([text], { type }));
    a.download = name;
    document.body.appendChild(a);
    a.click();
    a.remove();
  }

  function button(text, onClick) {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = text;
    b.addEventListener("click", onClick);
    return b;
  }

  /** One variant of a test for the chosen drives: chart, table and downloads. */
  function variantSection(test, variant, index) {
    const bars = barsOf(variant);
    if (!bars.length) return null;
    const scale = scaleOf(variant.metric, bars.map((b) => b.value));
    const title = variant.label ? test.title + " (" + variant.label + ")" : test.title;
    const section = document.createElement("section");
    section.className = "chart explore-chart";
    section.dataset.test = test.key;
    section.dataset.variant = variant.variant;
    const h = document.createElement("h3");
    h.textContent = (test.suite_title || test.suite) + ": " + title;
    section.appendChild(h);
    const id = "chart-" + index;
    // A test that shows each drive's best run says so, as the site's charts do.
    const caption = scale.caption + (variant.of_runs || "");
    const svg = barChart(id, title, variant.workload, caption + " · " + direction(variant.better),
      bars.map((b) => ({ label: drives.get(b.key).name, value: scale.at(b.value), highlight: b.key === state.drives[0] })));
    section.appendChild(svg);
    const head = COLUMNS.map(([k, name]) => name || caption);
    const rows = rowsOf(variant, bars, scale);
    section.appendChild(figureTable(title + ": " + caption + ", " + direction(variant.better), head, rows));
    const tools = document.createElement("p");
    tools.className = "downloads";
    const base = (test.key + "-" + variant.variant).replace(/[^A-Za-z0-9._-]+/g, "_");
    tools.append(
      button("Download CSV", () => download(base + ".csv", "text/csv", csvOf(head, rows))),
      " ",
      button("Download SVG", () => download(base + ".svg", "image/svg+xml", new XMLSerializer().serializeToString(svg)))
    );
    section.appendChild(tools);
    return section;
  }

  function csvOf(head, rows) {
    return [head, ...rows.map((r) => r.cells)].map((r) => r.map(csvField).join(",")).join("\n") + "\n";
  }

  /** Drive `a` as a share of drive `b` (render/compare.rs): above 100% `a` is better. */
  function share(variant, a, b) {
    if (!(a.value > 0 && b.value > 0)) return NaN;
    return variant.better === "higher" ? (a.value / b.value) * 100 : (b.value / a.value) * 100;
  }

  function comparison(view) {
    if (state.drives.length < 2) return;
    const [first, ...others] = state.drives;
    const a = drives.get(first);
    const section = document.createElement("section");
    section.className = "compare";
    const h = document.createElement("h2");
    h.textContent = a.name + " against the others, as % of each";
    section.appendChild(h);
    const table = document.createElement("table");
    table.className = "figures";
    const cap = document.createElement("caption");
    cap.textContent = "the " + a.name + "'s performance as % of each drive's: above 100% it is better";
    table.appendChild(cap);
    const head = document.createElement("tr");
    ["Test", ...others.map((k) => a.name + " as % of " + drives.get(k).name)].forEach((t) => {
      const th = document.createElement("th");
      th.scope = "col";
      th.textContent = t;
      head.appendChild(th);
    });
    const thead = document.createElement("thead");
    thead.appendChild(head);
    table.appendChild(thead);
    const body = document.createElement("tbody");
    const sentences = [];
    for (const key of state.tests) {
      const test = tests.get(key);
      for (const v of test.variants) {
        const byKey = new Map(v.bars.map((b) => [b.key, b]));
        const x = byKey.get(first);
        if (!x) continue;
        const title = v.label ? test.title + " (" + v.label + ")" : test.title;
        const tr = document.createElement("tr");
        const th = document.createElement("th");
        th.scope = "row";
        th.textContent = title;
        tr.appendChild(th);
        for (const k of others) {
          const y = byKey.get(k);
          const td = document.createElement("td");
          const s = y ? share(v, x, y) : NaN;
          td.textContent = isFinite(s) ? figure(s) + "%" : "–";
          tr.appendChild(td);
          if (others.length === 1 && y) sentences.push([s, sentenceOf(v, title, x, y, a, drives.get(k))]);
        }
        body.appendChild(tr);
      }
    }
    table.appendChild(body);
    section.appendChild(table);
    if (others.length === 1 && sentences.length) {
      const p = document.createElement("p");
      p.className = "draft";
      p.textContent = draft(sentences);
      section.appendChild(p);
    }
    view.appendChild(section);
  }

  /** The sentence of the compare pages for one test (render/compare.rs `compare_on`). */
  function sentenceOf(v, title, x, y, a, b) {
    const s = share(v, x, y);
    const caption = scaleOf(v.metric, [x.value, y.value]).caption;
    if (!isFinite(s)) return title + ": no comparison (a figure is zero)";
    if (v.better === "higher") return "the " + a.name + " delivers " + figure(s) + "% of the " + b.name + "'s " + title + " " + caption;
    return "the " + a.name + "'s " + title + " " + caption + " is " + figure((x.value / y.value) * 100) + "% of the " + b.name + "'s";
  }

  /** The widest lead and the widest deficit (render/compare.rs `ratio_draft`). */
  function draft(sentences) {
    const ranked = sentences.filter(([s]) => isFinite(s)).sort((p, q) => q[0] - p[0]);
    if (ranked.length > 1) return "At its best " + ranked[0][1] + "; at its worst " + ranked[ranked.length - 1][1] + ".";
    if (ranked.length === 1) return ranked[0][1].charAt(0).toUpperCase() + ranked[0][1].slice(1) + ".";
    return "";
  }

  function renderView() {
    const view = el("view");
    view.textContent = "";
    if (!state.drives.length || !state.tests.length) {
      const p = document.createElement("p");
      p.textContent = "Choose drives and tests above: their charts, figures and comparison appear here.";
      view.appendChild(p);
      return;
    }
    comparison(view);
    let index = 0;
    for (const key of state.tests) {
      const test = tests.get(key);
      for (const v of test.variants) {
        const s = variantSection(test, v, index++);
        if (s) view.appendChild(s);
      }
    }
  }

  function syncControls() {
    el("drive-search").value = state.q;
    el("test-search").value = state.tq;
    el("table-filter").value = state.filter;
    el("f-controller").value = state.controller;
    el("f-interface").value = state.interface;
    el("f-class").value = state.class;
    el("f-nand").value = state.nand;
  }

  function update() {
    writeFragment();
    renderDrivePicker();
    renderTestPicker();
    renderView();
  }

  function start() {
    if (!DATA) return;
    fillFilters();
    readFragment();
    syncControls();
    const on = (id, field, event) =>
      el(id).addEventListener(event, () => {
        state[field] = el(id).value;
        update();
      });
    on("drive-search", "q", "input");
    on("test-search", "tq", "input");
    on("table-filter", "filter", "input");
    on("f-controller", "controller", "change");
    on("f-interface", "interface", "change");
    on("f-class", "class", "change");
    on("f-nand", "nand", "change");
    el("clear").addEventListener("click", () => {
      state.drives = [];
      state.tests = [];
      update();
    });
    window.addEventListener("hashchange", () => {
      readFragment();
      syncControls();
      update();
    });
    el("explorer").hidden = false;
    update();
  }

  if (document.fonts && document.fonts.load) {
    Promise.all([document.fonts.load("17px roundup-sans"), document.fonts.load("bold 17px roundup-sans")]).then(start, start);
  } else {
    start();
  }
})();
