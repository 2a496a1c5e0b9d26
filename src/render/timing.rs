//! The line charts of a test: the latency CDF of every drive, and one drive's latency and
//! throughput over time across its repeats (stutter, degradation, the SNIA window).

use crate::analysis::{Bar, RunTrace, TestFigures, CDF_PERCENTILES};
use crate::commentary::Commentary;
use crate::error::Result;
use crate::units::figure;

use super::chart::{
    percent_change, Axis, AxisScale, AxisValues, Band, LineChart, Mark, Rule, Series, BAR,
    HIGHLIGHT,
};
use super::context::{test_title, ChartCtx, Figure, TableCtx, TableRow};
use super::draft::{changes_draft, Change};
use super::format::{csv_field, direction, latency, Scale};
use super::{RenderError, Report};

/// A line chart with its table, its CSV (every plotted point) and its commentary slot.
pub(super) struct Line {
    pub chart: LineChart,
    pub table: TableCtx,
    pub csv: String,
    pub draft: String,
}

impl Line {
    /// The chart's context on `page`; its fingerprint is taken of the CSV, which holds every
    /// figure the chart draws.
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
            figures: self.csv.clone(),
            csv: Some(self.csv),
            draft: self.draft,
        }
        .into_ctx(notes, report, page))
    }
}

fn title(f: &TestFigures, what: &str) -> String {
    format!("{}: {what}", test_title(f))
}

/// The CDF percentiles a table shows.
const TABLE_PERCENTILES: [(f64, &str); 6] = [
    (50.0, "Median"),
    (90.0, "90th"),
    (99.0, "99th"),
    (99.9, "99.9th"),
    (99.99, "99.99th"),
    (100.0, "Maximum"),
];

fn at_percentile(b: &Bar, p: f64) -> f64 {
    CDF_PERCENTILES
        .iter()
        .position(|&q| q == p)
        .and_then(|k| b.cdf.get(k).copied())
        .unwrap_or(f64::NAN)
}

/// Every drive's latency at each charted percentile, as CSV.
fn cdf_csv(f: &TestFigures) -> String {
    let mut csv = String::from("drive,firmware,percentile,latency_us\n");
    for b in &f.bars {
        for (us, p) in b.cdf.iter().zip(CDF_PERCENTILES) {
            csv.push_str(&format!(
                "{},{},{p},{}\n",
                csv_field(&b.drive),
                csv_field(&b.firmware),
                figure(*us)
            ));
        }
    }
    csv
}

/// The sentence drafted for a latency distribution: the reviewed drive's percentiles, then
/// which drive has the lowest and which the highest 99th percentile.
fn cdf_draft(f: &TestFigures, highlight: Option<&str>) -> String {
    let p99 = |b: &Bar| at_percentile(b, 99.0);
    let best = f.bars.iter().filter(|b| p99(b).is_finite()).min_by(|a, b| {
        p99(a)
            .total_cmp(&p99(b))
            .then_with(|| a.drive.cmp(&b.drive))
    });
    let worst = f.bars.iter().filter(|b| p99(b).is_finite()).max_by(|a, b| {
        p99(a)
            .total_cmp(&p99(b))
            .then_with(|| b.drive.cmp(&a.drive))
    });
    let mut draft = String::new();
    if let Some(b) = highlight.and_then(|d| f.bars.iter().find(|b| b.drive == d)) {
        draft.push_str(&format!(
            "Half of the {}'s I/Os completed within {}, 99% within {} and 99.9% within {}.",
            b.drive_name,
            latency(at_percentile(b, 50.0)),
            latency(p99(b)),
            latency(at_percentile(b, 99.9))
        ));
    }
    if let (Some(lo), Some(hi)) = (best, worst) {
        if lo.drive != hi.drive {
            draft.push_str(&format!(
                "{}The {} has the lowest 99th percentile latency ({}), the {} the highest ({}).",
                if draft.is_empty() { "" } else { " " },
                lo.drive_name,
                latency(p99(lo)),
                hi.drive_name,
                latency(p99(hi))
            ));
        }
    }
    draft
}

/// A test's drives in drive order (not ranked), as every chart of several lines draws
/// them, so that a drive keeps its colour from one chart of a page to the next.
pub(super) fn in_drive_order(f: &TestFigures) -> Vec<&Bar> {
    let mut bars: Vec<&Bar> = f.bars.iter().collect();
    bars.sort_by(|a, b| a.drive.cmp(&b.drive));
    bars
}

