//! The site: tera templates filled with the analysis' figures, charts as inline SVG, and the
//! reviewer's commentary, written to `site/`. Rendering is deterministic (sorted inputs, no
//! clock) and only rewrites files whose bytes change.

pub mod chart;
mod compare;
mod pairs;
mod site;
mod timing;

pub use pairs::{pairs, Pair};
use site::Site;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::analysis::{Bar, TestFigures};
use crate::commentary::{self, Commentary};
use crate::error::{Error, Result};
use crate::lab::{sha256_hex, Lab};
use crate::store;
use crate::units::figure;
use chart::{BarChart, BarItem};

/// The templates built into roundup; a lab's `templates/` overrides any of them by name.
const TEMPLATES: &[(&str, &str)] = &[
    ("base.html", include_str!("../../templates/base.html")),
    ("macros.html", include_str!("../../templates/macros.html")),
    ("index.html", include_str!("../../templates/index.html")),
    ("suite.html", include_str!("../../templates/suite.html")),
    ("drive.html", include_str!("../../templates/drive.html")),
    (
        "firmware.html",
        include_str!("../../templates/firmware.html"),
    ),
    ("compare.html", include_str!("../../templates/compare.html")),
    (
        "leaderboard.html",
        include_str!("../../templates/leaderboard.html"),
    ),
];

/// Static files copied into `site/static/`.
const STATIC: &[(&str, &[u8])] = &[
    (
        "style.css",
        include_bytes!("../../templates/static/style.css"),
    ),
    (
        "fonts/DejaVuSans.ttf",
        include_bytes!("../../templates/static/fonts/DejaVuSans.ttf"),
    ),
    (
        "fonts/DejaVuSans-Bold.ttf",
        include_bytes!("../../templates/static/fonts/DejaVuSans-Bold.ttf"),
    ),
    (
        "fonts/LICENSE.txt",
        include_bytes!("../../templates/static/fonts/LICENSE.txt"),
    ),
];

/// What a render did.
#[derive(Debug, Default)]
pub struct Report {
    /// Files written because their content changed (relative to site/).
    pub written: Vec<PathBuf>,
    /// Files already up to date.
    pub unchanged: usize,
    /// Files a render before this one wrote that this one did not (a drive, test or
    /// comparison no longer in the results or the options): removed, so that the site is
    /// what the results and commentary give, whatever was rendered before.
    pub removed: Vec<PathBuf>,
    /// Every file of this render (relative to site/).
    produced: std::collections::BTreeSet<PathBuf>,
    /// Results that could not be read (named and skipped).
    pub problems: Vec<String>,
    /// Commentary slots whose chart no longer exists (kept in their files, reported here).
    pub orphan_slots: Vec<String>,
    /// Commentary slots written against other figures than the current ones, as (page,
    /// slot id), in page order.
    pub stale_slots: Vec<(String, String)>,
}

#[derive(Serialize)]
struct Row {
    drive: String,
    drive_name: String,
    firmware: String,
    value: String,
    repeats: u32,
    /// The latencies under [`ChartCtx::latency_heads`].
    latencies: Vec<String>,
    highlight: bool,
}

/// A latency column of a bar chart's table: heading, summary key, figure.
type LatencyColumn = (&'static str, &'static str, fn(&Bar) -> f64);

/// The latency columns of a bar chart's table.
const LATENCY_COLUMNS: [LatencyColumn; 4] = [
    ("Mean latency", "lat_mean_us", |b| b.lat_mean_us),
    ("99th percentile", "lat_p99_us", |b| b.lat_p99_us),
    ("99.9th percentile", "lat_p999_us", |b| b.lat_p999_us),
    ("Maximum", "lat_max_us", |b| b.lat_max_us),
];

#[derive(Serialize)]
struct PairRow {
    drive_name: String,
    firmware: String,
    a: String,
    b: String,
    difference: String,
    highlight: bool,
}

#[derive(Serialize)]
struct ChartCtx {
    /// Rows of a paired chart (empty for a bar chart).
    pair_rows: Vec<PairRow>,
    /// The two variants a paired chart compares.
    legend: Vec<String>,
    id: String,
    title: String,
    variant_label: String,
    workload: String,
    caption: String,
    /// The unit of a paired chart's figures (`MB/s`).
    unit: String,
    /// The header of a bar chart's figure column: its quantity and unit (`MB/s`, `mean
    /// latency, ms`).
    value_head: String,
    /// The headings of a bar chart's latency columns: all four, but for the one its
    /// figure column already shows (a chart of mean latency has no second mean).
    latency_heads: Vec<&'static str>,
    svg: String,
    rows: Vec<Row>,
    /// The figures of a line chart, as a table (empty for bar charts).
    table: Option<TableCtx>,
    commentary: Option<String>,
    stale: bool,
    fingerprint: String,
    /// The chart as a file, and at publication size as PNG (paths from the page).
    svg_href: String,
    png_href: String,
    /// Every figure a line chart draws, as CSV, and its link.
    #[serde(skip)]
    csv: Option<String>,
    csv_href: Option<String>,
    /// A sentence drafted from the figures, for `commentary init`.
    #[serde(skip)]
    draft: String,
}

