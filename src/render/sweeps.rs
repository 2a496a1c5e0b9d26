//! Sweeps: a test's variants along one numeric dimension (queue depth, block size, threads,
//! write share, offered load) with three values or more, charted as a curve per drive
//! (figure against the swept value), the reviewed drive highlighted, with a table beside
//! it. A dimension of two values stays a paired bar chart ([`super::pairs`]).

use std::collections::BTreeMap;

use crate::analysis::{Bar, TestFigures};
use crate::units::{figure, SizeLabel};

use super::chart::{Axis, AxisScale, AxisValues, LineChart, Mark, Series};
use super::context::{TableCtx, TableRow};
use super::draft::{changes_draft, Change};
use super::format::{csv_field, direction, Scale};
use super::pairs::settings;
use super::timing::Line;

/// The fewest values a dimension needs to be charted as a sweep.
pub(super) const SWEEP_VALUES: usize = 3;

/// One swept value: its number, its label and the variant's figures.
pub(super) struct SweepPoint<'a> {
    /// The swept value (queue depth, bytes, threads, % writes, offered IOPS or MB/s).
    pub value: f64,
    /// The value for people (`QD32`, `128 KiB`).
    pub label: String,
    /// The variant's figures.
    pub figures: &'a TestFigures,
}

/// A test's variants along one dimension, the others equal.
pub(super) struct Sweep<'a> {
    /// The chart and slot id: `test.dimension.others`.
    pub id: String,
    /// The dimension's short name (`qd`, `bs`, `t`, `wr`, `rate`).
    pub dimension: String,
    /// The other dimensions' values, for the title (`compressible`).
    pub context: String,
    /// The points, in order of value.
    pub points: Vec<SweepPoint<'a>>,
}

/// A numeric dimension's value from its token in a variant id: `32`, `128k`, `2p5mbps`.
pub(super) fn token_value(dimension: &str, token: &str) -> Option<f64> {
    match dimension {
        "qd" | "t" | "wr" => token.parse::<u64>().ok().map(|v| v as f64),
        "bs" => {
            let split = token.find(|c: char| !c.is_ascii_digit())?;
            let (n, unit) = token.split_at(split);
            let scale: u64 = match unit {
                "b" => 1,
                "k" => 1 << 10,
                "m" => 1 << 20,
                "g" => 1 << 30,
                "t" => 1 << 40,
                _ => return None,
            };
            Some((n.parse::<u64>().ok()? * scale) as f64)
        }
        "rate" => {
            let n = token
                .strip_suffix("iops")
                .or_else(|| token.strip_suffix("mbps"))?;
            n.replace('p', ".").parse::<f64>().ok()
        }
        _ => None,
    }
}

/// Every sweep of a suite's tests: for each test and dimension, the variants that differ
/// only in it, where it takes [`SWEEP_VALUES`] values or more.
pub(super) fn sweeps<'a>(figures: &'a [TestFigures], suite: &str) -> Vec<Sweep<'a>> {
    // (test, dimension, the others' settings) → points.
    type Key = (String, String, Vec<(String, String)>);
    let mut groups: BTreeMap<Key, (usize, Vec<SweepPoint<'a>>)> = BTreeMap::new();
    for (order, f) in figures.iter().filter(|f| f.suite == suite).enumerate() {
        let set = settings(&f.variant);
        let labels: Vec<&str> = f.variant_label.split(", ").collect();
        for (k, (dimension, token)) in set.iter().enumerate() {
            let Some(value) = token_value(dimension, token) else {
                continue;
            };
            let others: Vec<(String, String)> = set
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != k)
                .map(|(_, s)| s.clone())
                .collect();
            let entry = groups
                .entry((f.test.clone(), dimension.clone(), others))
                .or_insert((order, Vec::new()));
            entry.1.push(SweepPoint {
                value,
                label: labels.get(k).map(|l| l.to_string()).unwrap_or_default(),
                figures: f,
            });
        }
    }
    // In the suite's order of tests (the first variant of each group), then by key.
    let mut found: Vec<(usize, Key, Vec<SweepPoint<'a>>)> = groups
        .into_iter()
        .filter(|(_, (_, points))| points.len() >= SWEEP_VALUES)
        .map(|(key, (order, points))| (order, key, points))
        .collect();
    found.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(&b.1)));
    found
        .into_iter()
        .map(|(_, (test, dimension, others), mut points)| {
            points.sort_by(|a, b| a.value.total_cmp(&b.value));
            let first = points[0].figures;
            let k = settings(&first.variant)
                .iter()
                .position(|(d, _)| *d == dimension)
                .unwrap_or(0);
            let context: Vec<&str> = first
                .variant_label
                .split(", ")
                .enumerate()
                .filter(|(j, _)| *j != k)
                .map(|(_, l)| l)
                .collect();
            let others: Vec<String> = others.iter().map(|(d, v)| format!("{d}-{v}")).collect();
            Sweep {
                id: format!(
                    "{test}.{dimension}.{}",
                    if others.is_empty() {
                        "all".to_string()
                    } else {
                        others.join("_")
                    }
                ),
                dimension,
                context: context.join(", "),
                points,
            }
        })
        .collect()
}

