//! Drive-vs-drive pages (one drive's figures as a share of another's) and per-test
//! leaderboards (every drive under every firmware, ranked).

use std::collections::BTreeMap;

use crate::analysis::{Bar, TestFigures};
use crate::commentary::Commentary;
use crate::error::Result;
use crate::units::figure;

use super::chart::{BarChart, BarItem};
use super::context::{
    latency_cells, latency_columns, test_title, ChartCtx, DriveRow, Figure, TableCtx, TableRow,
};
use super::format::{direction, figures_text, Scale};
use super::output::sentence_case;
use super::{RenderError, Report};

/// A bar chart with its table, before it is placed on a page.
pub(super) struct Bars {
    chart: BarChart,
    table: TableCtx,
    figures: String,
    draft: String,
}

impl Bars {
    /// The chart's context on `page`, with its commentary slot.
    pub fn into_ctx(
        self,
        notes: Option<&Commentary>,
        report: &mut Report,
        page: &str,
    ) -> Result<ChartCtx> {
        let svg = self.chart.to_svg().map_err(RenderError::Chart)?;
        Ok(Figure {
            id: self.chart.id,
            title: self.chart.title,
            subtitle: self.chart.subtitle,
            caption: self.chart.caption,
            svg,
            table: self.table,
            csv: None,
            figures: self.figures,
            draft: self.draft,
        }
        .into_ctx(notes, report, page))
    }
}

/// Drive `a`'s performance as a share of drive `b`'s on every test of `suite` both ran
/// (above 100%: `a` is better, whichever way the test's figure points); None when they
/// share no test.
pub(super) fn ratio(
    figures: &[TestFigures],
    suite: &str,
    a: &DriveRow,
    b: &DriveRow,
) -> Option<Bars> {
    let suite_title = figures
        .iter()
        .find(|f| f.suite == suite)
        .map_or(suite, |f| f.suite_title.as_str());
    let mut items = Vec::new();
    let mut rows = Vec::new();
    let mut lines = String::new();
    let mut sentences = Vec::new();
    for f in figures.iter().filter(|f| f.suite == suite) {
        let (Some(x), Some(y)) = (
            f.bars.iter().find(|x| x.drive == a.id),
            f.bars.iter().find(|y| y.drive == b.id),
        ) else {
            continue;
        };
        let Compared {
            title,
            share,
            sentence,
            row,
            line,
        } = compare_on(f, x, y, a, b);
        lines.push_str(&line);
        rows.push(row);
        sentences.push((share, sentence));
        items.push(BarItem {
            label: title,
            value: share,
            highlight: share.is_finite() && share >= 100.0,
        });
    }
    if items.is_empty() {
        return None;
    }
    let draft = ratio_draft(&sentences);
    Some(Bars {
        chart: BarChart {
            id: suite.to_string(),
            title: format!("{suite_title}: {} vs {}", a.name, b.name),
            subtitle: format!(
                "every test both ran; firmware {} and {}",
                a.firmware, b.firmware
            ),
            caption: "the first drive's performance as % of the second's · above 100% it is better"
                .into(),
            bars: items,
        },
        table: TableCtx {
            caption: format!("{} and {}, test by test", a.name, b.name),
            head: vec![
                "Test".into(),
                a.name.clone(),
                b.name.clone(),
                format!("{} as % of {}", a.name, b.name),
            ],
            rows,
            folded: false,
            text_columns: 1,
        },
        figures: lines,
        draft,
    })
}

/// Drive `a` against drive `b` on one test: the share, a sentence, a table row and the
/// line of figures the fingerprint is taken of.
struct Compared {
    title: String,
    share: f64,
    sentence: String,
    row: TableRow,
    line: String,
}

