//! Pairs of a test's variants that differ in one dimension (compressible and
//! incompressible data, 4 KiB and 512 B alignment, two firmwares) and their paired charts.

use crate::analysis::TestFigures;
use crate::commentary::Commentary;
use crate::config::sha256_hex;
use crate::error::Result;

use super::chart::{percent_change, PairChart, PairItem};
use super::context::{chart_href, slot_text, ChartCtx, PairRow};
use super::draft::{changes_draft, Change};
use super::format::{direction, fingerprint, Scale};
use super::{RenderError, Report};

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
    pub(super) fn matched(&self) -> Vec<(&crate::analysis::Bar, &crate::analysis::Bar)> {
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
pub(super) fn settings(variant: &str) -> Vec<(String, String)> {
    if variant == "base" {
        return vec![];
    }
    variant
        .split('_')
        .filter_map(|p| p.split_once('-'))
        .map(|(d, v)| (d.to_string(), v.to_string()))
        .collect()
}

/// Every pair of variants of a suite's tests that differ in exactly one dimension (one
/// not swept: see `render::sweeps`).
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
            // A dimension of three values or more is charted as a sweep, not in pairs.
            if super::sweeps::is_swept(&tests, &a.test, &sa[k].0) {
                continue;
            }
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

pub(super) fn pair_ctx(
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
    let svg = chart.to_svg().map_err(RenderError::Chart)?;
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
        value_head: String::new(),
        mean_head: None,
        latency_heads: vec![],
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
        draft: pair_draft(p, highlight),
    })
}

/// A first sentence about a pair: the drives' changes from the first variant to the second.
fn pair_draft(p: &Pair, drive: Option<&str>) -> String {
    let (la, lb) = &p.labels;
    let changes: Vec<Change> = p
        .matched()
        .into_iter()
        .map(|(x, y)| Change {
            drive: &x.drive,
            name: &x.drive_name,
            from: x.value,
            to: y.value,
        })
        .collect();
    changes_draft(&format!("{la} to {lb}"), &changes, drive)
}
