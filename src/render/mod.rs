//! The site: tera templates filled with the analysis' figures, charts as inline SVG, and the
//! reviewer's commentary, written to `site/`. Rendering is deterministic (sorted inputs, no
//! clock) and only rewrites files whose bytes change.

pub mod chart;
mod compare;
mod timing;

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::analysis::{self, TestFigures};
use crate::commentary::{self, Commentary};
use crate::error::{Error, Result};
use crate::lab::{sha256_hex, Lab};
use crate::store;
use crate::target::TargetKind;
use crate::units::figure;
use chart::{percent_change, BarChart, BarItem, PairChart, PairItem};

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
    /// Commentary slots written against other figures than the current ones.
    pub stale_slots: Vec<String>,
}

#[derive(Serialize)]
struct Row {
    drive: String,
    drive_name: String,
    firmware: String,
    value: String,
    repeats: u32,
    lat_mean: String,
    lat_p99: String,
    lat_p999: String,
    highlight: bool,
    lat_max: String,
}

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
    unit: String,
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
                lat_mean: latency(b.lat_mean_us),
                lat_p99: latency(b.lat_p99_us),
                lat_p999: latency(b.lat_p999_us),
                highlight: highlight == Some(b.drive.as_str()),
                lat_max: latency(b.lat_max_us),
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
            fs::read_to_string(&custom).map_err(|e| Error::io(&custom, e))?
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

/// Tera filter `sentence`: the text with a first lower-case ASCII letter in capitals and
/// the rest as it is (tera's `capitalize` would write `MB/s` as `Mb/s`; a unit such as
/// `µs` stays), for a phrase that starts a sentence.
fn sentence(
    value: &tera::Value,
    _: &std::collections::HashMap<String, tera::Value>,
) -> tera::Result<tera::Value> {
    let mut text = tera::try_get_value!("sentence", "value", String, value);
    if let Some(first) = text.get_mut(..1) {
        first.make_ascii_uppercase();
    }
    Ok(tera::Value::String(text))
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

/// Two variants of a test that differ in one dimension, the others equal.
pub struct Pair<'a> {
    /// The chart and slot id: `test.dimension.others`.
    pub id: String,
    /// The dimension compared (`data`, `align`, `qd`, `bs`, or `firmware`).
    pub dimension: String,
    /// What the first and the second are (`compressible`, `incompressible`; two firmwares).
    pub labels: (String, String),
    /// The other dimensions' values, for the title (`4 KiB aligned`).
    pub context: String,
    /// The first variant.
    pub a: &'a TestFigures,
    /// The second variant.
    pub b: &'a TestFigures,
}

impl Pair<'_> {
    /// Each drive in both variants: its bar in the first and in the second.
    fn matched(&self) -> Vec<(&crate::analysis::Bar, &crate::analysis::Bar)> {
        self.a
            .bars
            .iter()
            .filter_map(|x| {
                self.b
                    .bars
                    .iter()
                    .find(|y| y.drive == x.drive)
                    .map(|y| (x, y))
            })
            .collect()
    }
}

/// Variant settings parsed from a variant id (`data-compressible_align-512b`).
fn settings(variant: &str) -> Vec<(String, String)> {
    if variant == "base" {
        return vec![];
    }
    variant
        .split('_')
        .filter_map(|p| p.split_once('-'))
        .map(|(d, v)| (d.to_string(), v.to_string()))
        .collect()
}