/// The latency CDF of every drive in a chart (in drive order, the reviewed drive
/// highlighted).
pub(super) fn cdf(f: &TestFigures, slot: &str, highlight: Option<&str>) -> Line {
    let series = in_drive_order(f)
        .into_iter()
        .map(|b| Series {
            label: b.drive_name.clone(),
            points: b
                .cdf
                .iter()
                .zip(CDF_PERCENTILES)
                .map(|(&us, &p)| (us, p))
                .collect(),
            highlight: highlight == Some(b.drive.as_str()),
            mark: Mark::Line,
            color: None,
        })
        .collect();
    let csv = cdf_csv(f);
    let draft = cdf_draft(f, highlight);
    let p99 = |b: &Bar| at_percentile(b, 99.0);
    let summary = f
        .bars
        .iter()
        .map(|b| {
            format!(
                "{}: median {}, 99th percentile {}",
                b.drive_name,
                latency(at_percentile(b, 50.0)),
                latency(p99(b))
            )
        })
        .collect::<Vec<_>>()
        .join("; ");
    Line {
        chart: LineChart {
            id: slot.to_string(),
            title: title(f, "latency distribution"),
            subtitle: f.workload.clone(),
            caption: "share of I/Os completed within each latency · lower latency is better: \
                      further left"
                .into(),
            x: Axis::new("latency (log scale)", AxisScale::Log, AxisValues::Latency),
            y: Axis::new(
                "I/Os completed, %",
                AxisScale::FromZero,
                AxisValues::Figures,
            ),
            series,
            bands: vec![],
            rules: vec![],
            summary: format!("{summary}."),
        },
        table: TableCtx {
            caption: format!("{}: latency percentiles", f.title),
            head: std::iter::once("Drive".to_string())
                .chain(TABLE_PERCENTILES.iter().map(|(_, h)| h.to_string()))
                .collect(),
            rows: f
                .bars
                .iter()
                .map(|b| TableRow {
                    cells: std::iter::once(b.drive_name.clone())
                        .chain(
                            TABLE_PERCENTILES
                                .iter()
                                .map(|(p, _)| latency(at_percentile(b, *p))),
                        )
                        .collect(),
                    highlight: highlight == Some(b.drive.as_str()),
                })
                .collect(),
            folded: false,
            text_columns: 1,
        },
        csv,
        draft,
    }
}

/// Where each repeat starts on the drive's concatenated timeline (a rule each), and its
/// SNIA window (a band).
fn layout(b: &Bar) -> (Vec<Rule>, Vec<Band>) {
    let mut rules = Vec::new();
    let mut bands = Vec::new();
    let mut at = 0.0;
    for r in &b.runs {
        if b.runs.len() > 1 {
            rules.push(Rule {
                at,
                label: format!("repeat {}", r.repeat),
            });
        }
        if let Some((x, y)) = r.window_s {
            bands.push(Band {
                from: at + x,
                to: at + y,
                label: "SNIA window".to_string(),
            });
        }
        at += r.duration_s;
    }
    (rules, bands)
}

/// The points of a drive's runs one after another: `(seconds from the first start, point)`.
fn concatenated(b: &Bar) -> Vec<(u32, f64, &crate::analysis::TimePoint)> {
    let mut out = Vec::new();
    let mut at = 0.0;
    for r in &b.runs {
        for p in &r.timeline {
            out.push((r.repeat, at + p.t_s, p));
        }
        at += r.duration_s;
    }
    out
}

/// The sentence drafted for a latency-over-time chart: the slowest I/O against the median,
/// and how many of the intervals had a stall (or no completion at all).
fn stalls_draft(b: &Bar, intervals: usize, finite: usize, stalls: usize) -> String {
    let empty = intervals - finite;
    let mut draft = format!(
        "The {}'s slowest I/O took {}, against a median of {}.",
        b.drive_name,
        latency(b.lat_max_us),
        latency(at_percentile(b, 50.0))
    );
    if finite > 0 {
        draft.push_str(&format!(
            " In {stalls} of {} intervals the slowest I/O took over ten times the interval's mean",
            intervals
        ));
        if empty > 0 {
            draft.push_str(&format!(", and in {empty} no I/O completed at all"));
        }
        draft.push('.');
    }
    draft
}

