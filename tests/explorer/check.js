// The results explorer in a real browser (Debian's Chromium, driven by playwright-core),
// run by tests/explorer.rs: node check.js SITE EXPECTED.json SHOTS_DIR
// EXPECTED holds the figures `summary --json` gives, printed as the site prints them.
// Exits non-zero with the first failure.
"use strict";
const fs = require("fs");
const path = require("path");
const { chromium } = require("playwright-core");
const axePath = require.resolve("axe-core");

const [site, expectedFile, shots] = process.argv.slice(2);
const expected = JSON.parse(fs.readFileSync(expectedFile, "utf8"));
const url = (rel, hash = "") => "file://" + path.join(site, rel) + hash;

function fail(message) {
  throw new Error(message);
}
function assert(cond, message) {
  if (!cond) fail(message);
}

/** Every HTML page of the site, relative. */
function pages(dir, rel = "") {
  let out = [];
  for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    const r = path.join(rel, e.name);
    if (e.isDirectory()) out = out.concat(pages(dir, r));
    else if (e.name.endsWith(".html")) out.push(r);
  }
  return out.sort();
}

/** A page that records console errors, failed loads, requests leaving file:// and dialogs. */
async function watched(browser) {
  const page = await browser.newPage({ viewport: { width: 1100, height: 1400 }, acceptDownloads: true });
  page.problems = [];
  page.axe = false;
  page.on("console", (m) => {
    // axe-core reads stylesheets with XHR, which file:// refuses: its own noise, not the page's.
    if (m.type() === "error" && !page.axe) page.problems.push("console: " + m.text());
  });
  page.on("pageerror", (e) => page.problems.push("script error: " + e.message));
  page.on("request", (r) => {
    if (!r.url().startsWith("file://") && !r.url().startsWith("blob:")) page.problems.push("request left file://: " + r.url());
  });
  page.on("requestfailed", (r) => {
    if (!page.axe) page.problems.push("failed load: " + r.url());
  });
  page.on("dialog", (d) => {
    page.problems.push("a dialog opened (markup ran): " + d.message());
    d.dismiss();
  });
  return page;
}

