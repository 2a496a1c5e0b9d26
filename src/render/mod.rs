//! The site: tera templates filled with the analysis' figures, charts as inline SVG, and the
//! reviewer's commentary, written to `site/`. Rendering is deterministic (sorted inputs, no
//! clock) and only rewrites files whose bytes change.

pub mod chart;

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::analysis::{self, TestFigures};
use crate::commentary::{self, Commentary};
use crate::error::{Error, Result};
use crate::lab::{sha256_hex, Lab};
use crate::store;
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
    commentary: Option<String>,
    stale: bool,
    fingerprint: String,
}

#[derive(Serialize)]
struct SuiteLink {
    name: String,
    title: String,
    tests: usize,
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

/// Latency for tables: µs below a millisecond, ms above.
pub fn latency(us: f64) -> String {
    if !us.is_finite() {
        "–".into()
    } else if us >= 1000.0 {
        format!("{} ms", figure(us / 1000.0))
    } else {
        format!("{} µs", figure(us))
    }
}

fn unit_of(metric: &str) -> (&'static str, &'static str) {
    match metric {
        "iops" => ("IOPS", "IOPS"),
        "mb_per_s" => ("MB/s", "MB/s"),
        "lat_mean_us" => ("µs", "mean latency, µs"),
        "lat_p99_us" => ("µs", "99th percentile latency, µs"),
        _ => ("µs", "maximum latency, µs"),
    }
}

/// The fingerprint of a chart's figures: what a commentary slot was written against.
pub fn fingerprint(f: &TestFigures) -> String {
    let text: String = f
        .bars
        .iter()
        .map(|b| format!("{}|{}|{}\n", b.drive, b.firmware, figure(b.value)))
        .collect();
    sha256_hex(text.as_bytes())[..12].to_string()
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
    let (unit, caption) = unit_of(&f.metric);
    let better = if f.better == "higher" {
        "higher is better"
    } else {
        "lower is better"
    };
    let title = if f.variant_label.is_empty() {
        f.title.clone()
    } else {
        format!("{} ({})", f.title, f.variant_label)
    };
    let chart = BarChart {
        id: slot_id.to_string(),
        title: title.clone(),
        subtitle: f.workload.clone(),
        caption: format!("{caption} · {better}"),
        bars: f
            .bars
            .iter()
            .map(|b| BarItem {
                label: b.drive_name.clone(),
                value: b.value,
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
        caption: format!("{caption}, {better}"),
        unit: unit.to_string(),
        svg,
        rows: f
            .bars
            .iter()
            .map(|b| Row {
                drive: b.drive.clone(),
                drive_name: b.drive_name.clone(),
                firmware: b.firmware.clone(),
                value: figure(b.value),
                repeats: b.repeats,
                lat_mean: latency(b.lat_mean_us),
                lat_p99: latency(b.lat_p99_us),
                lat_p999: latency(b.lat_p999_us),
                highlight: highlight == Some(b.drive.as_str()),
                lat_max: latency(b.lat_max_us),
            })
            .collect(),
        commentary,
        stale,
        fingerprint: fp,
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
    Ok(t)
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
    /// Each drive in both variants: its bar in the first and its figure in the second.
    fn matched(&self) -> Vec<(&crate::analysis::Bar, f64)> {
        self.a
            .bars
            .iter()
            .filter_map(|x| {
                self.b
                    .bars
                    .iter()
                    .find(|y| y.drive == x.drive)
                    .map(|y| (x, y.value))
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
    notes: Option<&Commentary>,
    report: &mut Report,
    page: &str,
) -> Result<ChartCtx> {
    let (unit, caption) = unit_of(&p.a.metric);
    let better = if p.a.better == "higher" {
        "higher is better"
    } else {
        "lower is better"
    };
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
        caption: format!("{caption} · {better} · difference of the second from the first"),
        legend: (la.clone(), lb.clone()),
        pairs: rows
            .iter()
            .map(|(x, b)| PairItem {
                label: x.drive_name.clone(),
                a: x.value,
                b: *b,
                highlight: false,
            })
            .collect(),
    };
    let svg = chart.to_svg().map_err(Error::Render)?;
    let fp = pair_fingerprint(p);
    let (commentary, stale) = slot_text(notes, &p.id, &fp, report, page);
    Ok(ChartCtx {
        pair_rows: rows
            .iter()
            .map(|(x, b)| PairRow {
                drive_name: x.drive_name.clone(),
                firmware: x.firmware.clone(),
                a: figure(x.value),
                b: figure(*b),
                difference: percent_change(x.value, *b),
            })
            .collect(),
        legend: vec![la, lb],
        id: p.id.clone(),
        title,
        variant_label: String::new(),
        workload,
        caption: format!("{caption}, {better}"),
        unit: unit.to_string(),
        svg,
        rows: vec![],
        commentary,
        stale,
        fingerprint: fp,
    })
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

/// Every page's commentary slots, by page id (`suites/NAME`, `drives/ID`), from the current
/// results: what `roundup commentary init` writes.
pub fn slot_plans(lab: &Lab) -> Result<BTreeMap<String, Vec<SlotPlan>>> {
    let (_, figures, _) = lab_figures(lab);
    let suites: BTreeSet<&str> = figures.iter().map(|f| f.suite.as_str()).collect();
    let drives: BTreeSet<&str> = figures
        .iter()
        .flat_map(|f| f.bars.iter().map(|b| b.drive.as_str()))
        .collect();
    let plan = |slots: Vec<(String, &TestFigures)>, drive: Option<&str>| -> Vec<SlotPlan> {
        slots
            .into_iter()
            .map(|(id, f)| SlotPlan {
                id,
                fingerprint: fingerprint(f),
                draft: draft(f, drive),
            })
            .collect()
    };
    let mut out = BTreeMap::new();
    for suite in &suites {
        let mut slots = plan(suite_slots(&figures, suite).collect(), None);
        for p in pairs(&figures, suite) {
            let (la, lb) = p.labels.clone();
            let changes: Vec<String> = p
                .matched()
                .into_iter()
                .filter(|(x, _)| x.value > 0.0)
                .map(|(x, b)| format!("the {} {}", x.drive_name, percent_change(x.value, b)))
                .collect();
            slots.push(SlotPlan {
                id: p.id.clone(),
                fingerprint: pair_fingerprint(&p),
                draft: format!("From {la} to {lb}: {}.", changes.join(", ")),
            });
        }
        out.insert(format!("suites/{suite}"), slots);
    }
    for drive in &drives {
        let slots: Vec<(String, &TestFigures)> = suites
            .iter()
            .flat_map(|s| drive_slots(&figures, s, drive))
            .collect();
        out.insert(format!("drives/{drive}"), plan(slots, Some(drive)));
    }
    Ok(out)
}

/// A first sentence about a chart: who leads and by how much, and, on a review page, where
/// the reviewed drive stands.
pub fn draft(f: &TestFigures, drive: Option<&str>) -> String {
    let (unit, _) = unit_of(&f.metric);
    let Some(first) = f.bars.first() else {
        return String::new();
    };
    let last = f.bars.last().unwrap_or(first);
    let mut s = format!(
        "The {} leads at {} {unit}",
        first.drive_name,
        figure(first.value)
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
            figure(last.value)
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
                    figure(b.value),
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
    let path = site.join(rel);
    if fs::read(&path).is_ok_and(|old| old == bytes) {
        report.unchanged += 1;
        return Ok(());
    }
    store::write_atomic(&path, bytes)?;
    report.written.push(PathBuf::from(rel));
    Ok(())
}

/// Renders the lab's results and commentary into `site/`.
pub fn render(lab: &Lab) -> Result<Report> {
    let mut report = Report::default();
    let (summaries, figures, problems) = lab_figures(lab);
    report.problems = problems;
    let current = analysis::current_firmware(&summaries);
    let tera = templates(lab)?;
    let site = lab.site_dir();

    // Suites: those of the lab, and any others found in the results.
    let mut suites: BTreeMap<String, (String, Option<String>, usize)> = lab
        .suites
        .iter()
        .map(|(n, s)| {
            (
                n.clone(),
                (
                    s.spec.title.clone(),
                    s.spec.description.clone(),
                    s.spec.tests.len(),
                ),
            )
        })
        .collect();
    for f in &figures {
        suites
            .entry(f.suite.clone())
            .or_insert_with(|| (f.suite_title.clone(), None, 0));
    }
    let mut suite_links = Vec::new();
    for (name, (title, description, tests)) in &suites {
        let page = format!("suites/{name}");
        let notes = lab.commentary.get(&page).map(|c| &c.spec);
        let mut charts = Vec::new();
        let suite_pairs = pairs(&figures, name);
        let mut shown_pairs = BTreeSet::new();
        for (slot, f) in suite_slots(&figures, name) {
            for p in suite_pairs.iter().filter(|p| p.a.test == f.test) {
                if shown_pairs.insert(p.id.clone()) {
                    charts.push(pair_ctx(p, notes, &mut report, &page)?);
                }
            }
            charts.push(chart_ctx(f, &slot, None, notes, &mut report, &page)?);
        }
        if let Some(c) = lab.commentary.get(&page) {
            let ids: BTreeSet<&str> = charts.iter().map(|c| c.id.as_str()).collect();
            for s in &c.spec.slots {
                if !ids.contains(s.id.as_str()) {
                    report.orphan_slots.push(format!(
                        "{}:{}: slot {} has no chart on page {page} (kept in the file, not shown)",
                        c.file.display(),
                        s.line,
                        s.id
                    ));
                }
            }
        }
        let mut ctx = page_context(&page, notes);
        ctx.insert(
            "suite",
            &serde_json::json!({"name": name, "title": title, "description": description}),
        );
        ctx.insert("charts", &charts);
        write_page(&tera, "suite.html", &ctx, &site, &page, &mut report)?;
        suite_links.push(SuiteLink {
            name: name.clone(),
            title: title.clone(),
            tests: *tests,
            charts: charts.len(),
        });
    }

    let mut drives: BTreeMap<String, DriveRow> = lab
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
    for (j, _) in &summaries {
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
        row.history = analysis::firmwares(&summaries, &row.id).len() > 1;
    }

    // A review page per drive: every chart it appears in, suite by suite in test order,
    // the drive highlighted.
    for row in drives.values() {
        if !row.page {
            continue;
        }
        let page = format!("drives/{}", row.id);
        let notes = lab.commentary.get(&page).map(|c| &c.spec);
        let mut sections: Vec<serde_json::Value> = Vec::new();
        for (suite, (title, _, _)) in &suites {
            let mut charts = Vec::new();
            for (slot, f) in drive_slots(&figures, suite, &row.id) {
                charts.push(chart_ctx(
                    f,
                    &slot,
                    Some(&row.id),
                    notes,
                    &mut report,
                    &page,
                )?);
            }
            if !charts.is_empty() {
                sections.push(serde_json::json!({"name": suite, "title": title, "charts": charts}));
            }
        }
        let mut ctx = page_context(&page, notes);
        ctx.insert("drive", row);
        ctx.insert("sections", &sections);
        write_page(&tera, "drive.html", &ctx, &site, &page, &mut report)?;
    }
    // Firmware history: each test of a drive under its previous and its current firmware.
    let order = suite_order(lab);
    for row in drives.values().filter(|r| r.history) {
        let fws = analysis::firmwares(&summaries, &row.id);
        let (old, new) = (&fws[fws.len() - 2], &fws[fws.len() - 1]);
        let under = |fw: &str| {
            analysis::figures_where(&summaries, &order, |m| {
                m.drive == row.id && m.firmware == fw
            })
        };
        let (before, after) = (under(old), under(new));
        let page = format!("drives/{}-firmware", row.id);
        let notes = lab.commentary.get(&page).map(|c| &c.spec);
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
            charts.push(pair_ctx(&pair, notes, &mut report, &page)?);
        }
        let mut ctx = page_context(&page, notes);
        ctx.insert("drive", row);
        ctx.insert("firmwares", &fws);
        ctx.insert("charts", &charts);
        write_page(&tera, "firmware.html", &ctx, &site, &page, &mut report)?;
    }

    let mut ctx = page_context("index", lab.commentary.get("index").map(|c| &c.spec));
    ctx.insert("suites", &suite_links);
    ctx.insert("drives", &drives.into_values().collect::<Vec<_>>());
    ctx.insert("problems", &report.problems);
    write_page(&tera, "index.html", &ctx, &site, "index", &mut report)?;

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
    Ok(report)
}