/// Every pair of variants of a suite's tests that differ in exactly one dimension.
pub fn pairs<'a>(figures: &'a [TestFigures], suite: &str) -> Vec<Pair<'a>> {
    let mut out = Vec::new();
    let tests: Vec<&TestFigures> = figures.iter().filter(|f| f.suite == suite).collect();
    for (i, a) in tests.iter().enumerate() {
        for b in &tests[i + 1..] {
            if a.test != b.test {
                continue;
            }
            let (sa, sb) = (settings(&a.variant), settings(&b.variant));
            if sa.len() != sb.len() || sa.is_empty() {
                continue;
            }
            let differing: Vec<usize> = (0..sa.len()).filter(|&k| sa[k] != sb[k]).collect();
            if differing.len() != 1 || sa[differing[0]].0 != sb[differing[0]].0 {
                continue;
            }
            let k = differing[0];
            let others: Vec<String> = sa
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != k)
                .map(|(_, (d, v))| format!("{d}-{v}"))
                .collect();
            let labels: Vec<&str> = a.variant_label.split(", ").collect();
            let context: Vec<&str> = labels
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != k)
                .map(|(_, l)| *l)
                .collect();
            out.push(Pair {
                id: format!(
                    "{}.{}.{}",
                    a.test,
                    sa[k].0,
                    if others.is_empty() {
                        "all".to_string()
                    } else {
                        others.join("_")
                    }
                ),
                dimension: sa[k].0.clone(),
                labels: (variant_value(a, &sa[k].0), variant_value(b, &sa[k].0)),
                context: context.join(", "),
                a,
                b,
            });
        }
    }
    out
}

fn variant_value(f: &TestFigures, dimension: &str) -> String {
    let labels: Vec<&str> = f.variant_label.split(", ").collect();
    settings(&f.variant)
        .iter()
        .position(|(d, _)| d == dimension)
        .and_then(|k| labels.get(k))
        .map(|l| l.to_string())
        .unwrap_or_default()
}

/// The fingerprint of a pair's figures.
fn pair_fingerprint(p: &Pair) -> String {
    sha256_hex(format!("{}{}", fingerprint(p.a), fingerprint(p.b)).as_bytes())[..12].to_string()
}

fn pair_ctx(
    p: &Pair,
    highlight: Option<&str>,
    notes: Option<&Commentary>,
    report: &mut Report,
    page: &str,
) -> Result<ChartCtx> {
    let better = direction(&p.a.better);
    let (la, lb) = p.labels.clone();
    let mut title = format!("{}: {la} vs {lb}", p.a.title);
    if !p.context.is_empty() {
        title.push_str(&format!(" ({})", p.context));
    }
    let mut rows = p.matched();
    rows.sort_by(|x, y| {
        let o =
            x.0.value
                .partial_cmp(&y.0.value)
                .unwrap_or(std::cmp::Ordering::Equal);
        (if p.a.better == "higher" {
            o.reverse()
        } else {
            o
        })
        .then_with(|| x.0.drive.cmp(&y.0.drive))
    });
    let scale = Scale::of(
        &p.a.metric,
        rows.iter().flat_map(|(x, y)| [x.value, y.value]),
    );
    // The workload without the value that differs (the data pattern is named in the legend).
    let workload = if p.dimension == "data" {
        p.a.workload.replace(&format!(", {la} data"), "")
    } else {
        p.a.workload.clone()
    };
    let chart = PairChart {
        id: p.id.clone(),
        title: title.clone(),
        subtitle: workload.clone(),
        caption: format!(
            "{} · {better} · difference of the second from the first",
            scale.caption
        ),
        legend: (la.clone(), lb.clone()),
        pairs: rows
            .iter()
            .map(|(x, y)| PairItem {
                label: x.drive_name.clone(),
                a: scale.at(x.value),
                b: scale.at(y.value),
                highlight: highlight == Some(x.drive.as_str()),
            })
            .collect(),
    };
    let svg = chart.to_svg().map_err(Error::Render)?;
    let fp = pair_fingerprint(p);
    let (commentary, stale) = slot_text(notes, &p.id, &fp, report, page);
    Ok(ChartCtx {
        pair_rows: rows
            .iter()
            .map(|(x, y)| PairRow {
                drive_name: x.drive_name.clone(),
                // A firmware pair names both.
                firmware: if y.firmware == x.firmware {
                    x.firmware.clone()
                } else {
                    format!("{} → {}", x.firmware, y.firmware)
                },
                a: scale.show(x.value),
                b: scale.show(y.value),
                difference: percent_change(x.value, y.value),
                highlight: highlight == Some(x.drive.as_str()),
            })
            .collect(),
        legend: vec![la, lb],
        id: p.id.clone(),
        title,
        variant_label: String::new(),
        workload,
        caption: format!("{}, {better}", scale.caption),
        unit: scale.unit.to_string(),
        svg,
        rows: vec![],
        table: None,
        commentary,
        stale,
        fingerprint: fp,
        svg_href: chart_href(page, &p.id, "svg"),
        png_href: chart_href(page, &p.id, "png"),
        csv: None,
        csv_href: None,
        draft: pair_draft(p),
    })
}