/// A table of figures beside a line chart.
#[derive(Serialize, Clone)]
struct TableCtx {
    caption: String,
    head: Vec<String>,
    rows: Vec<TableRow>,
    /// Long tables (a column per repeat, over a dozen) start folded.
    folded: bool,
    /// How many leading columns hold text (a drive, a firmware), aligned left; the
    /// figures after them are aligned right.
    text_columns: usize,
}

#[derive(Serialize, Clone)]
struct TableRow {
    cells: Vec<String>,
    highlight: bool,
}

/// A drawn chart with its table, before it is placed on a page.
struct Figure {
    id: String,
    title: String,
    subtitle: String,
    caption: String,
    svg: String,
    table: TableCtx,
    /// Every figure drawn, as CSV (line charts), else None.
    csv: Option<String>,
    /// The text the fingerprint is taken of: every figure the chart shows.
    figures: String,
    draft: String,
}

impl Figure {
    /// The chart's context on `page`, with its commentary slot.
    fn into_ctx(self, notes: Option<&Commentary>, report: &mut Report, page: &str) -> ChartCtx {
        let fp = sha256_hex(self.figures.as_bytes())[..12].to_string();
        let (commentary, stale) = slot_text(notes, &self.id, &fp, report, page);
        ChartCtx {
            pair_rows: vec![],
            legend: vec![],
            svg_href: chart_href(page, &self.id, "svg"),
            png_href: chart_href(page, &self.id, "png"),
            csv_href: self.csv.as_ref().map(|_| chart_href(page, &self.id, "csv")),
            csv: self.csv,
            id: self.id,
            title: self.title,
            variant_label: String::new(),
            workload: self.subtitle,
            caption: self.caption.replace(" · ", ", "),
            unit: String::new(),
            value_head: String::new(),
            latency_heads: vec![],
            svg: self.svg,
            rows: vec![],
            table: Some(self.table),
            commentary,
            stale,
            fingerprint: fp,
            draft: self.draft,
        }
    }
}

/// Where a chart's SVG and PNG files go under `site/`: `charts/PAGE/SLOT.svg`.
fn chart_file(page: &str, slot: &str, ext: &str) -> String {
    format!("charts/{page}/{slot}.{ext}")
}

/// A page-relative link to a chart file.
fn chart_href(page: &str, slot: &str, ext: &str) -> String {
    format!(
        "{}{}",
        "../".repeat(page.matches('/').count()),
        chart_file(page, slot, ext)
    )
}

#[derive(Serialize)]
struct SuiteLink {
    name: String,
    title: String,
    description: Option<String>,
    tests: usize,
    /// Test variants with results.
    charts: usize,
}

#[derive(Serialize)]
struct DriveRow {
    id: String,
    page: bool,
    /// Results under more than one firmware: a firmware-history page.
    history: bool,
    name: String,
    controller: String,
    firmware: String,
    results: usize,
}

/// The smallest latency in µs shown in ms: one that would print as `1000 µs`.
const MS_FROM_US: f64 = 999.5;

/// A CSV field, quoted when it holds a comma, a quote or a line break.
pub fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// Latency for tables: µs below a millisecond, ms from one (`1.00 ms`, never `1000 µs`).
pub fn latency(us: f64) -> String {
    if !us.is_finite() {
        "–".into()
    } else if us >= MS_FROM_US {
        format!("{} ms", figure(us / 1000.0))
    } else {
        format!("{} µs", figure(us))
    }
}

/// How a metric is shown: its unit, the caption's quantity and the factor from the stored
/// figure. Latency is stored in µs; a chart or table whose largest latency reaches a
/// millisecond shows all of its latencies in ms, so a JMF602's stalls read 380 ms, not
/// 380,505 µs.
#[derive(Debug, Clone, Copy)]
struct Scale {
    unit: &'static str,
    caption: &'static str,
    factor: f64,
}