/// One repeat's row of the latency-over-time table: its length, the median of its
/// intervals' means, its slowest I/O and its stalls.
fn stalls_row(r: &RunTrace) -> TableRow {
    let med: Vec<f64> = r
        .timeline
        .iter()
        .map(|p| p.lat_mean_us)
        .filter(|v| v.is_finite())
        .collect();
    let slowest = r
        .timeline
        .iter()
        .map(|p| p.lat_max_us)
        .filter(|v| v.is_finite())
        .fold(f64::NAN, f64::max);
    let stalls = r
        .timeline
        .iter()
        .filter(|p| p.lat_max_us > 10.0 * p.lat_mean_us)
        .count();
    let mid = if med.is_empty() {
        f64::NAN
    } else {
        let mut m = med.clone();
        m.sort_by(f64::total_cmp);
        m[m.len() / 2]
    };
    TableRow {
        cells: vec![
            r.repeat.to_string(),
            format!("{} s", figure(r.duration_s)),
            latency(mid),
            latency(slowest),
            stalls.to_string(),
        ],
        highlight: false,
    }
}

/// One drive's slowest and mean latency per interval over its repeats: stutter shows as
/// dots far above the mean.
pub(super) fn latency_over_time(f: &TestFigures, b: &Bar, slot: &str) -> Line {
    let points = concatenated(b);
    let (rules, bands) = layout(b);
    let mut csv = String::from("repeat,t_s,lat_mean_us,lat_max_us\n");
    for (r, t, p) in &points {
        csv.push_str(&format!(
            "{r},{},{},{}\n",
            figure(*t),
            figure(p.lat_mean_us),
            figure(p.lat_max_us)
        ));
    }
    let finite: Vec<_> = points
        .iter()
        .filter(|(_, _, p)| p.lat_max_us.is_finite() && p.lat_mean_us.is_finite())
        .collect();
    let stalls = finite
        .iter()
        .filter(|(_, _, p)| p.lat_max_us > 10.0 * p.lat_mean_us)
        .count();
    let draft = stalls_draft(b, points.len(), finite.len(), stalls);
    let rows = b.runs.iter().map(stalls_row).collect();
    Line {
        chart: LineChart {
            id: slot.to_string(),
            title: title(f, format!("{}, latency over time", b.drive_name).as_str()),
            subtitle: f.workload.clone(),
            caption: format!(
                "slowest I/O and mean latency of each of {} intervals a run · lower is better",
                crate::analysis::TIMELINE_POINTS
            ),
            x: Axis::new(
                "time, s (repeats one after another)",
                AxisScale::FromZero,
                AxisValues::Figures,
            ),
            y: Axis::new("latency (log scale)", AxisScale::Log, AxisValues::Latency),
            series: vec![
                Series {
                    label: "mean latency of the interval".into(),
                    points: points.iter().map(|(_, t, p)| (*t, p.lat_mean_us)).collect(),
                    highlight: false,
                    mark: Mark::Dots,
                    color: Some(BAR),
                },
                Series {
                    label: "slowest I/O of the interval".into(),
                    points: points.iter().map(|(_, t, p)| (*t, p.lat_max_us)).collect(),
                    highlight: false,
                    mark: Mark::Dots,
                    color: Some(HIGHLIGHT),
                },
            ],
            bands,
            rules,
            summary: draft.clone(),
        },
        table: TableCtx {
            caption: format!("{}: latency over time by repeat", b.drive_name),
            head: [
                "Repeat",
                "Length",
                "Median of the intervals' means",
                "Slowest I/O",
                "Intervals with a stall (slowest > 10× mean)",
            ]
            .map(String::from)
            .to_vec(),
            rows,
            folded: false,
            text_columns: 1,
        },
        csv,
        draft,
    }
}