/// Whether `dimension` of `test` takes enough values to be a sweep (and so no pairs).
pub(super) fn is_swept(figures: &[&TestFigures], test: &str, dimension: &str) -> bool {
    let mut values: Vec<String> = figures
        .iter()
        .filter(|f| f.test == test)
        .filter_map(|f| {
            settings(&f.variant)
                .into_iter()
                .find(|(d, _)| d == dimension)
                .map(|(_, v)| v)
        })
        .filter(|v| token_value(dimension, v).is_some())
        .collect();
    values.sort();
    values.dedup();
    values.len() >= SWEEP_VALUES
}

/// How a dimension reads on an axis and in a title.
fn words(dimension: &str) -> &'static str {
    match dimension {
        "qd" => "queue depth",
        "bs" => "block size",
        "t" => "threads",
        "wr" => "share of writes",
        _ => "offered load",
    }
}

/// Whether each value is at least twice the one before: a log axis in base two.
fn doubling(values: &[f64]) -> bool {
    values.len() >= 2 && values.windows(2).all(|w| w[0] > 0.0 && w[1] >= 2.0 * w[0])
}

/// The x axis of a sweep and the x of a drive's point: the swept value, or for an offered
/// load the IOPS the drive delivered (the QoS curve).
fn x_axis(s: &Sweep) -> Axis {
    let values: Vec<f64> = s.points.iter().map(|p| p.value).collect();
    let log = doubling(&values);
    let scale = if log {
        AxisScale::Log2
    } else {
        AxisScale::FromZero
    };
    let suffix = if log { " (log scale)" } else { "" };
    match s.dimension.as_str() {
        "bs" => Axis::new(format!("block size{suffix}"), scale, AxisValues::Sizes),
        "wr" => Axis::new(
            "writes, % of I/Os",
            AxisScale::FromZero,
            AxisValues::Figures,
        ),
        "rate" => Axis::new("delivered IOPS", AxisScale::FromZero, AxisValues::Figures),
        d => Axis::new(format!("{}{suffix}", words(d)), scale, AxisValues::Figures),
    }
}

fn x_of(s: &Sweep, p: &SweepPoint, b: &Bar) -> f64 {
    if s.dimension == "rate" {
        b.iops
    } else {
        p.value
    }
}

/// The first variant's workload, its swept value given as the range swept
/// (`QD1–128`, `512 B–8 MiB`).
fn subtitle(s: &Sweep) -> String {
    let (first, last) = (&s.points[0], &s.points[s.points.len() - 1]);
    let text = first.figures.workload.clone();
    let (a, b) = (first.value, last.value);
    let replaced = match s.dimension.as_str() {
        "qd" => text.replacen(
            &format!("QD{}", a as u64),
            &format!("QD{}–{}", a as u64, b as u64),
            1,
        ),
        "bs" => text.replacen(
            &SizeLabel(a as u64).to_string(),
            &format!("{}–{}", SizeLabel(a as u64), SizeLabel(b as u64)),
            1,
        ),
        "rate" => {
            let (from, to) = (
                first.label.replace(" offered", ""),
                last.label.replace(" offered", ""),
            );
            // `1000–10000 IOPS` where both are in one unit.
            let range = match (from.rsplit_once(' '), to.rsplit_once(' ')) {
                (Some((x, u)), Some((y, v))) if u == v => format!("{x}–{y} {u}"),
                _ => format!("{from}–{to}"),
            };
            text.replacen(&from, &range, 1)
        }
        "wr" => {
            let op = match a as u64 {
                0 => "read".to_string(),
                100 => "write".to_string(),
                w => format!("{}/{w} read/write", 100 - w),
            };
            text.replacen(
                &format!(" {op},"),
                &format!(" read/write mix, {}–{}% writes,", a as u64, b as u64),
                1,
            )
        }
        _ => text.clone(),
    };
    if replaced != text {
        replaced
    } else {
        format!(
            "{text}; {} swept from {} to {}",
            words(&s.dimension),
            first.label,
            last.label
        )
    }
}