impl Scale {
    /// The scale for `metric` over the figures `values` shown together.
    fn of(metric: &str, values: impl IntoIterator<Item = f64>) -> Scale {
        let top = values
            .into_iter()
            .filter(|v| v.is_finite())
            .fold(0.0f64, f64::max);
        let ms = metric.starts_with("lat_") && top >= MS_FROM_US;
        let (unit, caption) = match (metric, ms) {
            ("iops", _) => ("IOPS", "IOPS"),
            ("mb_per_s", _) => ("MB/s", "MB/s"),
            ("lat_mean_us", false) => ("µs", "mean latency, µs"),
            ("lat_mean_us", true) => ("ms", "mean latency, ms"),
            ("lat_p99_us", false) => ("µs", "99th percentile latency, µs"),
            ("lat_p99_us", true) => ("ms", "99th percentile latency, ms"),
            (_, false) => ("µs", "maximum latency, µs"),
            (_, true) => ("ms", "maximum latency, ms"),
        };
        Scale {
            unit,
            caption,
            factor: if ms { 1e-3 } else { 1.0 },
        }
    }

    /// A stored figure in this scale's unit.
    fn at(&self, v: f64) -> f64 {
        v * self.factor
    }

    /// A stored figure in this scale's unit, printed.
    fn show(&self, v: f64) -> String {
        figure(self.at(v))
    }
}

/// `higher is better` or `lower is better`, as a chart states it.
fn direction(better: &str) -> &'static str {
    if better == "higher" {
        "higher is better"
    } else {
        "lower is better"
    }
}

/// A test's title with its variant: `4KB Random Write (compressible, 4 KiB aligned)`.
fn test_title(f: &TestFigures) -> String {
    if f.variant_label.is_empty() {
        f.title.clone()
    } else {
        format!("{} ({})", f.title, f.variant_label)
    }
}

/// Each bar's drive, firmware and figure, a line each: what a chart's fingerprint is of.
fn figures_text(f: &TestFigures) -> String {
    f.bars
        .iter()
        .map(|b| format!("{}|{}|{}\n", b.drive, b.firmware, figure(b.value)))
        .collect()
}

/// The fingerprint of a chart's figures: what a commentary slot was written against.
pub fn fingerprint(f: &TestFigures) -> String {
    sha256_hex(figures_text(f).as_bytes())[..12].to_string()
}

/// A chart, its table and its commentary slot. `slot` is the chart's id on its page;
/// `highlight` names the reviewed drive, drawn in the highlight colour and in bold.
fn chart_ctx(
    f: &TestFigures,
    slot_id: &str,
    highlight: Option<&str>,
    notes: Option<&Commentary>,
    report: &mut Report,
    page: &str,
) -> Result<ChartCtx> {
    let scale = Scale::of(&f.metric, f.bars.iter().map(|b| b.value));
    let better = direction(&f.better);
    let title = test_title(f);
    let latency_columns = || {
        LATENCY_COLUMNS
            .into_iter()
            .filter(|(_, key, _)| *key != f.metric)
            .map(|(head, _, of)| (head, of))
    };
    let chart = BarChart {
        id: slot_id.to_string(),
        title: title.clone(),
        subtitle: f.workload.clone(),
        caption: format!("{} · {better}", scale.caption),
        bars: f
            .bars
            .iter()
            .map(|b| BarItem {
                label: b.drive_name.clone(),
                value: scale.at(b.value),
                highlight: highlight == Some(b.drive.as_str()),
            })
            .collect(),
    };
    let svg = chart.to_svg().map_err(Error::Render)?;
    let fp = fingerprint(f);
    let (commentary, stale) = slot_text(notes, slot_id, &fp, report, page);
    Ok(ChartCtx {
        pair_rows: vec![],
        legend: vec![],
        id: slot_id.to_string(),
        title,
        variant_label: f.variant_label.clone(),
        workload: f.workload.clone(),
        caption: format!("{}, {better}", scale.caption),
        unit: scale.unit.to_string(),
        value_head: scale.caption.to_string(),
        latency_heads: latency_columns().map(|(head, _)| head).collect(),
        svg,
        rows: f
            .bars
            .iter()
            .map(|b| Row {
                drive: b.drive.clone(),
                drive_name: b.drive_name.clone(),
                firmware: b.firmware.clone(),
                value: scale.show(b.value),
                repeats: b.repeats,
                latencies: latency_columns().map(|(_, of)| latency(of(b))).collect(),
                highlight: highlight == Some(b.drive.as_str()),
            })
            .collect(),
        table: None,
        commentary,
        stale,
        fingerprint: fp,
        svg_href: chart_href(page, slot_id, "svg"),
        png_href: chart_href(page, slot_id, "png"),
        csv: None,
        csv_href: None,
        draft: draft(f, highlight),
    })
}