/// A first sentence about a pair: each drive's change from the first variant to the second.
fn pair_draft(p: &Pair) -> String {
    let (la, lb) = &p.labels;
    let changes: Vec<String> = p
        .matched()
        .into_iter()
        .filter(|(x, _)| x.value > 0.0)
        .map(|(x, y)| format!("the {} {}", x.drive_name, percent_change(x.value, y.value)))
        .collect();
    format!("From {la} to {lb}: {}.", changes.join(", "))
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
    let stale = slot.is_some_and(|s| s.fingerprint.as_ref().is_some_and(|f| f != fingerprint));
    if stale {
        report.stale_slots.push(format!(
            "{page}: slot {slot_id} was written against other figures"
        ));
    }
    (
        slot.map(|s| commentary::to_html(&s.text))
            .filter(|h| !h.is_empty()),
        stale,
    )
}

/// The lab's results: every readable job's figures, the charts' figures in suite order,
/// and the results that could not be read.
fn lab_figures(
    lab: &Lab,
) -> (
    Vec<(store::StoredJob, analysis::JobSummary)>,
    Vec<TestFigures>,
    Vec<String>,
) {
    let (jobs, mut problems) = store::scan(&lab.results_dir());
    let (summaries, mut more) = analysis::summarize(&jobs);
    problems.append(&mut more);
    let figures = analysis::figures(&summaries, &suite_order(lab));
    (summaries, figures, problems)
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

/// A first sentence about a chart: who leads and by how much, and, on a review page, where
/// the reviewed drive stands.
pub fn draft(f: &TestFigures, drive: Option<&str>) -> String {
    let scale = Scale::of(&f.metric, f.bars.iter().map(|b| b.value));
    let unit = scale.unit;
    let Some(first) = f.bars.first() else {
        return String::new();
    };
    let last = f.bars.last().unwrap_or(first);
    let mut s = format!(
        "The {} leads at {} {unit}",
        first.drive_name,
        scale.show(first.value)
    );
    if f.bars.len() > 1 && last.value > 0.0 && first.value > 0.0 {
        let ratio = if f.better == "higher" {
            first.value / last.value
        } else {
            last.value / first.value
        };
        s.push_str(&format!(
            ", {}× the {} ({} {unit})",
            figure(ratio),
            last.drive_name,
            scale.show(last.value)
        ));
    }
    s.push('.');
    if let Some(d) = drive {
        if let Some((rank, b)) = f.bars.iter().enumerate().find(|(_, b)| b.drive == d) {
            if rank > 0 && first.value > 0.0 {
                s.push_str(&format!(
                    " The {} ranks {} of {} at {} {unit}, {}% of the leader.",
                    b.drive_name,
                    rank + 1,
                    f.bars.len(),
                    scale.show(b.value),
                    figure(b.value / first.value * 100.0)
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

/// A page before it is written: its template, its context and its charts.
struct PageOut {
    id: String,
    template: &'static str,
    ctx: tera::Context,
    charts: Vec<ChartCtx>,
}

/// Every page of the site, built from the lab's results and commentary.
struct Site<'a> {
    lab: &'a Lab,
    summaries: Vec<(store::StoredJob, analysis::JobSummary)>,
    figures: Vec<TestFigures>,
    report: Report,
    pages: Vec<PageOut>,
}

impl<'a> Site<'a> {
    fn build(lab: &'a Lab, opts: &Options) -> Result<Site<'a>> {
        let (summaries, figures, problems) = lab_figures(lab);
        let mut site = Site {
            lab,
            summaries,
            figures,
            report: Report {
                problems,
                ..Report::default()
            },
            pages: vec![],
        };
        let suites = site.suites();
        let drives = site.drives();
        site.suite_pages(&suites)?;
        site.review_pages(&suites, &drives)?;
        site.history_pages(&drives)?;
        let compared = site.compare_pages(&drives, opts)?;
        let boards = site.leaderboards(&suites)?;
        let mut ctx = site.context("index");
        let links: Vec<&SuiteLink> = suites.values().collect();
        ctx.insert("suites", &links);
        ctx.insert("drives", &drives.values().collect::<Vec<_>>());
        ctx.insert("compared", &compared);
        ctx.insert("leaderboards", &boards);
        ctx.insert("runs", &site.latest_runs(&drives));
        ctx.insert("problems", &site.report.problems);
        site.pages.push(PageOut {
            id: "index".into(),
            template: "index.html",
            ctx,
            charts: vec![],
        });
        site.report_orphans();
        Ok(site)
    }

    fn notes(&self, page: &str) -> Option<&'a Commentary> {
        self.lab.commentary.get(page).map(|c| &c.spec)
    }

    fn context(&self, page: &str) -> tera::Context {
        page_context(page, self.notes(page))
    }

    /// Suites: those of the lab, and any others found in the results.
    fn suites(&self) -> BTreeMap<String, SuiteLink> {
        let mut suites: BTreeMap<String, SuiteLink> = self
            .lab
            .suites
            .iter()
            .map(|(n, s)| {
                (
                    n.clone(),
                    SuiteLink {
                        name: n.clone(),
                        title: s.spec.title.clone(),
                        description: s.spec.description.clone(),
                        tests: s.spec.tests.len(),
                        charts: 0,
                    },
                )
            })
            .collect();
        for f in &self.figures {
            let link = suites.entry(f.suite.clone()).or_insert_with(|| SuiteLink {
                name: f.suite.clone(),
                title: f.suite_title.clone(),
                description: None,
                tests: 0,
                charts: 0,
            });
            link.charts += 1;
        }
        suites
    }

    /// The lab's drives and any others with results, with their current firmware.
    fn drives(&self) -> BTreeMap<String, DriveRow> {
        let current = analysis::current_firmware(&self.summaries);
        let mut drives: BTreeMap<String, DriveRow> = self
            .lab
            .drives
            .iter()
            .map(|(id, d)| {
                let s = &d.spec;
                (
                    id.clone(),
                    DriveRow {
                        id: id.clone(),
                        page: false,
                        history: false,
                        name: s.display_name(),
                        controller: s.controller.clone().unwrap_or_default(),
                        firmware: current
                            .get(id)
                            .cloned()
                            .or_else(|| s.firmware.clone())
                            .unwrap_or_else(|| "–".into()),
                        results: 0,
                    },
                )
            })
            .collect();
        for (j, _) in &self.summaries {
            let m = &j.manifest;
            let row = drives.entry(m.drive.clone()).or_insert_with(|| DriveRow {
                id: m.drive.clone(),
                page: false,
                history: false,
                name: m.drive_name.clone(),
                controller: String::new(),
                firmware: current.get(&m.drive).cloned().unwrap_or_default(),
                results: 0,
            });
            if current.get(&m.drive) == Some(&m.firmware) {
                row.results += 1;
                row.page = true;
            }
        }
        for row in drives.values_mut() {
            row.history = analysis::firmwares(&self.summaries, &row.id).len() > 1;
        }
        drives
    }

    /// A page per suite: each test's paired variants, its bar chart with the latency
    /// table, its latency CDF and, where it was repeated, its figures over repeats.
    fn suite_pages(&mut self, suites: &BTreeMap<String, SuiteLink>) -> Result<()> {
        for (name, link) in suites {
            let page = format!("suites/{name}");
            let notes = self.notes(&page);
            let report = &mut self.report;
            let mut charts = Vec::new();
            let suite_pairs = pairs(&self.figures, name);
            let mut shown_pairs = BTreeSet::new();
            for (slot, f) in suite_slots(&self.figures, name) {
                for p in suite_pairs.iter().filter(|p| p.a.test == f.test) {
                    if shown_pairs.insert(p.id.clone()) {
                        charts.push(pair_ctx(p, None, notes, report, &page)?);
                    }
                }
                charts.push(chart_ctx(f, &slot, None, notes, report, &page)?);
                charts.push(
                    timing::cdf(f, &format!("{slot}.cdf"), None).into_ctx(notes, report, &page)?,
                );
                if f.bars.iter().any(|b| b.repeats > 1) {
                    charts.push(
                        timing::over_repeats(f, &format!("{slot}.repeats"), None)
                            .into_ctx(notes, report, &page)?,
                    );
                }
            }
            let mut ctx = self.context(&page);
            ctx.insert(
                "suite",
                &serde_json::json!({"name": name, "title": link.title, "description": link.description}),
            );
            ctx.insert("charts", &charts);
            self.pages.push(PageOut {
                id: page,
                template: "suite.html",
                ctx,
                charts,
            });
        }
        Ok(())
    }

    /// A review page per drive with current results, in the order a review reads: each
    /// suite's charts (variants paired) with the drive highlighted, then latency (CDF and
    /// latency over time), then throughput over time and over repeats.
    fn review_pages(
        &mut self,
        suites: &BTreeMap<String, SuiteLink>,
        drives: &BTreeMap<String, DriveRow>,
    ) -> Result<()> {
        for row in drives.values().filter(|r| r.page) {
            let page = format!("drives/{}", row.id);
            let notes = self.notes(&page);
            let report = &mut self.report;
            let drive = Some(row.id.as_str());
            let mut sections: Vec<serde_json::Value> = Vec::new();
            let mut all = Vec::new();
            for (suite, link) in suites {
                let mut results = Vec::new();
                let mut latencies = Vec::new();
                let mut over_time = Vec::new();
                let suite_pairs = pairs(&self.figures, suite);
                let mut shown_pairs = BTreeSet::new();
                for (slot, f) in drive_slots(&self.figures, suite, &row.id) {
                    for p in suite_pairs.iter().filter(|p| {
                        p.a.test == f.test && p.matched().iter().any(|(b, _)| b.drive == row.id)
                    }) {
                        if shown_pairs.insert(p.id.clone()) {
                            let p = Pair {
                                id: format!("{suite}.{}", p.id),
                                dimension: p.dimension.clone(),
                                labels: p.labels.clone(),
                                context: p.context.clone(),
                                a: p.a,
                                b: p.b,
                            };
                            results.push(pair_ctx(&p, drive, notes, report, &page)?);
                        }
                    }
                    results.push(chart_ctx(f, &slot, drive, notes, report, &page)?);
                    let Some(bar) = f.bars.iter().find(|b| b.drive == row.id) else {
                        continue;
                    };
                    latencies.push(
                        timing::cdf(f, &format!("{slot}.cdf"), drive)
                            .into_ctx(notes, report, &page)?,
                    );
                    latencies.push(
                        timing::latency_over_time(f, bar, &format!("{slot}.latency"))
                            .into_ctx(notes, report, &page)?,
                    );
                    over_time.push(
                        timing::throughput_over_time(f, bar, &format!("{slot}.throughput"))
                            .into_ctx(notes, report, &page)?,
                    );
                    if bar.repeats > 1 {
                        over_time.push(
                            timing::over_repeats(f, &format!("{slot}.repeats"), drive)
                                .into_ctx(notes, report, &page)?,
                        );
                    }
                }
                for (what, charts) in [
                    ("", results),
                    ("latency", latencies),
                    ("over time and over repeats", over_time),
                ] {
                    if charts.is_empty() {
                        continue;
                    }
                    let title = if what.is_empty() {
                        link.title.clone()
                    } else {
                        format!("{}: {what}", link.title)
                    };
                    sections
                        .push(serde_json::json!({"name": suite, "title": title, "charts": charts}));
                    all.extend(charts);
                }
            }
            let mut ctx = self.context(&page);
            ctx.insert("drive", row);
            ctx.insert("sections", &sections);
            self.pages.push(PageOut {
                id: page,
                template: "drive.html",
                ctx,
                charts: all,
            });
        }
        Ok(())
    }

    /// Firmware history: each test of a drive under its previous and its current firmware.
    fn history_pages(&mut self, drives: &BTreeMap<String, DriveRow>) -> Result<()> {
        let order = suite_order(self.lab);
        for row in drives.values().filter(|r| r.history) {
            let fws = analysis::firmwares(&self.summaries, &row.id);
            let (old, new) = (&fws[fws.len() - 2], &fws[fws.len() - 1]);
            let under = |fw: &str| {
                analysis::figures_where(&self.summaries, &order, |m| {
                    m.drive == row.id && m.firmware == fw
                })
            };
            let (before, after) = (under(old), under(new));
            let page = format!("drives/{}-firmware", row.id);
            let notes = self.notes(&page);
            let mut charts = Vec::new();
            for b in &before {
                let Some(a) = after
                    .iter()
                    .find(|a| a.suite == b.suite && a.test == b.test && a.variant == b.variant)
                else {
                    continue;
                };
                let pair = Pair {
                    id: format!("{}.{}", b.suite, b.slot_id()),
                    dimension: "firmware".into(),
                    labels: (format!("firmware {old}"), format!("firmware {new}")),
                    context: b.variant_label.clone(),
                    a: b,
                    b: a,
                };
                charts.push(pair_ctx(&pair, None, notes, &mut self.report, &page)?);
            }
            let mut ctx = self.context(&page);
            ctx.insert("drive", row);
            ctx.insert("firmwares", &fws);
            ctx.insert("charts", &charts);
            self.pages.push(PageOut {
                id: page,
                template: "firmware.html",
                ctx,
                charts,
            });
        }
        Ok(())
    }

    /// A page for each pair of drives `review.yaml` or `--compare` names: per suite, every
    /// test both ran, side by side, with the first drive's figure as a share of the second's.
    fn compare_pages(
        &mut self,
        drives: &BTreeMap<String, DriveRow>,
        opts: &Options,
    ) -> Result<Vec<serde_json::Value>> {
        let mut wanted: Vec<(String, String)> = self
            .lab
            .review
            .as_ref()
            .map(|r| {
                r.spec
                    .compare
                    .iter()
                    .map(|[a, b]| (a.clone(), b.clone()))
                    .collect()
            })
            .unwrap_or_default();
        wanted.extend(opts.compare.iter().cloned());
        let mut seen = BTreeSet::new();
        wanted.retain(|p| seen.insert(p.clone()));
        let mut links = Vec::new();
        for (a, b) in wanted {
            let (Some(ra), Some(rb)) = (
                drives.get(&a).filter(|r| r.page),
                drives.get(&b).filter(|r| r.page),
            ) else {
                self.report.problems.push(format!(
                    "comparison {a} vs {b}: {} has no results; no page written",
                    if drives.get(&a).is_some_and(|r| r.page) {
                        &b
                    } else {
                        &a
                    }
                ));
                continue;
            };
            let page = format!("compare/{a}-vs-{b}");
            let notes = self.notes(&page);
            let mut charts = Vec::new();
            let mut sections = Vec::new();
            let suites: BTreeSet<&str> = self.figures.iter().map(|f| f.suite.as_str()).collect();
            for suite in suites {
                let Some(c) = compare::ratio(&self.figures, suite, ra, rb) else {
                    continue;
                };
                let ctx = c.into_ctx(notes, &mut self.report, &page)?;
                sections.push(serde_json::json!({"suite": suite, "chart": ctx}));
                charts.push(ctx);
            }
            let mut ctx = self.context(&page);
            ctx.insert("a", ra);
            ctx.insert("b", rb);
            ctx.insert("sections", &sections);
            links.push(serde_json::json!({"page": page, "a": ra.name, "b": rb.name}));
            self.pages.push(PageOut {
                id: page,
                template: "compare.html",
                ctx,
                charts,
            });
        }
        Ok(links)
    }

    /// A leaderboard per test: every drive under every firmware with results, ranked.
    fn leaderboards(
        &mut self,
        suites: &BTreeMap<String, SuiteLink>,
    ) -> Result<Vec<serde_json::Value>> {
        let all = analysis::leaderboard(&self.summaries, &suite_order(self.lab));
        let current = analysis::current_firmware(&self.summaries);
        let mut links = Vec::new();
        let mut tests: Vec<(String, String)> = Vec::new();
        for f in &all {
            let key = (f.suite.clone(), f.test.clone());
            if !tests.contains(&key) {
                tests.push(key);
            }
        }
        for (suite, test) in tests {
            let page = format!("leaderboards/{suite}/{test}");
            let notes = self.notes(&page);
            let mut charts = Vec::new();
            let mut title = String::new();
            for f in all.iter().filter(|f| f.suite == suite && f.test == test) {
                title = f.title.clone();
                charts.push(compare::board(f, &current).into_ctx(
                    notes,
                    &mut self.report,
                    &page,
                )?);
            }
            let suite_title = suites
                .get(&suite)
                .map(|s| s.title.clone())
                .unwrap_or_default();
            let mut ctx = self.context(&page);
            ctx.insert(
                "suite",
                &serde_json::json!({"name": suite, "title": suite_title}),
            );
            ctx.insert("title", &title);
            ctx.insert("charts", &charts);
            links.push(serde_json::json!({"page": page, "suite": suite_title, "title": title}));
            self.pages.push(PageOut {
                id: page,
                template: "leaderboard.html",
                ctx,
                charts,
            });
        }
        Ok(links)
    }

    /// The latest runs: each drive, firmware and suite with results, the day its last job
    /// finished (as the manifests record it) and its number of jobs, newest first. A
    /// simulated drive's results do not depend on when it ran, so its runs carry no day
    /// (the site stays byte-identical on any day) and come after the dated ones, by name.
    fn latest_runs(&self, drives: &BTreeMap<String, DriveRow>) -> Vec<serde_json::Value> {
        let mut runs: BTreeMap<(&str, &str, &str), (Option<&str>, usize)> = BTreeMap::new();
        for (j, _) in &self.summaries {
            let m = &j.manifest;
            let day = (m.target.kind != TargetKind::Simulated)
                .then(|| m.finished_at.get(..10).unwrap_or(&m.finished_at));
            let e = runs
                .entry((&m.drive, &m.firmware, &m.suite))
                .or_insert((day, 0));
            e.0 = e.0.max(day);
            e.1 += 1;
        }
        let mut runs: Vec<_> = runs.into_iter().collect();
        // Newest day first, undated last; within a day by drive, firmware and suite, so
        // that the order does not depend on which of two parallel jobs finished first.
        runs.sort_by(|a, b| b.1 .0.cmp(&a.1 .0).then(a.0.cmp(&b.0)));
        runs.into_iter()
            .take(12)
            .map(|((drive, firmware, suite), (day, jobs))| {
                let row = drives.get(drive);
                serde_json::json!({
                    "drive": drive,
                    "name": row.map_or(drive, |r| r.name.as_str()),
                    "page": row.is_some_and(|r| r.page && r.firmware == firmware),
                    "firmware": firmware,
                    "suite": suite,
                    "day": day,
                    "jobs": jobs,
                })
            })
            .collect()
    }

    /// Commentary slots with no chart on their page: kept in their files, reported here.
    fn report_orphans(&mut self) {
        let pages: BTreeMap<&str, BTreeSet<&str>> = self
            .pages
            .iter()
            .map(|p| {
                (
                    p.id.as_str(),
                    p.charts.iter().map(|c| c.id.as_str()).collect(),
                )
            })
            .collect();
        for (page, c) in &self.lab.commentary {
            let ids = pages.get(page.as_str());
            for s in &c.spec.slots {
                if !ids.is_some_and(|ids| ids.contains(s.id.as_str())) {
                    self.report.orphan_slots.push(format!(
                        "{}:{}: slot {} has no chart on page {page} (kept in the file, not shown)",
                        c.file.display(),
                        s.line,
                        s.id
                    ));
                }
            }
        }
    }
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
/// are not in `produced` (relative paths), then the folders left empty; returns the files
/// removed, sorted. Other files (a `CNAME` for the host, say) are left alone, and links are
/// not followed.
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
    use super::{latency, sentence, Scale};

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