async function axe(page, what) {
  page.axe = true;
  await page.addScriptTag({ path: axePath });
  const r = await page.evaluate(() =>
    window.axe.run(document, { runOnly: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"] })
  );
  page.axe = false;
  const v = r.violations.map((x) => `${x.id} (${x.impact}): ${x.nodes.map((n) => n.target.join(" ")).slice(0, 3).join(", ")}`);
  assert(v.length === 0, `${what}: accessibility violations: ${v.join("; ")}`);
}

const fragment = (page) => page.evaluate(() => decodeURIComponent(location.hash));

/** The charts shown: for each, its test and variant, and its bars' labels and values. */
const charts = (page) =>
  page.$$eval("#view section.explore-chart", (sections) =>
    sections.map((s) => ({
      test: s.dataset.test,
      variant: s.dataset.variant,
      labels: [...s.querySelectorAll("svg text[text-anchor=end]")].map((t) => t.textContent),
      values: [...s.querySelectorAll("svg text[dy='0.5ex'][text-anchor=start]")].map((t) => t.textContent),
      rows: [...s.querySelectorAll("table tbody tr")].map((r) => [...r.children].map((c) => c.textContent)),
    }))
  );

/** The explorer's figure helpers, from the site's copy of explore.js (its section "figures
 *  as the site prints them"), run here as the page runs them. */
function explorerFigures() {
  const src = fs.readFileSync(path.join(site, "static/explore.js"), "utf8");
  const from = src.indexOf("// ---- figures as the site prints them");
  const to = src.indexOf("// ---- the state");
  assert(from >= 0 && to > from, "explore.js: its figures section between its two markers");
  return new Function(src.slice(from, to) + "\nreturn { latency, latencyRow };")();
}

(async () => {
  // 0. The explorer's table rows print latencies as the site's tables do (one decimal more
  //    across a row whose figures differ and read alike at three significant digits).
  const figs = explorerFigures();
  for (const row of expected.latency_rows) {
    const ours = figs.latencyRow(row.values);
    assert(JSON.stringify(ours) === JSON.stringify(row.text), `latencies ${JSON.stringify(row.values)}: explorer ${JSON.stringify(ours)}, site ${JSON.stringify(row.text)}`);
  }
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || "/usr/bin/chromium", args: ["--no-sandbox"] });
  const results = {};
  try {
    // 1. A link naming two drives and a test: exactly those drives, with summary's figures.
    const page = await watched(browser);
    const [a, b, c] = expected.drives;
    await page.goto(url("explore.html", `#drives=${a.key},${b.key}&tests=${expected.test}`));
    await page.waitForSelector("#view svg.chart");
    let shown = await charts(page);
    assert(shown.length === expected.charts.length, `expected ${expected.charts.length} charts, found ${shown.length}`);
    for (const chart of shown) {
      const want = expected.charts.find((c) => c.variant === chart.variant);
      assert(want, "a chart of an unexpected variant: " + chart.variant);
      assert(chart.labels.length === 2, "two bars: " + JSON.stringify(chart.labels));
      for (const [i, name] of chart.labels.entries()) {
        const fig = want.figures[name];
        assert(fig !== undefined, `bar of ${name} in ${chart.variant}: not a chosen drive`);
        assert(chart.values[i] === fig, `${chart.variant} ${name}: chart shows ${chart.values[i]}, summary --json gives ${fig}`);
        const row = chart.rows.find((r) => r[0] === name);
        assert(row && row[2].startsWith(fig + " "), `${chart.variant} ${name}: table shows ${row && row[2]}, expected ${fig}`);
        // Drive, firmware, the figure, the mean latency, then the median.
        assert(row[4] === want.medians[name], `${chart.variant} ${name}: median shows ${row[4]}, summary --json gives ${want.medians[name]}`);
      }
    }
    assert((await page.$("p.draft")) !== null, "two drives: the drafted comparison sentence");
    results.link = shown.map((s) => s.labels.map((l, i) => l + " " + s.values[i]).join(", "));
    await page.screenshot({ path: path.join(shots, "explorer-two-drives.png"), fullPage: true });
    await axe(page, "explorer with two drives and a test");

    // 2. Click through: a third drive, one removed, a sorted table, a controller filter.
    await page.check(`input[data-key="${c.key}"]`);
    assert((await fragment(page)).includes(`drives=${a.key},${b.key},${c.key}`), "third drive in the fragment: " + (await fragment(page)));
    shown = await charts(page);
    assert(shown.every((s) => s.labels.length === 3), "three bars after adding a drive");
    await page.uncheck(`input[data-key="${a.key}"]`);
    const f2 = await fragment(page);
    assert(f2.includes(`drives=${b.key},${c.key}`) && !f2.includes(a.key + ","), "drive removed from the fragment: " + f2);
    shown = await charts(page);
    assert(shown.every((s) => s.labels.length === 2 && !s.labels.includes(a.name)), "the removed drive's bars are gone");
    await page.click("#view section.explore-chart th button[data-sort=drive]");
    await page.click("#view section.explore-chart th button[data-sort=drive]");
    const f3 = await fragment(page);
    assert(f3.includes("sort=drive") && f3.includes("dir=desc"), "sort in the fragment: " + f3);
    const names = (await charts(page))[0].rows.map((r) => r[0]);
    assert(JSON.stringify(names) === JSON.stringify([...names].sort().reverse()), "rows sorted by drive, descending: " + names);
    const sortedAttr = await page.$eval("#view section.explore-chart th[aria-sort]", (th) => th.getAttribute("aria-sort"));
    assert(sortedAttr === "descending", "aria-sort says how the table is sorted");
    const nands = await page.$$eval("#f-nand option", (o) => o.map((x) => x.value));
    assert(nands.includes(expected.nand), "the NAND filter offers what a drive file says: " + nands);
    await page.selectOption("#f-controller", expected.controller);
    const f4 = await fragment(page);
    assert(f4.includes("controller=" + expected.controller), "controller filter in the fragment: " + f4);
    const listed = await page.$$eval("#drive-list input", (xs) => xs.map((x) => [x.dataset.key, x.checked]));
    for (const [key, checked] of listed) {
      const d = expected.drives.find((x) => x.key === key.split("@")[0]);
      assert(checked || d.controller === expected.controller, `drive ${key} listed under controller ${expected.controller}`);
    }
    await page.fill("#table-filter", b.name.slice(0, 5));
    const filtered = (await charts(page))[0].rows;
    assert(filtered.length >= 1 && filtered.every((r) => r.join(" ").includes(b.name.slice(0, 5))), "the table filter");
    await page.fill("#table-filter", "");
    const before = await page.$eval("#view", (v) => v.innerText);
    const hash = await page.evaluate(() => location.hash);
    await page.screenshot({ path: path.join(shots, "explorer-sorted-filtered.png"), fullPage: true });
    await axe(page, "explorer with a sorted table and a filter");
    // Reload with the fragment: the same view.
    const again = await watched(browser);
    await again.goto(url("explore.html", hash));
    await again.waitForSelector("#view svg.chart");
    assert((await again.$eval("#view", (v) => v.innerText)) === before, "a reload with the fragment shows the same view");
    assert((await again.$eval("#f-controller", (s) => s.value)) === expected.controller, "the filter comes back");
    results.fragment = hash;

    // 3. A drive name holding markup is text, never markup.
    const marked = expected.drives.find((d) => d.name.includes("<script>"));
    await again.goto(url("explore.html", `#drives=${marked.key},${a.key}&tests=${expected.test}`));
    await again.waitForSelector("#view svg.chart");
    const scripts = await again.$$eval("script", (s) => s.length);
    assert(scripts === 2, `only the page's two scripts, found ${scripts}`);
    const text = await again.$eval("#drive-list", (l) => l.innerText);
    assert(text.includes(marked.name), "the name shows as written: " + marked.name);
    // The chart's label may be cut to fit; its description names every bar in full.
    const desc = await again.$eval("#view svg.chart desc", (d) => d.textContent);
    assert(desc.includes(marked.name + ": "), "the chart names the drive as text: " + desc);

    // 4. The keyboard alone: Tab to the first drive, Space chooses it.
    const keys = await watched(browser);
    await keys.goto(url("explore.html"));
    await keys.waitForSelector("#drive-list input");
    let focused = "";
    for (let i = 0; i < 40 && focused !== "drive-0"; i++) {
      await keys.keyboard.press("Tab");
      focused = await keys.evaluate(() => document.activeElement && document.activeElement.id);
    }
    assert(focused === "drive-0", "Tab reaches the first drive, reached " + focused);
    await keys.keyboard.press("Space");
    assert((await fragment(keys)).includes("drives=" + expected.first_key), "Space chose the drive: " + (await fragment(keys)));
    for (let i = 0; i < 80 && focused !== "test-0"; i++) {
      await keys.keyboard.press("Tab");
      focused = await keys.evaluate(() => document.activeElement && document.activeElement.id);
    }
    assert(focused === "test-0", "Tab reaches the first test, reached " + focused);
    await keys.keyboard.press("Space");
    await keys.waitForSelector("#view svg.chart");
    await axe(keys, "explorer chosen with the keyboard");
    await keys.goto(url("explore.html"));
    await keys.waitForSelector("#drive-list input");
    await keys.screenshot({ path: path.join(shots, "explorer-empty.png"), fullPage: false });
    await axe(keys, "explorer with nothing chosen");

    // 5. The explorer draws a chart as the static one is drawn: every drive of the suite
    // page's chart chosen, the same bars, grid, ticks and texts at the same places and sizes
    // (only the chosen drive's colour and weight differ), labels cut to fit where the static
    // chart cuts them.
    const same = await watched(browser);
    await same.goto(url("explore.html", `#drives=${expected.current.join(",")}&tests=${expected.test}`));
    await same.waitForSelector("#view svg.chart");
    const staticSvg = fs.readFileSync(path.join(site, expected.static_chart), "utf8");
    const diff = await same.evaluate(([text, variant]) => {
      const shape = (svg) => ({
        rects: [...svg.querySelectorAll("rect")].map((r) => ["x", "y", "width", "height"].map((a) => r.getAttribute(a)).join(",")),
        lines: [...svg.querySelectorAll("polyline")].map((l) => l.getAttribute("points").trim()),
        texts: [...svg.querySelectorAll("text")].map((t) =>
          [t.getAttribute("x"), t.getAttribute("y"), t.getAttribute("dy"), t.getAttribute("text-anchor"), Number(t.getAttribute("font-size")).toFixed(3), t.textContent.trim()].join(",")),
        size: [svg.getAttribute("width"), svg.getAttribute("height")].join("x"),
      });
      const ours = shape(document.querySelector(`section.explore-chart[data-variant="${variant}"] svg`));
      const theirs = shape(new DOMParser().parseFromString(text, "image/svg+xml").documentElement);
      const out = [];
      for (const k of Object.keys(ours)) {
        if (JSON.stringify(ours[k]) !== JSON.stringify(theirs[k])) out.push(`${k}: explorer ${JSON.stringify(ours[k])} / static ${JSON.stringify(theirs[k])}`);
      }
      return out;
    }, [staticSvg, expected.static_variant]);
    assert(diff.length === 0, "the explorer's chart differs from the static one: " + diff.join("\n"));

    // 6. A chart's "PNG, 1200 px" button: the browser draws the chart into a PNG 1200 px
    // wide (the fonts come in static/fonts.js, loaded on the click) and saves it.
    const drawn = await watched(browser);
    await drawn.goto(url("suites/tiny.html"));
    const button = drawn.locator("button.png-export").first();
    const file = await button.getAttribute("data-file");
    const size = await button.evaluate((b) => {
      const svg = b.closest("figure").querySelector("svg");
      return [Number(svg.getAttribute("width")), Number(svg.getAttribute("height"))];
    });
    const [download] = await Promise.all([drawn.waitForEvent("download"), button.click()]);
    assert(download.suggestedFilename() === file, `saved as ${download.suggestedFilename()}, not ${file}`);
    const saved = path.join(shots, file);
    await download.saveAs(saved);
    const png = fs.readFileSync(saved);
    assert(png.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])), "not a PNG");
    const [w, h] = [png.readUInt32BE(16), png.readUInt32BE(20)];
    assert(w === 1200 && h === Math.round((size[1] * 1200) / size[0]), `PNG of ${w}×${h} px for a chart of ${size}`);
    assert(png.length > 10000, `a PNG of ${png.length} bytes: blank?`);
    results.png = `${file}: ${w}×${h} px, ${png.length} bytes`;

    // 7. Every page of the site passes axe-core, with no console error and no request out.
    const all = pages(site);
    const each = await watched(browser);
    for (const rel of all) {
      await each.goto(url(rel));
      await axe(each, rel);
    }
    results.pages = all.length;
    for (const p of [page, again, keys, same, drawn, each]) {
      assert(p.problems.length === 0, p.problems.join("\n"));
    }
    console.log(JSON.stringify(results));
  } finally {
    await browser.close();
  }
})().catch((e) => {
  console.error(e.message);
  process.exit(1);
});
