//! Figures as the site writes them: latency in µs or ms, the scale of a chart's unit,
//! CSV fields, which way is better, and the text a chart's fingerprint is taken of.

use crate::analysis::TestFigures;
use crate::config::sha256_hex;
use crate::units::{figure, figure_to};

/// The smallest latency in µs shown in ms: one that would print as `1000 µs`.
pub(super) const MS_FROM_US: f64 = 999.5;

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
    latency_to(us, 0)
}

/// `us` as [`latency`] writes it, with `extra` more decimals.
fn latency_to(us: f64, extra: usize) -> String {
    if !us.is_finite() {
        "–".into()
    } else if us >= MS_FROM_US {
        format!("{} ms", figure_to(us / 1000.0, extra))
    } else {
        format!("{} µs", figure_to(us, extra))
    }
}

/// A table row's latencies, in its columns' order (`None`: too few I/Os for the figure, –),
/// as [`latency`] writes them (three significant digits); but where two neighbours that
/// differ would read alike (past a –) and one decimal more parts them, the whole row with
/// it, so a row does not show a tail flatter than it is (a merge's 778,999 and 779,073 µs
/// read 779.0 and 779.1 ms, not 779 and 779). Figures that differ by less stay alike.
pub fn latency_row(values: &[Option<f64>]) -> Vec<String> {
    let texts = |extra: usize| -> Vec<String> {
        let cell = |v: &Option<f64>| v.map_or("–".into(), |us| latency_to(us, extra));
        values.iter().map(cell).collect()
    };
    // The figures present, in order: a column without one (–) parts no pair.
    let shown: Vec<usize> = (0..values.len()).filter(|&i| values[i].is_some()).collect();
    let apart = |t: &[String]| {
        shown
            .windows(2)
            .all(|w| values[w[0]] == values[w[1]] || t[w[0]] != t[w[1]])
    };
    let plain = texts(0);
    if apart(&plain) {
        return plain;
    }
    let wider = texts(1);
    if apart(&wider) {
        wider
    } else {
        plain
    }
}

/// How a metric is shown: its unit, the caption's quantity and the factor from the stored
/// figure. Latency is stored in µs; a chart or table whose largest latency reaches a
/// millisecond shows all of its latencies in ms, so a JMF602's stalls read 380 ms, not
/// 380,505 µs.
#[derive(Debug, Clone, Copy)]
pub(super) struct Scale {
    pub(super) unit: &'static str,
    pub(super) caption: &'static str,
    pub(super) factor: f64,
}

impl Scale {
    /// The scale for `metric` over the figures `values` shown together.
    pub(super) fn of(metric: &str, values: impl IntoIterator<Item = f64>) -> Scale {
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
    pub(super) fn at(&self, v: f64) -> f64 {
        v * self.factor
    }

    /// A stored figure in this scale's unit, printed.
    pub(super) fn show(&self, v: f64) -> String {
        figure(self.at(v))
    }
}

/// `higher is better` or `lower is better`, as a chart states it.
pub(super) fn direction(better: &str) -> &'static str {
    if better == "higher" {
        "higher is better"
    } else {
        "lower is better"
    }
}

/// Each bar's drive, firmware and figure, a line each: what a chart's fingerprint is of.
pub(super) fn figures_text(f: &TestFigures) -> String {
    f.bars
        .iter()
        .map(|b| format!("{}|{}|{}\n", b.drive, b.firmware, figure(b.value)))
        .collect()
}

/// The fingerprint of a chart's figures: what a commentary slot was written against.
pub fn fingerprint(f: &TestFigures) -> String {
    sha256_hex(figures_text(f).as_bytes())[..12].to_string()
}