fn templates(lab: &Lab) -> Result<tera::Tera> {
    let mut t = tera::Tera::default();
    let mut sources: Vec<(String, String)> = Vec::new();
    for (name, builtin) in TEMPLATES {
        let custom = lab.root.join("templates").join(name);
        let text = if custom.is_file() {
            let bytes = fs::read(&custom).map_err(|e| Error::io(&custom, e))?;
            let rel = custom.strip_prefix(&lab.root).unwrap_or(&custom);
            crate::config::utf8_text(rel, &bytes)?.to_string()
        } else {
            builtin.to_string()
        };
        sources.push((name.to_string(), text));
    }
    t.add_raw_templates(sources)
        .map_err(|e| Error::Render(format!("templates: {}", tera_chain(&e))))?;
    t.autoescape_on(vec![".html"]);
    t.register_filter("sentence", sentence);
    Ok(t)
}

/// `text` as the start of a sentence: a first lower-case ASCII letter in capitals and the
/// rest as it is (tera's `capitalize` would write `MB/s` as `Mb/s`; a unit such as `µs`
/// stays).
fn sentence_case(text: &str) -> String {
    let mut text = text.to_string();
    if let Some(first) = text.get_mut(..1) {
        first.make_ascii_uppercase();
    }
    text
}

/// Tera filter `sentence`: [`sentence_case`], for a phrase that starts a sentence.
fn sentence(
    value: &tera::Value,
    _: &std::collections::HashMap<String, tera::Value>,
) -> tera::Result<tera::Value> {
    let text = tera::try_get_value!("sentence", "value", String, value);
    Ok(tera::Value::String(sentence_case(&text)))
}

fn tera_chain(e: &tera::Error) -> String {
    let mut s = e.to_string();
    let mut cur: Option<&dyn std::error::Error> = std::error::Error::source(e);
    while let Some(c) = cur {
        s.push_str(": ");
        s.push_str(&c.to_string());
        cur = c.source();
    }
    s
}

/// A chart's commentary, as HTML, and whether it was written against other figures than
/// `fingerprint` (then listed in the report).
fn slot_text(
    notes: Option<&Commentary>,
    slot_id: &str,
    fingerprint: &str,
    report: &mut Report,
    page: &str,
) -> (Option<String>, bool) {
    let slot = notes.and_then(|c| c.slot(slot_id));
    let stale = slot.is_some_and(|s| s.is_stale(fingerprint));
    if stale {
        report
            .stale_slots
            .push((page.to_string(), slot_id.to_string()));
    }
    (
        slot.map(|s| commentary::to_html(&s.text))
            .filter(|h| !h.is_empty()),
        stale,
    )
}

/// Each suite's test ids in the order the suite lists them.
fn suite_order(lab: &Lab) -> BTreeMap<String, Vec<String>> {
    lab.suites
        .iter()
        .map(|(n, s)| {
            (
                n.clone(),
                s.spec.tests.iter().map(|t| t.id.0.clone()).collect(),
            )
        })
        .collect()
}

/// The charts of a suite page, with their slot ids.
fn suite_slots<'a>(
    figures: &'a [TestFigures],
    suite: &'a str,
) -> impl Iterator<Item = (String, &'a TestFigures)> + 'a {
    figures
        .iter()
        .filter(move |f| f.suite == suite)
        .map(|f| (f.slot_id(), f))
}

/// The charts of a drive's review page from one suite, with their slot ids.
fn drive_slots<'a>(
    figures: &'a [TestFigures],
    suite: &'a str,
    drive: &'a str,
) -> impl Iterator<Item = (String, &'a TestFigures)> + 'a {
    figures
        .iter()
        .filter(move |f| f.suite == suite && f.bars.iter().any(|b| b.drive == drive))
        .map(move |f| (format!("{suite}.{}", f.slot_id()), f))
}

/// One drive's figure before and after a change (two variants, two firmwares, the first
/// repeat and the last), for [`changes_draft`].
pub(super) struct Change<'a> {
    /// Drive id.
    pub drive: &'a str,
    /// Drive as the site names it.
    pub name: &'a str,
    /// The figure before.
    pub from: f64,
    /// The figure after.
    pub to: f64,
}

/// Up to this many drives, a change's draft names every one.
const NAMED_CHANGES: usize = 4;
/// A change of less than this many percent is told as a count, not drive by drive.
const STEADY_PCT: f64 = 5.0;

