//! Analysis: per-job figures computed from the raw samples with polars, and the per-test
//! figures that charts and tables show.

use std::collections::BTreeMap;

use polars::prelude::*;
use serde::Serialize;

use crate::store::StoredJob;

/// The figures of one job (one repeat of one variant of one test on one drive).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JobSummary {
    /// Drive id.
    pub drive: String,
    /// Firmware the results are filed under.
    pub firmware: String,
    /// Suite name.
    pub suite: String,
    /// Test id.
    pub test: String,
    /// Variant id.
    pub variant: String,
    /// Repeat number.
    pub repeat: u32,
    /// Measured I/Os.
    pub ios: u64,
    /// I/Os per second over the measured interval.
    pub iops: f64,
    /// Decimal MB/s over the measured interval.
    pub mb_per_s: f64,
    /// Mean latency, µs.
    pub lat_mean_us: f64,
    /// Median latency, µs.
    pub lat_p50_us: f64,
    /// 99th percentile latency, µs.
    pub lat_p99_us: f64,
    /// 99.9th percentile latency, µs.
    pub lat_p999_us: f64,
    /// Maximum latency, µs.
    pub lat_max_us: f64,
    /// The same figures for reads and for writes alone (ordered read, write).
    pub by_op: Vec<OpSummary>,
}

/// One operation's figures within a job (IOPS and MB/s over the job's whole interval).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OpSummary {
    /// `read` or `write`.
    pub op: String,
    /// I/Os of this kind.
    pub ios: u64,
    /// Their rate over the job's interval.
    pub iops: f64,
    /// Their decimal MB/s over the job's interval.
    pub mb_per_s: f64,
    /// Mean latency, µs.
    pub lat_mean_us: f64,
    /// 99th percentile latency, µs.
    pub lat_p99_us: f64,
    /// Maximum latency, µs.
    pub lat_max_us: f64,
}

impl JobSummary {
    /// The value of a figure by its metric key.
    pub fn figure(&self, key: &str) -> f64 {
        match key {
            "iops" => self.iops,
            "mb_per_s" => self.mb_per_s,
            "lat_mean_us" => self.lat_mean_us,
            "lat_p50_us" => self.lat_p50_us,
            "lat_p99_us" => self.lat_p99_us,
            "lat_p999_us" => self.lat_p999_us,
            "lat_max_us" => self.lat_max_us,
            _ => f64::NAN,
        }
    }
}

/// Computes the figures of one stored job from its samples. A file polars cannot read
/// (truncated, corrupt) is an error naming it; so is a panic inside polars on such a file.
pub fn summarize_job(job: &StoredJob) -> Result<JobSummary, String> {
    let path = job.samples();
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| summarize_samples(job))) {
        Ok(r) => r,
        Err(_) => Err(format!(
            "{}: cannot read samples (the Parquet reader failed on it)",
            path.display()
        )),
    }
}

/// Scan options: the job's identity comes from its manifest, not from parsing the hive-style
/// folder names.
fn scan_args() -> ScanArgsParquet {
    ScanArgsParquet {
        hive_options: HiveOptions::new_disabled(),
        ..Default::default()
    }
}