/// One drive's throughput over time across its repeats, with the SNIA window shaded.
pub(super) fn throughput_over_time(f: &TestFigures, b: &Bar, slot: &str) -> Line {
    let iops = f.metric == "iops";
    let (unit, what) = if iops {
        ("IOPS", "I/Os per second")
    } else {
        ("MB/s", "MB/s")
    };
    let value = |p: &crate::analysis::TimePoint| if iops { p.iops } else { p.mb_per_s };
    let points = concatenated(b);
    let (rules, bands) = layout(b);
    let mut csv = format!("repeat,t_s,{}\n", if iops { "iops" } else { "mb_per_s" });
    for (r, t, p) in &points {
        csv.push_str(&format!("{r},{},{}\n", figure(*t), figure(value(p))));
    }
    let per_run: Vec<(u32, f64, f64, f64)> = b
        .runs
        .iter()
        .map(|r| {
            let v: Vec<f64> = r.timeline.iter().map(value).collect();
            let mean = v.iter().sum::<f64>() / v.len().max(1) as f64;
            let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = v.iter().copied().fold(0.0, f64::max);
            (r.repeat, mean, lo, hi)
        })
        .collect();
    let mut draft = String::new();
    if let (Some(first), Some(last)) = (per_run.first(), per_run.last()) {
        if per_run.len() > 1 {
            draft = format!(
                "Over {} repeats the {} went from {} to {} {unit} ({}).",
                per_run.len(),
                b.drive_name,
                figure(first.1),
                figure(last.1),
                percent_change(first.1, last.1)
            );
        } else {
            draft = format!(
                "The {} averaged {} {unit}; its slowest interval delivered {} {unit}.",
                b.drive_name,
                figure(first.1),
                figure(first.2)
            );
        }
    }
    if !bands.is_empty() {
        draft.push_str(
            " The shaded span is the SNIA measurement window the results are taken over.",
        );
    }
    Line {
        chart: LineChart {
            id: slot.to_string(),
            title: title(
                f,
                format!("{}, throughput over time", b.drive_name).as_str(),
            ),
            subtitle: f.workload.clone(),
            caption: format!(
                "{what} in each of {} intervals a run · higher is better",
                crate::analysis::TIMELINE_POINTS
            ),
            x: Axis::new(
                "time, s (repeats one after another)",
                AxisScale::FromZero,
                AxisValues::Figures,
            ),
            y: Axis::new(unit.to_string(), AxisScale::FromZero, AxisValues::Figures),
            series: vec![Series {
                label: b.drive_name.clone(),
                points: points.iter().map(|(_, t, p)| (*t, value(p))).collect(),
                highlight: true,
                mark: Mark::Line,
                color: None,
            }],
            bands,
            rules,
            summary: draft.clone(),
        },
        table: TableCtx {
            caption: format!("{}: throughput by repeat, {unit}", b.drive_name),
            head: ["Repeat", "Mean", "Slowest interval", "Fastest interval"]
                .map(String::from)
                .to_vec(),
            rows: per_run
                .iter()
                .map(|(r, mean, lo, hi)| TableRow {
                    cells: vec![r.to_string(), figure(*mean), figure(*lo), figure(*hi)],
                    highlight: false,
                })
                .collect(),
            folded: false,
            text_columns: 1,
        },
        csv,
        draft,
    }
}

