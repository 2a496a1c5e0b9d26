//! What a page's template gets: a chart's context (its SVG, table, commentary slot and
//! links), the rows of its tables, and the page's own context.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::analysis::{Bar, TestFigures};
use crate::commentary;
use crate::commentary::Commentary;
use crate::config::sha256_hex;
use crate::error::{RenderError, Result};
use crate::lab::Lab;

use super::chart::{BarChart, BarItem};
use super::draft::draft;
use super::format::{direction, fingerprint, latency_row, Scale};
use super::Report;

#[derive(Serialize)]
pub(super) struct Row {
    pub(super) drive: String,
    pub(super) drive_name: String,
    pub(super) firmware: String,
    pub(super) value: String,
    /// The mean of the runs, where the figure column shows the best run.
    pub(super) mean: Option<String>,
    pub(super) repeats: u32,
    /// The latencies under [`ChartCtx::latency_heads`].
    pub(super) latencies: Vec<String>,
    pub(super) highlight: bool,
}

/// A latency column of a bar chart's table: heading, summary key, figure (none where the
/// runs had too few I/Os for a tail percentile).
pub(super) type LatencyColumn = (&'static str, &'static str, fn(&Bar) -> Option<f64>);

/// The latency columns of a bar chart's table; the 99.99th and 99.9999th percentiles only
/// where some drive's runs had the I/Os for them (10,000 and 1,000,000).
pub(super) const LATENCY_COLUMNS: [LatencyColumn; 7] = [
    ("Mean latency", "lat_mean_us", |b| Some(b.lat_mean_us)),
    ("Median", "lat_p50_us", |b| Some(b.lat_p50_us)),
    ("99th percentile", "lat_p99_us", |b| Some(b.lat_p99_us)),
    ("99.9th percentile", "lat_p999_us", |b| Some(b.lat_p999_us)),
    ("99.99th percentile", "lat_p9999_us", |b| b.lat_p9999_us),
    ("99.9999th percentile", "lat_p999999_us", |b| {
        b.lat_p999999_us
    }),
    ("Maximum", "lat_max_us", |b| Some(b.lat_max_us)),
];

/// The latency columns of `f`'s tables (its chart's and its leaderboard's): all but the
/// one the chart shows as its figure, and the rarest percentiles only where some drive's
/// runs had the I/Os for them.
pub(super) fn latency_columns(f: &TestFigures) -> Vec<LatencyColumn> {
    LATENCY_COLUMNS
        .into_iter()
        .filter(|(_, key, of)| *key != f.metric && f.bars.iter().any(|b| of(b).is_some()))
        .collect()
}

/// `b`'s figures under `columns`, formatted (– where its runs had too few I/Os), figures
/// that one decimal more parts not reading alike side by side ([`latency_row`]).
pub(super) fn latency_cells(columns: &[LatencyColumn], b: &Bar) -> Vec<String> {
    let values: Vec<Option<f64>> = columns.iter().map(|(_, _, of)| of(b)).collect();
    latency_row(&values)
}

#[derive(Serialize)]
pub(super) struct PairRow {
    pub(super) drive_name: String,
    pub(super) firmware: String,
    pub(super) a: String,
    pub(super) b: String,
    pub(super) difference: String,
    pub(super) highlight: bool,
}