fn summarize_samples(job: &StoredJob) -> Result<JobSummary, String> {
    let path = job.samples();
    let fail = |e: PolarsError| format!("{}: cannot read samples ({e})", path.display());
    let lf = LazyFrame::scan_parquet(PlRefPath::new(path.to_string_lossy().as_ref()), scan_args())
        .map_err(fail)?;
    let rows = lf
        .clone()
        .select([len().cast(DataType::UInt64).alias("rows")])
        .collect()
        .map_err(fail)?;
    let rows = rows
        .column("rows")
        .ok()
        .and_then(|c| c.get(0).ok())
        .and_then(|v| v.extract::<u64>())
        .unwrap_or(0);
    if rows != job.manifest.samples_rows {
        return Err(format!(
            "{}: {rows} rows, but the manifest says {}",
            path.display(),
            job.manifest.samples_rows
        ));
    }
    // A steady-state test reports its measurement window (SNIA), not every round.
    let window = job
        .manifest
        .outcome
        .steady_state
        .as_ref()
        .map(|v| (v.window_start_ns, v.window_end_ns));
    let lf = match window {
        Some((a, b)) => lf.filter(
            col("submit_ns")
                .gt_eq(lit(a))
                .and(col("submit_ns").lt(lit(b))),
        ),
        None => lf,
    };
    let q = |p: f64| col("latency_ns").quantile(lit(p), QuantileMethod::Linear);
    let per_op = lf
        .clone()
        .group_by([col("op")])
        .agg([
            len().cast(DataType::UInt64).alias("ios"),
            col("len").cast(DataType::UInt64).sum().alias("bytes"),
            col("latency_ns")
                .cast(DataType::Float64)
                .mean()
                .alias("mean"),
            q(0.99).alias("p99"),
            col("latency_ns").max().cast(DataType::Float64).alias("max"),
        ])
        .sort(["op"], SortMultipleOptions::default())
        .collect()
        .map_err(fail)?;
    let df = lf
        .select([
            len().cast(DataType::UInt64).alias("ios"),
            col("len").cast(DataType::UInt64).sum().alias("bytes"),
            col("submit_ns").min().alias("first"),
            (col("submit_ns") + col("latency_ns")).max().alias("last"),
            col("latency_ns")
                .cast(DataType::Float64)
                .mean()
                .alias("mean"),
            q(0.5).alias("p50"),
            q(0.99).alias("p99"),
            q(0.999).alias("p999"),
            col("latency_ns").max().cast(DataType::Float64).alias("max"),
        ])
        .collect()
        .map_err(fail)?;
    let get_u = |name: &str| -> u64 {
        df.column(name)
            .ok()
            .and_then(|c| c.get(0).ok())
            .and_then(|v| v.extract::<u64>())
            .unwrap_or(0)
    };
    let get_f = |name: &str| -> f64 {
        df.column(name)
            .ok()
            .and_then(|c| c.get(0).ok())
            .and_then(|v| v.extract::<f64>())
            .unwrap_or(f64::NAN)
    };
    let ios = get_u("ios");
    let bytes = get_u("bytes");
    let interval_s = match window {
        Some((a, b)) => b.saturating_sub(a) as f64 / 1e9,
        None => get_u("last").saturating_sub(get_u("first")) as f64 / 1e9,
    };
    let (iops, mb_per_s) = if ios > 0 && interval_s > 0.0 {
        (ios as f64 / interval_s, bytes as f64 / interval_s / 1e6)
    } else {
        (0.0, 0.0)
    };
    let m = &job.manifest;
    Ok(JobSummary {
        drive: m.drive.clone(),
        firmware: m.firmware.clone(),
        suite: m.suite.clone(),
        test: m.test.clone(),
        variant: m.variant.clone(),
        repeat: m.repeat,
        ios,
        iops,
        mb_per_s,
        lat_mean_us: get_f("mean") / 1e3,
        lat_p50_us: get_f("p50") / 1e3,
        lat_p99_us: get_f("p99") / 1e3,
        lat_p999_us: get_f("p999") / 1e3,
        lat_max_us: get_f("max") / 1e3,
        by_op: (0..per_op.height())
            .map(|i| {
                let f = |name: &str| {
                    per_op
                        .column(name)
                        .ok()
                        .and_then(|c| c.get(i).ok())
                        .and_then(|v| v.extract::<f64>())
                        .unwrap_or(f64::NAN)
                };
                let op = per_op
                    .column("op")
                    .ok()
                    .and_then(|c| c.str().ok().and_then(|s| s.get(i).map(str::to_string)))
                    .unwrap_or_default();
                let (ios, bytes) = (f("ios"), f("bytes"));
                let rate = |x: f64| {
                    if interval_s > 0.0 {
                        x / interval_s
                    } else {
                        0.0
                    }
                };
                OpSummary {
                    op,
                    ios: ios as u64,
                    iops: rate(ios),
                    mb_per_s: rate(bytes) / 1e6,
                    lat_mean_us: f("mean") / 1e3,
                    lat_p99_us: f("p99") / 1e3,
                    lat_max_us: f("max") / 1e3,
                }
            })
            .collect(),
    })
}

/// Summaries of every readable job, in store order, with a problem line for each job whose
/// samples cannot be read (named and skipped, never a panic).
pub fn summarize(jobs: &[StoredJob]) -> (Vec<(StoredJob, JobSummary)>, Vec<String>) {
    let mut out = Vec::new();
    let mut problems = Vec::new();
    for j in jobs {
        match summarize_job(j) {
            Ok(s) => out.push((j.clone(), s)),
            Err(e) => problems.push(format!("{e}; skipped")),
        }
    }
    (out, problems)
}

/// One drive's figures in one chart: a test variant, averaged over its repeats.
#[derive(Debug, Clone, Serialize)]
pub struct Bar {
    /// Drive id.
    pub drive: String,
    /// Drive name.
    pub drive_name: String,
    /// Firmware.
    pub firmware: String,
    /// The headline figure (mean over repeats).
    pub value: f64,
    /// Repeats averaged.
    pub repeats: u32,
    /// Mean latency, µs (mean over repeats).
    pub lat_mean_us: f64,
    /// 99th percentile latency, µs (mean over repeats).
    pub lat_p99_us: f64,
    /// 99.9th percentile latency, µs (mean over repeats).
    pub lat_p999_us: f64,
    /// Maximum latency, µs (maximum over repeats).
    pub lat_max_us: f64,
    /// The headline figure of each repeat, in order.
    pub per_repeat: Vec<f64>,
}

