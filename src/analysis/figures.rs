//! The figures charts and tables show: each test variant's results across drives, a bar
//! per drive averaged over its repeats (or its best run), and each drive's firmwares.

use std::collections::BTreeMap;

use serde::Serialize;

use super::fill::Fill;
use super::job::{JobSummary, TimePoint, CDF_PERCENTILES};
use crate::store::StoredJob;

/// One drive's figures in one chart: a test variant, averaged over its repeats.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Bar {
    /// Drive id.
    pub drive: String,
    /// Drive name.
    pub drive_name: String,
    /// Firmware.
    pub firmware: String,
    /// The headline figure: the mean over repeats, or the best repeat's where the test
    /// shows the best ([`TestFigures::of_repeats`]).
    pub value: f64,
    /// The headline figure's mean over the repeats (`value` itself unless the best is shown).
    pub mean: f64,
    /// Repeats.
    pub repeats: u32,
    /// Delivered I/Os per second (as `value` is taken: mean or best run): a rate sweep's
    /// x axis.
    pub iops: f64,
    /// Mean latency, µs (mean over repeats).
    pub lat_mean_us: f64,
    /// Median (50th percentile) latency, µs (mean over repeats).
    pub lat_p50_us: f64,
    /// 99th percentile latency, µs (mean over repeats).
    pub lat_p99_us: f64,
    /// 99.9th percentile latency, µs (mean over repeats).
    pub lat_p999_us: f64,
    /// 99.99th percentile latency, µs (mean over repeats): absent unless every repeat had
    /// the I/Os for it.
    pub lat_p9999_us: Option<f64>,
    /// 99.9999th percentile latency, µs, likewise.
    pub lat_p999999_us: Option<f64>,
    /// Maximum latency, µs (maximum over repeats).
    pub lat_max_us: f64,
    /// The headline figure of each repeat, in order.
    pub per_repeat: Vec<f64>,
    /// Latency at each of [`CDF_PERCENTILES`], µs: see [`cdf_over_repeats`].
    pub cdf: Vec<f64>,
    /// Each repeat's run over time, in order.
    #[serde(skip)]
    pub runs: Vec<RunTrace>,
    /// A whole-drive fill's curve and figures: its first run's.
    #[serde(skip)]
    pub fill: Option<Fill>,
}

/// One repeat's run over time.
#[derive(Debug, Clone)]
pub struct RunTrace {
    /// Repeat number.
    pub repeat: u32,
    /// Length of the run, s.
    pub duration_s: f64,
    /// The SNIA measurement window, seconds from the run's start.
    pub window_s: Option<(f64, f64)>,
    /// The run in intervals.
    pub timeline: Vec<TimePoint>,
}

/// The figures of one variant of one test across drives.
#[derive(Debug, Clone, Default, Serialize)]
pub struct TestFigures {
    /// Suite name.
    pub suite: String,
    /// Suite title.
    pub suite_title: String,
    /// Test id.
    pub test: String,
    /// Test title.
    pub title: String,
    /// Variant id.
    pub variant: String,
    /// Variant label.
    pub variant_label: String,
    /// The workload in words.
    pub workload: String,
    /// Headline metric key.
    pub metric: String,
    /// `higher` or `lower`.
    pub better: String,
    /// Which figure of the repeats the bars show: their mean, or the best run.
    pub of_repeats: crate::workload::OfRepeats,
    /// One bar per drive, best first (ties by drive id).
    pub bars: Vec<Bar>,
}

impl TestFigures {
    /// The chart and commentary slot id: `test.variant`.
    pub fn slot_id(&self) -> String {
        format!("{}.{}", self.test, self.variant)
    }
}

/// How a drive's firmwares are ordered, the current one last: the one its drive file names
/// (in `named`, drive id → firmware) last, as it is what the drive runs now; the others by
/// when their last job finished (the wall clock a real drive's manifest records; a
/// simulated drive's records none, its results being the same whenever they are
/// computed), then by name.
type FirmwareOrder<'a> = (bool, Option<&'a str>, &'a str);

fn firmware_order<'a>(
    m: &'a crate::store::JobManifest,
    named: &BTreeMap<String, String>,
) -> FirmwareOrder<'a> {
    (
        named.get(&m.drive) == Some(&m.firmware),
        m.finished_at.as_deref(),
        &m.firmware,
    )
}

/// Each drive's firmwares with results, the current one last (see `FirmwareOrder`): the
/// firmware history pages list them, the last two compared.
pub fn firmware_history(
    jobs: &[(StoredJob, JobSummary)],
    named: &BTreeMap<String, String>,
) -> BTreeMap<String, Vec<String>> {
    let mut latest: BTreeMap<&str, BTreeMap<&str, FirmwareOrder>> = BTreeMap::new();
    for (j, _) in jobs {
        let m = &j.manifest;
        let cand = firmware_order(m, named);
        let e = latest
            .entry(&m.drive)
            .or_default()
            .entry(&m.firmware)
            .or_insert(cand);
        *e = (*e).max(cand);
    }
    latest
        .into_iter()
        .map(|(drive, fws)| {
            let mut v: Vec<FirmwareOrder> = fws.into_values().collect();
            v.sort();
            let fws = v.into_iter().map(|(_, _, fw)| fw.to_string()).collect();
            (drive.to_string(), fws)
        })
        .collect()
}