#[derive(Serialize)]
pub(super) struct ChartCtx {
    /// Rows of a paired chart (empty for a bar chart).
    pub(super) pair_rows: Vec<PairRow>,
    /// The two variants a paired chart compares.
    pub(super) legend: Vec<String>,
    pub(super) id: String,
    pub(super) title: String,
    pub(super) variant_label: String,
    pub(super) workload: String,
    pub(super) caption: String,
    /// The unit of a paired chart's figures (`MB/s`).
    pub(super) unit: String,
    /// The header of a bar chart's figure column: its quantity and unit (`MB/s`, `mean
    /// latency, ms`).
    pub(super) value_head: String,
    /// The header of the column of the runs' mean, where the figure column shows the best
    /// run (CrystalDiskMark's way).
    pub(super) mean_head: Option<String>,
    /// The headings of a bar chart's latency columns: all four, but for the one its
    /// figure column already shows (a chart of mean latency has no second mean).
    pub(super) latency_heads: Vec<&'static str>,
    pub(super) svg: String,
    pub(super) rows: Vec<Row>,
    /// The figures of a line chart, as a table (empty for bar charts).
    pub(super) table: Option<TableCtx>,
    pub(super) commentary: Option<String>,
    pub(super) stale: bool,
    pub(super) fingerprint: String,
    /// The chart as a file, and at publication size as PNG (paths from the page).
    pub(super) svg_href: String,
    pub(super) png_href: String,
    /// Every figure a line chart draws, as CSV, and its link.
    #[serde(skip)]
    pub(super) csv: Option<String>,
    pub(super) csv_href: Option<String>,
    /// A sentence drafted from the figures, for `commentary init`.
    #[serde(skip)]
    pub(super) draft: String,
}

/// A table of figures beside a line chart.
#[derive(Serialize, Clone)]
pub(super) struct TableCtx {
    pub(super) caption: String,
    pub(super) head: Vec<String>,
    pub(super) rows: Vec<TableRow>,
    /// Long tables (a column per repeat, over a dozen) start folded.
    pub(super) folded: bool,
    /// How many leading columns hold text (a drive, a firmware), aligned left; the
    /// figures after them are aligned right.
    pub(super) text_columns: usize,
}

#[derive(Serialize, Clone)]
pub(super) struct TableRow {
    pub(super) cells: Vec<String>,
    pub(super) highlight: bool,
}

/// A drawn chart with its table, before it is placed on a page.
pub(super) struct Figure {
    pub(super) id: String,
    pub(super) title: String,
    pub(super) subtitle: String,
    pub(super) caption: String,
    pub(super) svg: String,
    pub(super) table: TableCtx,
    /// Every figure drawn, as CSV (line charts), else None.
    pub(super) csv: Option<String>,
    /// The text the fingerprint is taken of: every figure the chart shows.
    pub(super) figures: String,
    pub(super) draft: String,
}