/// Every drive's headline figure by repeat: degradation (or not) as a test is repeated. The
/// chart shows each repeat as a share of the drive's first, so that a drive losing a third
/// reads the same whether it writes 20 MB/s or 200 beside a RAM disk's 480; the table
/// keeps the figures.
pub(super) fn over_repeats(f: &TestFigures, slot: &str, highlight: Option<&str>) -> Line {
    let scale = Scale::of(
        &f.metric,
        f.bars.iter().flat_map(|b| b.per_repeat.iter().copied()),
    );
    let caption = scale.caption;
    let better = direction(&f.better);
    let most = f.bars.iter().map(|b| b.per_repeat.len()).max().unwrap_or(0);
    // The export names its unit, the chart's.
    let mut csv = format!("drive,firmware,repeat,{}\n", csv_field(caption));
    for b in &f.bars {
        for (i, v) in b.per_repeat.iter().enumerate() {
            csv.push_str(&format!(
                "{},{},{},{}\n",
                csv_field(&b.drive),
                csv_field(&b.firmware),
                i + 1,
                scale.show(*v)
            ));
        }
    }
    let changes: Vec<Change> = f
        .bars
        .iter()
        .filter_map(|b| match b.per_repeat.as_slice() {
            [first, .., last] => Some(Change {
                drive: &b.drive,
                name: &b.drive_name,
                from: *first,
                to: *last,
            }),
            _ => None,
        })
        .collect();
    let draft = changes_draft("the first repeat to the last", &changes, highlight);
    Line {
        chart: LineChart {
            id: slot.to_string(),
            title: title(f, "over repeats"),
            subtitle: f.workload.clone(),
            // The quantity without its unit (`mean latency`, not `mean latency, ms`): a
            // share has none.
            caption: format!(
                "{} of each repeat, as % of the drive's first · {better}",
                caption.split(", ").next().unwrap_or(caption)
            ),
            x: Axis::new("repeat", AxisScale::FromZero, AxisValues::Counts),
            y: Axis::new(
                "% of the first repeat",
                AxisScale::FromZero,
                AxisValues::Figures,
            ),
            series: in_drive_order(f)
                .into_iter()
                .map(|b| Series {
                    label: b.drive_name.clone(),
                    points: share_of_first(&b.per_repeat)
                        .into_iter()
                        .enumerate()
                        .map(|(i, v)| ((i + 1) as f64, v))
                        .collect(),
                    highlight: highlight == Some(b.drive.as_str()),
                    mark: Mark::Line,
                    color: None,
                })
                .collect(),
            bands: vec![],
            rules: vec![],
            summary: draft.clone(),
        },
        table: TableCtx {
            caption: format!("{}: {caption} by repeat", f.title),
            head: std::iter::once("Drive".to_string())
                .chain((1..=most).map(|r| format!("Repeat {r}")))
                .collect(),
            rows: f
                .bars
                .iter()
                .map(|b| TableRow {
                    cells: std::iter::once(b.drive_name.clone())
                        .chain(
                            (0..most).map(|i| {
                                b.per_repeat.get(i).map_or("–".into(), |v| scale.show(*v))
                            }),
                        )
                        .collect(),
                    highlight: highlight == Some(b.drive.as_str()),
                })
                .collect(),
            folded: most > 12,
            text_columns: 1,
        },
        csv,
        draft,
    }
}

/// Each figure as a percentage of the first (NaN where the first is not above zero).
fn share_of_first(figures: &[f64]) -> Vec<f64> {
    let first = figures.first().copied().unwrap_or(f64::NAN);
    figures
        .iter()
        .map(|v| {
            if first > 0.0 {
                100.0 * v / first
            } else {
                f64::NAN
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn over_repeats_draws_each_repeat_as_a_share_of_the_drives_first() {
        let bar = |drive: &str, per_repeat: Vec<f64>| Bar {
            drive: drive.into(),
            drive_name: drive.into(),
            per_repeat,
            ..Bar::default()
        };
        let f = TestFigures {
            title: "4KB Random Write".into(),
            metric: "mb_per_s".into(),
            better: "higher".into(),
            bars: vec![
                bar("ram", vec![480.0, 480.0, 480.0]),
                bar("g1", vec![26.0, 23.4, 18.2]),
                bar("idle", vec![0.0, 1.0]),
            ],
            ..TestFigures::default()
        };
        let line = over_repeats(&f, "rw.repeats", Some("g1"));
        // The lines in drive order (each drive's colour as on the page's other charts).
        let labels: Vec<&str> = line.chart.series.iter().map(|s| s.label.as_str()).collect();
        assert_eq!(labels, ["g1", "idle", "ram"]);
        let points = |i: usize| line.chart.series[i].points.as_slice();
        // A flat drive at 100% however fast; the G1 loses 10% then 30% of its first.
        assert_eq!(points(2), [(1.0, 100.0), (2.0, 100.0), (3.0, 100.0)]);
        let g1: Vec<f64> = points(0).iter().map(|p| p.1.round()).collect();
        assert_eq!(g1, [100.0, 90.0, 70.0]);
        // No share of a first repeat that did nothing.
        assert!(points(1).iter().all(|p| p.1.is_nan()));
        assert_eq!(line.chart.y.label, "% of the first repeat");
        assert!(line
            .chart
            .caption
            .contains("MB/s of each repeat, as % of the drive's first"));
        // The table and the export keep the figures themselves.
        assert_eq!(line.table.rows[1].cells, ["g1", "26.0", "23.4", "18.2"]);
        let latency = TestFigures {
            metric: "lat_mean_us".into(),
            better: "lower".into(),
            ..f.clone()
        };
        assert_eq!(
            over_repeats(&latency, "rw.repeats", None).chart.caption,
            "mean latency of each repeat, as % of the drive's first · lower is better"
        );
        assert!(line.csv.contains("g1,,3,18.2\n"), "{}", line.csv);
        assert!(line.chart.to_svg().is_ok());
    }
}