/// The figures of one variant of one test across drives.
#[derive(Debug, Clone, Serialize)]
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
    /// One bar per drive, best first (ties by drive id).
    pub bars: Vec<Bar>,
}

impl TestFigures {
    /// The chart and commentary slot id: `test.variant`.
    pub fn slot_id(&self) -> String {
        format!("{}.{}", self.test, self.variant)
    }
}

/// For each drive, the firmware whose results are current: the one of its most recently
/// finished job (ties broken by firmware name), so re-running a drive under new firmware
/// makes the new results current.
pub fn current_firmware(jobs: &[(StoredJob, JobSummary)]) -> BTreeMap<String, String> {
    let mut latest: BTreeMap<String, (String, String)> = BTreeMap::new();
    for (j, _) in jobs {
        let m = &j.manifest;
        let cand = (m.finished_at.clone(), m.firmware.clone());
        let e = latest
            .entry(m.drive.clone())
            .or_insert_with(|| cand.clone());
        if cand > *e {
            *e = cand;
        }
    }
    latest.into_iter().map(|(d, (_, fw))| (d, fw)).collect()
}

/// Groups the current results (each drive's current firmware) by suite, test and variant,
/// in the suite's test order where `order` gives it (test ids by suite), and sorts each
/// chart's bars best first.
pub fn figures(
    jobs: &[(StoredJob, JobSummary)],
    order: &BTreeMap<String, Vec<String>>,
) -> Vec<TestFigures> {
    let current = current_firmware(jobs);
    figures_where(jobs, order, |m| current.get(&m.drive) == Some(&m.firmware))
}

/// A drive's firmwares with results, oldest first (by their latest finished job).
pub fn firmwares(jobs: &[(StoredJob, JobSummary)], drive: &str) -> Vec<String> {
    let mut latest: BTreeMap<&str, &str> = BTreeMap::new();
    for (j, _) in jobs.iter().filter(|(j, _)| j.manifest.drive == drive) {
        let e = latest
            .entry(&j.manifest.firmware)
            .or_insert(&j.manifest.finished_at);
        if j.manifest.finished_at.as_str() > *e {
            *e = &j.manifest.finished_at;
        }
    }
    let mut v: Vec<(&str, &str)> = latest.into_iter().map(|(fw, t)| (t, fw)).collect();
    v.sort();
    v.into_iter().map(|(_, fw)| fw.to_string()).collect()
}

/// Like [`figures`], over the results `keep` selects (e.g. one drive under one firmware).
pub fn figures_where(
    jobs: &[(StoredJob, JobSummary)],
    order: &BTreeMap<String, Vec<String>>,
    keep: impl Fn(&crate::store::JobManifest) -> bool,
) -> Vec<TestFigures> {
    /// The jobs of one chart, by drive.
    struct Group<'a> {
        figures: TestFigures,
        runs: BTreeMap<String, Vec<&'a JobSummary>>,
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
                bars: vec![],
            },
            runs: BTreeMap::new(),
            names: BTreeMap::new(),
        });
        group.runs.entry(m.drive.clone()).or_default().push(s);
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
                for (drive, mut runs) in by_drive {
                    runs.sort_by_key(|s| s.repeat);
                    let n = runs.len() as f64;
                    let mean =
                        |g: &dyn Fn(&JobSummary) -> f64| runs.iter().map(|s| g(s)).sum::<f64>() / n;
                    f.bars.push(Bar {
                        drive: drive.clone(),
                        drive_name: names[&drive].clone(),
                        firmware: runs[0].firmware.clone(),
                        value: mean(&|s| s.figure(&f.metric)),
                        repeats: runs.len() as u32,
                        lat_mean_us: mean(&|s| s.lat_mean_us),
                        lat_p99_us: mean(&|s| s.lat_p99_us),
                        lat_p999_us: mean(&|s| s.lat_p999_us),
                        lat_max_us: runs.iter().map(|s| s.lat_max_us).fold(0.0, f64::max),
                        per_repeat: runs.iter().map(|s| s.figure(&f.metric)).collect(),
                    });
                }
                let higher = f.better == "higher";
                f.bars.sort_by(|a, b| {
                    let ord = a
                        .value
                        .partial_cmp(&b.value)
                        .unwrap_or(std::cmp::Ordering::Equal);
                    (if higher { ord.reverse() } else { ord }).then_with(|| a.drive.cmp(&b.drive))
                });
                f
            },
        )
        .collect();
    let rank = |f: &TestFigures| {
        order
            .get(&f.suite)
            .and_then(|tests| tests.iter().position(|t| *t == f.test))
            .unwrap_or(usize::MAX)
    };
    out.sort_by(|a, b| {
        (a.suite.clone(), rank(a), a.test.clone(), a.variant.clone()).cmp(&(
            b.suite.clone(),
            rank(b),
            b.test.clone(),
            b.variant.clone(),
        ))
    });
    out
}