/// Each drive's figure at each swept value, best drive first at the last value.
fn drives<'a>(s: &'a Sweep) -> Vec<(&'a Bar, Vec<Option<&'a Bar>>)> {
    let last = s.points[s.points.len() - 1].figures;
    let mut ids: Vec<&str> = Vec::new();
    // The drives of the last point in its order (best first), then any others by id.
    for b in &last.bars {
        ids.push(&b.drive);
    }
    let mut rest: Vec<&str> = s
        .points
        .iter()
        .flat_map(|p| p.figures.bars.iter().map(|b| b.drive.as_str()))
        .filter(|d| !ids.contains(d))
        .collect();
    rest.sort();
    rest.dedup();
    ids.extend(rest);
    ids.into_iter()
        .filter_map(|id| {
            let at: Vec<Option<&Bar>> = s
                .points
                .iter()
                .map(|p| p.figures.bars.iter().find(|b| b.drive == id))
                .collect();
            let any = at.iter().flatten().next().copied()?;
            Some((any, at))
        })
        .collect()
}

/// A sweep as a line chart with its table (a row per drive, a column per swept value),
/// its CSV and a drafted sentence.
pub(super) fn sweep_chart(s: &Sweep, slot: &str, highlight: Option<&str>) -> Line {
    let f = s.points[0].figures;
    let rows = drives(s);
    let scale = Scale::of(
        &f.metric,
        rows.iter()
            .flat_map(|(_, at)| at.iter().flatten().map(|b| b.value)),
    );
    // Latencies on a log axis in µs (a QoS curve spans decades), throughput from zero.
    let latency_metric = f.metric.starts_with("lat_");
    let (y_axis, y_of) = if latency_metric {
        (
            Axis::new(
                format!(
                    "{} (log scale)",
                    scale
                        .caption
                        .trim_end_matches(", µs")
                        .trim_end_matches(", ms")
                ),
                AxisScale::Log,
                AxisValues::Latency,
            ),
            1.0,
        )
    } else {
        (
            Axis::new(scale.caption, AxisScale::FromZero, AxisValues::Figures),
            scale.factor,
        )
    };
    // A line per drive in the order of drive ids, so a drive keeps its colour from one
    // sweep to the next; the table lists them best first.
    let mut by_id: Vec<&(&Bar, Vec<Option<&Bar>>)> = rows.iter().collect();
    by_id.sort_by(|a, b| a.0.drive.cmp(&b.0.drive));
    let series = by_id
        .iter()
        .map(|(b, at)| Series {
            label: b.drive_name.clone(),
            points: s
                .points
                .iter()
                .zip(at)
                .filter_map(|(p, bar)| bar.map(|bar| (x_of(s, p, bar), bar.value * y_of)))
                .collect(),
            highlight: highlight == Some(b.drive.as_str()),
            mark: Mark::LineDots,
            color: None,
        })
        .collect();
    let mut csv = format!(
        "drive,firmware,{d},{d}_value,{},delivered_iops\n",
        f.metric,
        d = s.dimension
    );
    for (b, at) in &rows {
        for (p, bar) in s.points.iter().zip(at) {
            if let Some(bar) = bar {
                csv.push_str(&format!(
                    "{},{},{},{},{},{}\n",
                    csv_field(&b.drive),
                    csv_field(&bar.firmware),
                    csv_field(&p.label),
                    figure(p.value),
                    figure(bar.value),
                    figure(bar.iops)
                ));
            }
        }
    }
    let cell = |bar: Option<&Bar>| match bar {
        Some(bar) if s.dimension == "rate" => {
            format!("{} at {} IOPS", scale.show(bar.value), figure(bar.iops))
        }
        Some(bar) => scale.show(bar.value),
        None => "–".into(),
    };
    let table_rows = rows
        .iter()
        .map(|(b, at)| TableRow {
            cells: std::iter::once(b.drive_name.clone())
                .chain(at.iter().map(|bar| cell(*bar)))
                .collect(),
            highlight: highlight == Some(b.drive.as_str()),
        })
        .collect();
    let (first, last) = (&s.points[0], &s.points[s.points.len() - 1]);
    let changes: Vec<Change> = rows
        .iter()
        .filter_map(|(b, at)| {
            Some(Change {
                name: &b.drive_name,
                drive: &b.drive,
                from: at.first().copied().flatten()?.value,
                to: at.last().copied().flatten()?.value,
            })
        })
        .collect();
    let mut draft = changes_draft(
        &format!("{} to {}", first.label, last.label),
        &changes,
        highlight,
    );
    let higher = f.better == "higher";
    if let Some((b, at)) = rows
        .iter()
        .find(|(b, _)| highlight == Some(b.drive.as_str()))
    {
        let best = s
            .points
            .iter()
            .zip(at)
            .filter_map(|(p, bar)| Some((p, (*bar)?)))
            .reduce(|x, y| {
                let better = if higher {
                    y.1.value > x.1.value
                } else {
                    y.1.value < x.1.value
                };
                if better {
                    y
                } else {
                    x
                }
            });
        if let Some((p, bar)) = best {
            draft.push_str(&format!(
                " The {} does best at {}: {} {}.",
                b.drive_name,
                p.label,
                scale.show(bar.value),
                scale.unit
            ));
        }
    }
    let summary = rows
        .iter()
        .map(|(b, at)| {
            let shown: Vec<String> = s
                .points
                .iter()
                .zip(at)
                .filter_map(|(p, bar)| Some(format!("{} {}", p.label, cell(Some((*bar)?)))))
                .collect();
            format!("{}: {}", b.drive_name, shown.join(", "))
        })
        .collect::<Vec<_>>()
        .join("; ");
    let mut title = format!("{}: by {}", f.title, words(&s.dimension));
    if !s.context.is_empty() {
        title.push_str(&format!(" ({})", s.context));
    }
    Line {
        chart: LineChart {
            id: slot.to_string(),
            title,
            subtitle: subtitle(s),
            caption: format!(
                "{} · {} · a line per drive",
                if latency_metric {
                    y_axis.label.replace(" (log scale)", "")
                } else {
                    scale.caption.to_string()
                },
                direction(&f.better)
            ),
            x: x_axis(s),
            y: y_axis.clone(),
            series,
            bands: vec![],
            rules: vec![],
            summary: format!("{summary}."),
        },
        table: TableCtx {
            caption: format!("{}: {} by {}", f.title, scale.caption, words(&s.dimension)),
            head: std::iter::once("Drive".to_string())
                .chain(s.points.iter().map(|p| p.label.clone()))
                .collect(),
            rows: table_rows,
            folded: false,
            text_columns: 1,
        },
        csv,
        draft,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_read_back_as_values() {
        assert_eq!(token_value("qd", "32"), Some(32.0));
        assert_eq!(token_value("bs", "128k"), Some(131072.0));
        assert_eq!(token_value("bs", "512b"), Some(512.0));
        assert_eq!(token_value("bs", "8m"), Some(8388608.0));
        assert_eq!(token_value("rate", "2p5mbps"), Some(2.5));
        assert_eq!(token_value("rate", "50000iops"), Some(50000.0));
        assert_eq!(token_value("data", "compressible"), None);
        assert_eq!(token_value("bs", "12q"), None);
        assert!(doubling(&[1.0, 2.0, 4.0, 32.0]));
        assert!(!doubling(&[0.0, 10.0, 20.0]));
    }
}