/// A first sentence about a change, `lead` saying from what to what (`compressible to
/// incompressible`): each drive's change in chart order when there are few; with more,
/// the drives that moved by 5% or more, the largest change first, and how many stayed
/// within 5%; on a review page (`drive`) the reviewed drive's own change first. Drives
/// without a figure to compare (none before) are left out.
pub(super) fn changes_draft(lead: &str, changes: &[Change], drive: Option<&str>) -> String {
    let moves: Vec<(&Change, f64)> = changes
        .iter()
        .filter_map(|c| Some((c, chart::percent(c.from, c.to)?)))
        .collect();
    let told = |(c, pct): &(&Change, f64)| format!("the {} {pct:+.0}%", c.name);
    if moves.len() <= NAMED_CHANGES {
        let all: Vec<String> = moves.iter().map(told).collect();
        return format!("From {lead}: {}.", all.join(", "));
    }
    let mut moved: Vec<&(&Change, f64)> = moves
        .iter()
        .filter(|(_, pct)| pct.abs() >= STEADY_PCT)
        .collect();
    // The largest first; equal ones in chart order (the sort is stable).
    moved.sort_by(|a, b| b.1.abs().total_cmp(&a.1.abs()));
    let steady = moves.len() - moved.len();
    let summary = if moved.is_empty() {
        let (lo, hi) = moves.iter().fold((f64::MAX, f64::MIN), |(lo, hi), (_, p)| {
            (lo.min(*p), hi.max(*p))
        });
        format!(
            "all {} drives within {STEADY_PCT}% ({lo:+.0}% to {hi:+.0}%)",
            moves.len()
        )
    } else {
        let named: Vec<String> = moved.iter().take(NAMED_CHANGES).map(|m| told(m)).collect();
        let mut s = named.join(", ");
        if moved.len() > NAMED_CHANGES {
            s.push_str(&format!(
                ", and {} more by {STEADY_PCT}% or more",
                moved.len() - NAMED_CHANGES
            ));
        }
        if steady > 0 {
            s.push_str(&format!("; the other {steady} within {STEADY_PCT}%"));
        }
        s
    };
    match drive.and_then(|d| moves.iter().find(|(c, _)| c.drive == d)) {
        Some(own) => format!(
            "From {lead}: {}. Of the {} drives, {summary}.",
            told(own),
            moves.len()
        ),
        None => format!("From {lead}: {summary}."),
    }
}

/// A first sentence about a chart: who leads and by how much, and, on a review page, where
/// the reviewed drive stands. A ratio is always the larger figure over the smaller, so a
/// lower-is-better chart (latency) says how many times as long the others take.
pub fn draft(f: &TestFigures, drive: Option<&str>) -> String {
    let scale = Scale::of(&f.metric, f.bars.iter().map(|b| b.value));
    let unit = scale.unit;
    let Some(first) = f.bars.first() else {
        return String::new();
    };
    let last = f.bars.last().unwrap_or(first);
    let higher = f.better == "higher";
    let mut s = format!(
        "The {} leads at {} {unit}",
        first.drive_name,
        scale.show(first.value)
    );
    if f.bars.len() > 1 && last.value > 0.0 && first.value > 0.0 {
        if higher {
            s.push_str(&format!(
                ", {}× the {} ({} {unit})",
                figure(first.value / last.value),
                last.drive_name,
                scale.show(last.value)
            ));
        } else {
            s.push_str(&format!(
                "; the {} takes {} {unit}, {}× as long",
                last.drive_name,
                scale.show(last.value),
                figure(last.value / first.value)
            ));
        }
    }
    s.push('.');
    if let Some(d) = drive {
        if let Some((rank, b)) = f.bars.iter().enumerate().find(|(_, b)| b.drive == d) {
            if rank > 0 && first.value > 0.0 {
                let against = if higher {
                    format!("{}% of the leader", figure(b.value / first.value * 100.0))
                } else {
                    format!("{}× the leader's", figure(b.value / first.value))
                };
                s.push_str(&format!(
                    " The {} ranks {} of {} at {} {unit}, {against}.",
                    b.drive_name,
                    rank + 1,
                    f.bars.len(),
                    scale.show(b.value),
                ));
            }
        }
    }
    s
}

/// What every page's template gets: the way back to the site root, the page id and the
/// page's introduction from its commentary.
fn page_context(page: &str, notes: Option<&Commentary>) -> tera::Context {
    let mut ctx = tera::Context::new();
    ctx.insert("root", &"../".repeat(page.matches('/').count()));
    ctx.insert("page", page);
    ctx.insert(
        "intro",
        &notes
            .map(|c| commentary::to_html(&c.intro))
            .unwrap_or_default(),
    );
    ctx
}