/// For each drive, the firmware whose results are current: the last of its
/// [`firmware_history`], so the one its drive file names if it has results, else the one
/// whose job finished last (then by name). Re-running a drive under new firmware makes the
/// new results current, and a simulated drive's current results do not depend on when
/// anything ran.
pub fn current_firmware(history: &BTreeMap<String, Vec<String>>) -> BTreeMap<String, String> {
    history
        .iter()
        .filter_map(|(d, fws)| Some((d.clone(), fws.last()?.clone())))
        .collect()
}

/// Groups the current results (`current`: each drive's current firmware, from
/// [`current_firmware`]) by suite, test and variant, in the suite's order where `order`
/// gives it (`test.variant` slot ids by suite, as the suite expands them), and sorts each
/// chart's bars best first.
pub fn figures(
    jobs: &[(StoredJob, JobSummary)],
    order: &BTreeMap<String, Vec<String>>,
    current: &BTreeMap<String, String>,
) -> Vec<TestFigures> {
    figures_where(jobs, order, |m| current.get(&m.drive) == Some(&m.firmware))
}

/// Like [`figures`], over the results `keep` selects (e.g. one drive under one firmware).
pub fn figures_where(
    jobs: &[(StoredJob, JobSummary)],
    order: &BTreeMap<String, Vec<String>>,
    keep: impl Fn(&crate::store::JobManifest) -> bool,
) -> Vec<TestFigures> {
    grouped(jobs, order, keep, false)
}

/// Every result in the lab, a bar per drive and firmware (a drive's old firmware competes
/// with its new one), best first: the per-test leaderboards.
pub fn leaderboard(
    jobs: &[(StoredJob, JobSummary)],
    order: &BTreeMap<String, Vec<String>>,
) -> Vec<TestFigures> {
    grouped(jobs, order, |_| true, true)
}

/// One drive's bar of a chart, from its runs in repeat order: the mean of each figure over
/// the repeats (the best run's figures where the test shows the best), the longest wait of
/// all, and each repeat's figure and timeline.
fn bar(drive: String, drive_name: String, f: &TestFigures, runs: &[&JobSummary]) -> Bar {
    let metric = f.metric.as_str();
    let n = runs.len() as f64;
    let mean = |g: &dyn Fn(&JobSummary) -> f64| runs.iter().map(|s| g(s)).sum::<f64>() / n;
    // The best run (the first of equals): its figures, where the test shows the best.
    let higher = f.better == "higher";
    let best = runs
        .iter()
        .copied()
        .reduce(|a, b| {
            let (x, y) = (a.figure(metric), b.figure(metric));
            if (higher && y > x) || (!higher && y < x) {
                b
            } else {
                a
            }
        })
        .filter(|_| f.of_repeats == crate::workload::OfRepeats::Best);
    // A figure as the bar shows it: the best run's, else the mean over the runs.
    let shown = |g: &dyn Fn(&JobSummary) -> f64| best.map_or_else(|| mean(g), g);
    Bar {
        drive,
        drive_name,
        firmware: runs[0].firmware.clone(),
        value: shown(&|s| s.figure(metric)),
        mean: mean(&|s| s.figure(metric)),
        repeats: runs.len() as u32,
        iops: shown(&|s| s.iops),
        fill: runs.iter().find_map(|s| s.fill.clone()),
        lat_mean_us: shown(&|s| s.lat_mean_us),
        lat_p50_us: shown(&|s| s.lat_p50_us),
        lat_p99_us: shown(&|s| s.lat_p99_us),
        lat_p999_us: shown(&|s| s.lat_p999_us),
        lat_p9999_us: runs
            .iter()
            .all(|s| s.lat_p9999_us.is_some())
            .then(|| shown(&|s| s.lat_p9999_us.unwrap_or(f64::NAN))),
        lat_p999999_us: runs
            .iter()
            .all(|s| s.lat_p999999_us.is_some())
            .then(|| shown(&|s| s.lat_p999999_us.unwrap_or(f64::NAN))),
        lat_max_us: runs.iter().map(|s| s.lat_max_us).fold(0.0, f64::max),
        per_repeat: runs.iter().map(|s| s.figure(metric)).collect(),
        cdf: cdf_over_repeats(&runs.iter().map(|s| s.cdf.as_slice()).collect::<Vec<_>>()),
        runs: runs
            .iter()
            .map(|s| RunTrace {
                repeat: s.repeat,
                duration_s: s.duration_s,
                window_s: s.window_s,
                timeline: s.timeline.clone(),
            })
            .collect(),
    }
}

