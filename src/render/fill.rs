//! The whole-drive fill chart (TechPowerUp's SLC-cache chart): each drive's write speed
//! against the data written, with the cache size and the speeds in it, after it and over
//! the whole fill in the table beside it.

use crate::analysis::{Bar, Fill, TestFigures, FILL_DROP, FILL_POINTS};
use crate::units::figure;

use super::chart::{Axis, AxisScale, AxisValues, LineChart, Mark, Series};
use super::context::{test_title, TableCtx, TableRow};
use super::format::csv_field;
use super::timing::{in_drive_order, Line};

/// The cache size as the table shows it: `32.5 GB`, or `no drop` where the speed held.
fn cache(f: &Fill) -> String {
    f.cache_gb
        .map_or_else(|| "no drop".into(), |gb| format!("{} GB", figure(gb)))
}

/// The sentence drafted for a fill: the reviewed drive's speed in and after its cache, and
/// over the whole fill.
fn fill_draft(b: &Bar, f: &Fill) -> String {
    match (f.cache_gb, f.after_cache_mb_per_s) {
        (Some(gb), Some(after)) => format!(
            "The {} wrote at {} MB/s for its first {} GB, then at {} MB/s; over the whole \
             {} GB it averaged {} MB/s.",
            b.drive_name,
            figure(f.in_cache_mb_per_s),
            figure(gb),
            figure(after),
            figure(f.written_gb),
            figure(f.average_mb_per_s)
        ),
        _ => format!(
            "The {} wrote its {} GB without a drop in speed, at {} MB/s on average.",
            b.drive_name,
            figure(f.written_gb),
            figure(f.average_mb_per_s)
        ),
    }
}

/// Whether a test's chart has a fill to draw.
pub(super) fn has_fill(f: &TestFigures) -> bool {
    f.bars.iter().any(|b| b.fill.is_some())
}

/// A drive's bar with its fill, if it has one.
fn with_fill(b: &Bar) -> Option<(&Bar, &Fill)> {
    Some((b, b.fill.as_ref()?))
}

/// The fill chart of a test: a line per drive (in drive order, so each keeps its colour),
/// the reviewed drive highlighted; the table lists the drives as the bar chart does.
pub(super) fn fill_chart(f: &TestFigures, slot: &str, highlight: Option<&str>) -> Line {
    let filled: Vec<(&Bar, &Fill)> = f.bars.iter().filter_map(with_fill).collect();
    let by_id: Vec<(&Bar, &Fill)> = in_drive_order(f)
        .into_iter()
        .filter_map(with_fill)
        .collect();
    let series = by_id
        .iter()
        .map(|(b, fill)| Series {
            label: b.drive_name.clone(),
            points: fill.points.iter().map(|p| (p.gb, p.mb_per_s)).collect(),
            highlight: highlight == Some(b.drive.as_str()),
            mark: Mark::Line,
            color: None,
        })
        .collect();
    let mut csv = String::from("drive,firmware,gb_written,mb_per_s\n");
    for (b, fill) in &by_id {
        for p in &fill.points {
            csv.push_str(&format!(
                "{},{},{},{}\n",
                csv_field(&b.drive),
                csv_field(&b.firmware),
                figure(p.gb),
                figure(p.mb_per_s)
            ));
        }
    }
    let optional = |v: Option<f64>| v.map_or_else(|| "–".into(), figure);
    let rows = filled
        .iter()
        .map(|(b, fill)| TableRow {
            cells: vec![
                b.drive_name.clone(),
                cache(fill),
                optional(fill.cache_gb.map(|_| fill.in_cache_mb_per_s)),
                optional(fill.after_cache_mb_per_s),
                figure(fill.average_mb_per_s),
            ],
            highlight: highlight == Some(b.drive.as_str()),
        })
        .collect();
    let draft = filled
        .iter()
        .find(|(b, _)| highlight == Some(b.drive.as_str()))
        .or(filled.first())
        .map(|(b, fill)| fill_draft(b, fill))
        .unwrap_or_default();
    let summary = filled
        .iter()
        .map(|(b, fill)| {
            format!(
                "{}: cache {}, {} MB/s in it, {} MB/s after, {} MB/s over the whole fill",
                b.drive_name,
                cache(fill),
                figure(fill.in_cache_mb_per_s),
                optional(fill.after_cache_mb_per_s),
                figure(fill.average_mb_per_s)
            )
        })
        .collect::<Vec<_>>()
        .join("; ");
    Line {
        chart: LineChart {
            id: slot.to_string(),
            title: format!("{}: write speed over the fill", test_title(f)),
            subtitle: f.workload.clone(),
            caption: format!(
                "MB/s over equal stretches of the data written (up to {FILL_POINTS}) · higher \
                 is better"
            ),
            x: Axis::new("data written, GB", AxisScale::FromZero, AxisValues::Figures),
            y: Axis::new(
                "write speed, MB/s",
                AxisScale::FromZero,
                AxisValues::Figures,
            ),
            series,
            bands: vec![],
            rules: vec![],
            summary: format!("{summary}."),
        },
        table: TableCtx {
            caption: format!(
                "{}: the cache (data written before the speed drops by {:.0}% or more) and \
                 the speeds, MB/s",
                f.title,
                (1.0 - FILL_DROP) * 100.0
            ),
            head: [
                "Drive",
                "Cache",
                "In the cache",
                "After the cache",
                "Whole fill",
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