/// Renders `template` for `page` and writes it to `site/PAGE.html` if it changed.
fn write_page(
    tera: &tera::Tera,
    template: &str,
    ctx: &tera::Context,
    site: &Path,
    page: &str,
    report: &mut Report,
) -> Result<()> {
    let html = tera
        .render(template, ctx)
        .map_err(|e| Error::Render(format!("{page}: {}", tera_chain(&e))))?;
    put(site, &format!("{page}.html"), html.as_bytes(), report)
}

/// Writes `bytes` to `site/rel` unless it already holds exactly them.
fn put(site: &Path, rel: &str, bytes: &[u8], report: &mut Report) -> Result<()> {
    report.produced.insert(PathBuf::from(rel));
    let path = site.join(rel);
    if fs::read(&path).is_ok_and(|old| old == bytes) {
        report.unchanged += 1;
        return Ok(());
    }
    store::write_atomic(&path, bytes)?;
    report.written.push(PathBuf::from(rel));
    Ok(())
}

/// A commentary slot as `commentary init` writes it.
#[derive(Debug, Clone, PartialEq)]
pub struct SlotPlan {
    /// The slot (chart) id.
    pub id: String,
    /// The fingerprint of the chart's current figures.
    pub fingerprint: String,
    /// A sentence drafted from the figures, for the reviewer to keep or rewrite.
    pub draft: String,
}

/// What a render shows beyond the lab's files.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Drive pairs to compare (ids), besides those `review.yaml` names.
    pub compare: Vec<(String, String)>,
}

/// Every page's commentary slots, by page id (`suites/NAME`, `drives/ID`, ...), from the
/// current results: what `roundup commentary init` writes.
pub fn slot_plans(lab: &Lab, opts: &Options) -> Result<BTreeMap<String, Vec<SlotPlan>>> {
    let site = Site::build(lab, opts)?;
    Ok(site
        .pages
        .into_iter()
        .filter(|p| !p.charts.is_empty())
        .map(|p| {
            let slots = p
                .charts
                .into_iter()
                .map(|c| SlotPlan {
                    id: c.id,
                    fingerprint: c.fingerprint,
                    draft: c.draft,
                })
                .collect();
            (p.id, slots)
        })
        .collect())
}

/// Renders the lab's results and commentary into `site/`: every page, each chart's SVG,
/// PNG (and CSV for line charts) under `site/charts/`, and the static files.
pub fn render(lab: &Lab, opts: &Options) -> Result<Report> {
    let tera = templates(lab)?;
    let Site {
        pages, mut report, ..
    } = Site::build(lab, opts)?;
    let site = lab.site_dir();
    for p in &pages {
        write_page(&tera, p.template, &p.ctx, &site, &p.id, &mut report)?;
    }
    // Chart files: a PNG is rasterized only when its SVG changed (or is missing), in
    // parallel; both are written atomically.
    let mut rasterize = Vec::new();
    for p in &pages {
        for c in &p.charts {
            let svg_rel = chart_file(&p.id, &c.id, "svg");
            let png_rel = chart_file(&p.id, &c.id, "png");
            let same = fs::read(site.join(&svg_rel)).is_ok_and(|old| old == c.svg.as_bytes());
            put(&site, &svg_rel, c.svg.as_bytes(), &mut report)?;
            if let Some(csv) = &c.csv {
                put(
                    &site,
                    &chart_file(&p.id, &c.id, "csv"),
                    csv.as_bytes(),
                    &mut report,
                )?;
            }
            if same && site.join(&png_rel).is_file() {
                report.unchanged += 1;
                report.produced.insert(PathBuf::from(&png_rel));
            } else {
                rasterize.push((png_rel, c.svg.as_str()));
            }
        }
    }
    use rayon::prelude::*;
    let pngs: Vec<(String, std::result::Result<Vec<u8>, String>)> = rasterize
        .par_iter()
        .map(|(rel, svg)| (rel.clone(), chart::to_png(svg)))
        .collect();
    for (rel, png) in pngs {
        let png = png.map_err(|e| Error::Render(format!("{rel}: {e}")))?;
        put(&site, &rel, &png, &mut report)?;
    }
    for (rel, bytes) in STATIC {
        let custom = lab.root.join("templates/static").join(rel);
        let data = if custom.is_file() {
            fs::read(&custom).map_err(|e| Error::io(&custom, e))?
        } else {
            bytes.to_vec()
        };
        put(&site, &format!("static/{rel}"), &data, &mut report)?;
    }
    report.written.sort();
    report.removed = remove_stale(&site, &report.produced)?;
    Ok(report)
}