fn grouped(
    jobs: &[(StoredJob, JobSummary)],
    order: &BTreeMap<String, Vec<String>>,
    keep: impl Fn(&crate::store::JobManifest) -> bool,
    by_firmware: bool,
) -> Vec<TestFigures> {
    /// The jobs of one chart, by drive.
    struct Group<'a> {
        figures: TestFigures,
        runs: BTreeMap<(String, String), Vec<&'a JobSummary>>,
        names: BTreeMap<String, String>,
    }
    let mut groups: BTreeMap<(String, String, String), Group> = BTreeMap::new();
    for (j, s) in jobs {
        let m = &j.manifest;
        if !keep(m) {
            continue;
        }
        let key = (m.suite.clone(), m.test.clone(), m.variant.clone());
        let group = groups.entry(key).or_insert_with(|| Group {
            figures: TestFigures {
                suite: m.suite.clone(),
                suite_title: m.suite_title.clone(),
                test: m.test.clone(),
                title: m.title.clone(),
                variant: m.variant.clone(),
                variant_label: m.variant_label.clone(),
                workload: m.workload.clone(),
                metric: m.metric.clone(),
                better: m.better.clone(),
                of_repeats: m.of_repeats,
                bars: vec![],
            },
            runs: BTreeMap::new(),
            names: BTreeMap::new(),
        });
        let fw = if by_firmware {
            m.firmware.clone()
        } else {
            String::new()
        };
        group.runs.entry((m.drive.clone(), fw)).or_default().push(s);
        group.names.insert(m.drive.clone(), m.drive_name.clone());
    }
    let mut out: Vec<TestFigures> = groups
        .into_values()
        .map(
            |Group {
                 figures: mut f,
                 runs: by_drive,
                 names,
             }| {
                for ((drive, _), mut runs) in by_drive {
                    runs.sort_by_key(|s| s.repeat);
                    let name = names[&drive].clone();
                    let b = bar(drive, name, &f, &runs);
                    f.bars.push(b);
                }
                let higher = f.better == "higher";
                f.bars.sort_by(|a, b| {
                    let ord = a
                        .value
                        .partial_cmp(&b.value)
                        .unwrap_or(std::cmp::Ordering::Equal);
                    (if higher { ord.reverse() } else { ord })
                        .then_with(|| a.drive.cmp(&b.drive))
                        .then_with(|| a.firmware.cmp(&b.firmware))
                });
                f
            },
        )
        .collect();
    // The test's first chart in the suite, then the chart itself; unknown ones last.
    let rank = |f: &TestFigures| {
        let slots = order.get(&f.suite);
        let test = format!("{}.", f.test);
        let slot = f.slot_id();
        let at = |hit: &dyn Fn(&String) -> bool| {
            slots
                .and_then(|s| s.iter().position(hit))
                .unwrap_or(usize::MAX)
        };
        (at(&|s| s.starts_with(&test)), at(&|s| *s == slot))
    };
    out.sort_by_cached_key(|f| (f.suite.clone(), rank(f), f.test.clone(), f.variant.clone()));
    out
}

/// The latency distribution of several repeats from each one's latency at every
/// [`CDF_PERCENTILES`]: the mean over repeats of each percentile, but for the minimum and
/// the maximum, which are those of all the repeats (as [`Bar::lat_max_us`] is), so a
/// chart's figures and its distribution give one longest wait.
pub fn cdf_over_repeats(cdfs: &[&[f64]]) -> Vec<f64> {
    let at = |k: usize| {
        cdfs.iter()
            .map(move |c| c.get(k).copied().unwrap_or(f64::NAN))
    };
    CDF_PERCENTILES
        .iter()
        .enumerate()
        .map(|(k, &p)| {
            if p == 0.0 {
                at(k).fold(f64::INFINITY, f64::min)
            } else if p == 100.0 {
                at(k).fold(f64::NEG_INFINITY, f64::max)
            } else {
                at(k).sum::<f64>() / cdfs.len() as f64
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_distribution_over_repeats_keeps_the_longest_wait_of_all() {
        // Three repeats whose longest waits were 66, 106 and 81 ms.
        let repeat = |low: f64, mid: f64, max: f64| {
            CDF_PERCENTILES
                .iter()
                .map(|&p| match p {
                    0.0 => low,
                    100.0 => max,
                    _ => mid,
                })
                .collect::<Vec<f64>>()
        };
        let runs = [
            repeat(400.0, 430.0, 66_000.0),
            repeat(390.0, 440.0, 106_000.0),
            repeat(410.0, 450.0, 81_000.0),
        ];
        let cdf = cdf_over_repeats(&runs.iter().map(Vec::as_slice).collect::<Vec<_>>());
        assert_eq!(cdf.first(), Some(&390.0));
        assert_eq!(cdf.last(), Some(&106_000.0));
        assert_eq!(cdf[CDF_PERCENTILES.len() / 2], 440.0);
    }
}