/// `x` (drive `a`'s bar) against `y` (drive `b`'s) on the test of `f`.
fn compare_on(f: &TestFigures, x: &Bar, y: &Bar, a: &DriveRow, b: &DriveRow) -> Compared {
    let higher = f.better == "higher";
    let share = match (higher, x.value > 0.0 && y.value > 0.0) {
        (_, false) => f64::NAN,
        (true, true) => x.value / y.value * 100.0,
        (false, true) => y.value / x.value * 100.0,
    };
    let scale = Scale::of(&f.metric, [x.value, y.value]);
    let (unit, caption) = (scale.unit, scale.caption);
    let title = test_title(f);
    let sentence = if !share.is_finite() {
        format!("{title}: no comparison (a figure is zero)")
    } else if higher {
        format!(
            "the {} delivers {}% of the {}'s {title} {caption}",
            a.name,
            figure(share),
            b.name
        )
    } else {
        format!(
            "the {}'s {title} {caption} is {}% of the {}'s",
            a.name,
            figure(x.value / y.value * 100.0),
            b.name
        )
    };
    let line = format!(
        "{}.{}|{}|{}|{}|{}\n",
        f.test,
        f.variant,
        x.firmware,
        figure(x.value),
        y.firmware,
        figure(y.value)
    );
    let row = TableRow {
        cells: vec![
            title.clone(),
            format!("{} {unit}", scale.show(x.value)),
            format!("{} {unit}", scale.show(y.value)),
            if share.is_finite() {
                format!("{}%", figure(share))
            } else {
                "–".into()
            },
        ],
        highlight: false,
    };
    Compared {
        title,
        share,
        sentence,
        row,
        line,
    }
}

/// The sentence drafted for a comparison: the widest lead and the widest deficit.
fn ratio_draft(sentences: &[(f64, String)]) -> String {
    let mut ranked: Vec<&(f64, String)> = sentences.iter().filter(|(s, _)| s.is_finite()).collect();
    ranked.sort_by(|p, q| q.0.total_cmp(&p.0));
    match (ranked.first(), ranked.last()) {
        (Some(best), Some(worst)) if ranked.len() > 1 => {
            format!("At its best {}; at its worst {}.", best.1, worst.1)
        }
        (Some(only), _) => format!("{}.", sentence_case(&only.1)),
        _ => String::new(),
    }
}

/// One test variant across every drive and firmware with results, best first; entries
/// under a firmware that is no longer the drive's current one are marked.
pub(super) fn board(f: &TestFigures, current: &BTreeMap<String, String>) -> Bars {
    let scale = Scale::of(&f.metric, f.bars.iter().map(|b| b.value));
    let better = direction(&f.better);
    let leader = f.bars.first().map_or(f64::NAN, |b| b.value);
    let share = |v: f64| {
        if leader > 0.0 && v.is_finite() {
            if f.better == "higher" {
                format!("{}%", figure(v / leader * 100.0))
            } else {
                format!("{}%", figure(leader / v * 100.0))
            }
        } else {
            "–".into()
        }
    };
    let is_current = |drive: &str, fw: &str| current.get(drive).is_some_and(|c| c == fw);
    let columns = latency_columns(f);
    let label = |b: &crate::analysis::Bar| {
        if is_current(&b.drive, &b.firmware) {
            b.drive_name.clone()
        } else {
            format!("{} (fw {})", b.drive_name, b.firmware)
        }
    };
    Bars {
        chart: BarChart {
            id: f.variant.clone(),
            title: test_title(f),
            subtitle: f.workload.clone(),
            caption: format!("{} · {better}", scale.caption),
            bars: f
                .bars
                .iter()
                .map(|b| BarItem {
                    label: label(b),
                    value: scale.at(b.value),
                    highlight: false,
                })
                .collect(),
        },
        table: TableCtx {
            caption: format!("{}: every drive and firmware, ranked", test_title(f)),
            head: ["Rank", "Drive", "Firmware", scale.unit, "Of the leader"]
                .into_iter()
                .chain(columns.iter().map(|(head, _, _)| *head))
                .chain(["Runs"])
                .map(String::from)
                .collect(),
            rows: f
                .bars
                .iter()
                .enumerate()
                .map(|(i, b)| TableRow {
                    cells: [
                        (i + 1).to_string(),
                        b.drive_name.clone(),
                        if is_current(&b.drive, &b.firmware) {
                            format!("{} (current)", b.firmware)
                        } else {
                            b.firmware.clone()
                        },
                        scale.show(b.value),
                        share(b.value),
                    ]
                    .into_iter()
                    .chain(latency_cells(&columns, b))
                    .chain([b.repeats.to_string()])
                    .collect(),
                    highlight: false,
                })
                .collect(),
            folded: false,
            // Rank, drive and firmware.
            text_columns: 3,
        },
        figures: figures_text(f),
        draft: super::draft(f, None),
    }
}