/// Removes the pages and chart files (`.html`, `.svg`, `.png`, `.csv`) under `site` that
/// are not in `produced` (relative paths), and the temporary files of renders killed before
/// they could clean up (`store::is_stale_temp`), then the folders left empty; returns the
/// files removed, sorted. Other files (a `CNAME` for the host, say) are left alone, and
/// links are not followed.
fn remove_stale(
    site: &Path,
    produced: &std::collections::BTreeSet<PathBuf>,
) -> Result<Vec<PathBuf>> {
    fn walk(dir: &Path, files: &mut Vec<PathBuf>, dirs: &mut Vec<PathBuf>) -> Result<()> {
        let entries = fs::read_dir(dir).map_err(|e| Error::io(dir, e))?;
        for entry in entries {
            let entry = entry.map_err(|e| Error::io(dir, e))?;
            let path = entry.path();
            if entry.file_type().map_err(|e| Error::io(&path, e))?.is_dir() {
                walk(&path, files, dirs)?;
                dirs.push(path);
            } else {
                files.push(path);
            }
        }
        Ok(())
    }
    let rendered = |p: &Path| {
        p.extension()
            .is_some_and(|x| ["html", "svg", "png", "csv"].iter().any(|e| x == *e))
            || p.file_name()
                .is_some_and(|n| crate::store::is_stale_temp(&n.to_string_lossy()))
    };
    let (mut files, mut dirs) = (Vec::new(), Vec::new());
    if site.is_dir() {
        walk(site, &mut files, &mut dirs)?;
    }
    files.sort();
    let mut removed = Vec::new();
    for path in files {
        let rel = path.strip_prefix(site).unwrap_or(&path).to_path_buf();
        if rendered(&rel) && !produced.contains(&rel) {
            fs::remove_file(&path).map_err(|e| Error::io(&path, e))?;
            removed.push(rel);
        }
    }
    // Deepest first, so that a folder whose sub-folders were emptied goes too.
    dirs.sort_by_key(|d| std::cmp::Reverse(d.components().count()));
    for d in dirs {
        if fs::read_dir(&d).is_ok_and(|mut e| e.next().is_none()) {
            fs::remove_dir(&d).map_err(|e| Error::io(&d, e))?;
        }
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::{changes_draft, chart_ctx, draft, latency, sentence, Change, Report, Scale};
    use crate::analysis::{Bar, TestFigures};

    /// A drive's bar with only its headline figure.
    fn bar(drive: &str, value: f64) -> Bar {
        Bar {
            drive: drive.into(),
            drive_name: drive.into(),
            value,
            ..Bar::default()
        }
    }

    #[test]
    fn a_bar_tables_figure_column_names_its_quantity() {
        let bar = |drive: &str, us: f64| Bar {
            lat_mean_us: us,
            ..bar(drive, us)
        };
        let f = TestFigures {
            test: "latency-write-4k".into(),
            title: "4K Random Write latency".into(),
            metric: "lat_mean_us".into(),
            better: "lower".into(),
            bars: vec![bar("fast", 426.0), bar("jmf602", 380_505.0)],
            ..TestFigures::default()
        };
        let ctx = chart_ctx(&f, "slot", None, None, &mut Report::default(), "suites/s").unwrap();
        // Not `ms` alone: which latency the column holds, in the chart's unit.
        assert_eq!(ctx.value_head, "mean latency, ms");
        assert_eq!(ctx.rows[0].value, "0.43");
        // The mean is the figure column; it is not repeated among the latencies.
        assert_eq!(
            ctx.latency_heads,
            ["99th percentile", "99.9th percentile", "Maximum"]
        );
        assert_eq!(ctx.rows[0].latencies.len(), 3);
        let f = TestFigures {
            metric: "mb_per_s".into(),
            better: "higher".into(),
            ..f
        };
        let ctx = chart_ctx(&f, "slot", None, None, &mut Report::default(), "suites/s").unwrap();
        assert_eq!(ctx.value_head, "MB/s");
        assert_eq!(ctx.latency_heads.len(), 4);
        assert_eq!(ctx.rows[1].latencies[0], "381 ms");
    }

    #[test]
    fn a_drafted_sentence_reads_the_right_way_round_for_either_direction() {
        let latency = TestFigures {
            metric: "lat_mean_us".into(),
            better: "lower".into(),
            bars: vec![bar("ram", 26.0), bar("x25m", 430.0), bar("core", 381_000.0)],
            ..TestFigures::default()
        };
        // The slowest takes many times as long; never "the leader is 14,654 times the slowest".
        assert_eq!(
            draft(&latency, Some("x25m")),
            "The ram leads at 0.026 ms; the core takes 381 ms, 14654× as long. \
             The x25m ranks 2 of 3 at 0.43 ms, 16.5× the leader's."
        );
        let throughput = TestFigures {
            metric: "mb_per_s".into(),
            better: "higher".into(),
            bars: vec![bar("vertex3", 241.0), bar("x25m", 28.8), bar("core", 0.03)],
            ..TestFigures::default()
        };
        assert_eq!(
            draft(&throughput, Some("x25m")),
            "The vertex3 leads at 241 MB/s, 8033× the core (0.030 MB/s). \
             The x25m ranks 2 of 3 at 28.8 MB/s, 12.0% of the leader."
        );
    }

    #[test]
    fn a_change_draft_names_few_drives_and_sums_up_many() {
        let names = ["a", "b", "c", "d", "e", "f", "g", "h"];
        let changes = |to: &[f64]| -> Vec<Change<'static>> {
            names
                .iter()
                .zip(to)
                .map(|(n, &to)| Change {
                    drive: n,
                    name: n,
                    from: 100.0,
                    to,
                })
                .collect()
        };
        let few = changes(&[150.0, 99.0, 0.0]);
        assert_eq!(
            changes_draft("x to y", &few, None),
            "From x to y: the a +50%, the b -1%, the c -100%."
        );
        // Past four drives: the moves of 5% or more, largest first, and a count of the rest.
        let many = changes(&[101.0, 40.0, 97.0, 120.0, 100.0, 95.0, 180.0, 103.0]);
        assert_eq!(
            changes_draft("x to y", &many, None),
            "From x to y: the g +80%, the b -60%, the d +20%, the f -5%; the other 4 within 5%."
        );
        assert_eq!(
            changes_draft("x to y", &many, Some("h")),
            "From x to y: the h +3%. Of the 8 drives, the g +80%, the b -60%, the d +20%, \
             the f -5%; the other 4 within 5%."
        );
        let more = changes(&[110.0, 120.0, 130.0, 140.0, 150.0, 160.0, 101.0, 100.0]);
        assert_eq!(
            changes_draft("x to y", &more, None),
            "From x to y: the f +60%, the e +50%, the d +40%, the c +30%, and 2 more by 5% or \
             more; the other 2 within 5%."
        );
        let steady = changes(&[101.0, 98.0, 100.0, 104.0, 100.0]);
        assert_eq!(
            changes_draft("x to y", &steady, None),
            "From x to y: all 5 drives within 5% (-2% to +4%)."
        );
        // A drive with nothing before has no change to tell.
        let mut none = changes(&[101.0, 98.0]);
        none[0].from = 0.0;
        assert_eq!(
            changes_draft("x to y", &none, Some("a")),
            "From x to y: the b -2%."
        );
    }

    #[test]
    fn a_phrase_starts_a_sentence_with_its_units_kept() {
        let s = |t: &str| {
            sentence(&tera::Value::String(t.into()), &Default::default())
                .unwrap()
                .as_str()
                .unwrap()
                .to_string()
        };
        assert_eq!(
            s("mean latency, ms, lower is better"),
            "Mean latency, ms, lower is better"
        );
        assert_eq!(s("MB/s, higher is better"), "MB/s, higher is better");
        assert_eq!(s("µs"), "µs");
        assert_eq!(s(""), "");
    }

    #[test]
    fn a_latency_that_rounds_to_a_millisecond_reads_in_ms() {
        assert_eq!(latency(426.0), "426 µs");
        assert_eq!(latency(999.4), "999 µs");
        assert_eq!(latency(999.7), "1.00 ms");
        assert_eq!(latency(2090.0), "2.09 ms");
        assert_eq!(latency(f64::NAN), "–");
        let s = Scale::of("lat_p99_us", [426.0, 999.7]);
        assert_eq!((s.unit, s.show(999.7)), ("ms", "1.00".into()));
    }

    #[test]
    fn latency_is_shown_in_ms_once_a_figure_reaches_a_millisecond() {
        let s = Scale::of("lat_mean_us", [426.0, 380_505.0]);
        assert_eq!((s.unit, s.caption), ("ms", "mean latency, ms"));
        assert_eq!(
            (s.show(426.0), s.show(380_505.0)),
            ("0.43".into(), "381".into())
        );
        let s = Scale::of("lat_max_us", [426.0, 999.0, f64::NAN]);
        assert_eq!((s.unit, s.show(426.0)), ("µs", "426".into()));
        // Throughput keeps its unit however large it is.
        let s = Scale::of("mb_per_s", [2500.0]);
        assert_eq!((s.unit, s.show(2500.0)), ("MB/s", "2500".into()));
    }
}