impl Figure {
    /// The chart's context on `page`, with its commentary slot.
    pub(super) fn into_ctx(
        self,
        notes: Option<&Commentary>,
        report: &mut Report,
        page: &str,
    ) -> ChartCtx {
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
            mean_head: None,
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
pub(super) fn chart_file(page: &str, slot: &str, ext: &str) -> String {
    format!("charts/{page}/{slot}.{ext}")
}

/// A page-relative link to a chart file.
pub(super) fn chart_href(page: &str, slot: &str, ext: &str) -> String {
    format!(
        "{}{}",
        "../".repeat(page.matches('/').count()),
        chart_file(page, slot, ext)
    )
}

#[derive(Serialize)]
pub(super) struct SuiteLink {
    pub(super) name: String,
    pub(super) title: String,
    pub(super) description: Option<String>,
    pub(super) tests: usize,
    /// Test variants with results.
    pub(super) charts: usize,
}

#[derive(Serialize)]
pub(super) struct DriveRow {
    pub(super) id: String,
    pub(super) page: bool,
    /// Results under more than one firmware: a firmware-history page.
    pub(super) history: bool,
    pub(super) name: String,
    pub(super) controller: String,
    pub(super) firmware: String,
    pub(super) results: usize,
}

/// A test's title with its variant: `4KB Random Write (compressible, 4 KiB aligned)`.
pub(super) fn test_title(f: &TestFigures) -> String {
    if f.variant_label.is_empty() {
        f.title.clone()
    } else {
        format!("{} ({})", f.title, f.variant_label)
    }
}

/// What a chart's caption adds after its unit for a test that shows its best run, with how
/// many runs it is the best of (`, best of 5 runs`); nothing for one that shows their mean.
pub(super) fn of_runs(f: &TestFigures) -> String {
    if f.of_repeats == crate::workload::OfRepeats::Best {
        let runs = f.bars.iter().map(|b| b.repeats).max().unwrap_or(1);
        format!(", best of {runs} runs")
    } else {
        String::new()
    }
}

/// A chart, its table and its commentary slot. `slot` is the chart's id on its page;
/// `highlight` names the reviewed drive, drawn in the highlight colour and in bold.
pub(super) fn chart_ctx(
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
    // Chosen once for the table: its headings and every row's cells.
    let latency_columns = latency_columns(f);
    let best = f.of_repeats == crate::workload::OfRepeats::Best;
    let of_runs = of_runs(f);
    let chart = BarChart {
        id: slot_id.to_string(),
        title: title.clone(),
        subtitle: f.workload.clone(),
        caption: format!("{}{of_runs} · {better}", scale.caption),
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
    let svg = chart.to_svg().map_err(RenderError::Chart)?;
    let fp = fingerprint(f);
    let (commentary, stale) = slot_text(notes, slot_id, &fp, report, page);
    Ok(ChartCtx {
        pair_rows: vec![],
        legend: vec![],
        id: slot_id.to_string(),
        title,
        variant_label: f.variant_label.clone(),
        workload: f.workload.clone(),
        caption: format!("{}{of_runs}, {better}", scale.caption),
        unit: scale.unit.to_string(),
        value_head: format!("{}{of_runs}", scale.caption),
        mean_head: best.then(|| format!("{}, mean of the runs", scale.caption)),
        latency_heads: latency_columns.iter().map(|(head, _, _)| *head).collect(),
        svg,
        rows: f
            .bars
            .iter()
            .map(|b| Row {
                drive: b.drive.clone(),
                drive_name: b.drive_name.clone(),
                firmware: b.firmware.clone(),
                value: scale.show(b.value),
                mean: best.then(|| scale.show(b.mean)),
                repeats: b.repeats,
                latencies: latency_cells(&latency_columns, b),
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

/// A chart's commentary, as HTML, and whether it was written against other figures than
/// `fingerprint` (then listed in the report).
pub(super) fn slot_text(
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

/// Each suite's charts (`test.variant` slot ids) in the order the suite lists its tests and
/// each test's variants (a sweep's values as written: QD1, QD2, … QD128).
pub(super) fn suite_order(lab: &Lab) -> BTreeMap<String, Vec<String>> {
    lab.suites
        .iter()
        .map(|(n, s)| {
            (
                n.clone(),
                s.spec
                    .tests
                    .iter()
                    .flat_map(|t| {
                        t.expand()
                            .into_iter()
                            .map(|(v, _)| format!("{}.{}", t.id.0, v.id))
                    })
                    .collect(),
            )
        })
        .collect()
}

/// The charts of a suite page, with their slot ids.
pub(super) fn suite_slots<'a>(
    figures: &'a [TestFigures],
    suite: &'a str,
) -> impl Iterator<Item = (String, &'a TestFigures)> + 'a {
    figures
        .iter()
        .filter(move |f| f.suite == suite)
        .map(|f| (f.slot_id(), f))
}

/// The charts of a drive's review page from one suite, with their slot ids.
pub(super) fn drive_slots<'a>(
    figures: &'a [TestFigures],
    suite: &'a str,
    drive: &'a str,
) -> impl Iterator<Item = (String, &'a TestFigures)> + 'a {
    figures
        .iter()
        .filter(move |f| f.suite == suite && f.bars.iter().any(|b| b.drive == drive))
        .map(move |f| (format!("{suite}.{}", f.slot_id()), f))
}

/// What every page's template gets: the way back to the site root, the page id and the
/// page's introduction from its commentary.
pub(super) fn page_context(page: &str, notes: Option<&Commentary>) -> tera::Context {
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
