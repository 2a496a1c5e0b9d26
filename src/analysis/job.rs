//! One job's figures, computed from its raw samples with polars (or from its histogram
//! where it kept only that): throughput, latency percentiles, the latency CDF, its run over
//! time and a whole-drive fill's curve.

use std::collections::BTreeMap;

use polars::prelude::*;
use serde::Serialize;

use super::fill::{self, Fill};
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
    /// 99.99th percentile latency, µs: absent (null) from a job of fewer than 10,000 I/Os,
    /// whose slowest I/O it would be.
    pub lat_p9999_us: Option<f64>,
    /// 99.9999th percentile latency, µs: absent from a job of fewer than 1,000,000 I/Os.
    pub lat_p999999_us: Option<f64>,
    /// Maximum latency, µs.
    pub lat_max_us: f64,
    /// The same figures for reads and for writes alone (ordered read, write).
    pub by_op: Vec<OpSummary>,
    /// Latency at each of [`CDF_PERCENTILES`], µs (over the measured interval).
    #[serde(skip)]
    pub cdf: Vec<f64>,
    /// The job's whole run in [`TIMELINE_POINTS`] intervals (every round of a steady-state
    /// test, not only its window).
    #[serde(skip)]
    pub timeline: Vec<TimePoint>,
    /// Length of that run, s.
    pub duration_s: f64,
    /// The SNIA measurement window, seconds from the run's start, where the test had one.
    pub window_s: Option<(f64, f64)>,
    /// A whole-drive fill's curve and figures (a sequential write of `passes:`, its rows
    /// kept).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fill: Option<Fill>,
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
            "lat_p9999_us" => self.lat_p9999_us.unwrap_or(f64::NAN),
            "lat_p999999_us" => self.lat_p999999_us.unwrap_or(f64::NAN),
            "lat_max_us" => self.lat_max_us,
            _ => f64::NAN,
        }
    }
}

/// Computes the figures of one stored job from its rows, or its histogram where it kept only
/// that. A file that is not the bytes its manifest hashed is an error naming it (a damaged
/// file can still parse, with other figures); so is one polars cannot read, and a panic
/// inside polars on such a file.
pub fn summarize_job(job: &StoredJob) -> Result<JobSummary, String> {
    if let Some(damaged) = job.check_files().into_iter().next() {
        return Err(damaged);
    }
    let rows = job.manifest.samples.rows();
    let path = if rows { job.samples() } else { job.histogram() };
    let summarize = || {
        if rows {
            summarize_samples(job)
        } else {
            summarize_histogram(job)
        }
    };
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(summarize)) {
        Ok(r) => r,
        Err(_) => Err(format!(
            "{}: cannot read samples (the Parquet reader failed on it)",
            path.display()
        )),
    }
}

/// The columns of a job's samples the figures need.
struct Columns {
    write: Vec<bool>,
    len: Vec<u32>,
    submit: Vec<u64>,
    latency: Vec<u64>,
}

/// A job's samples, only the columns the figures need, checked against its manifest.
fn read_samples(job: &StoredJob) -> Result<Columns, String> {
    let path = job.samples();
    let fail = |e: PolarsError| format!("{}: cannot read samples ({e})", path.display());
    let file = std::fs::File::open(&path)
        .map_err(|e| format!("{}: cannot read samples ({e})", path.display()))?;
    // A job all reads or all writes (the manifest counts them) needs no `op` column, whose
    // decoding costs a fifth of the reading.
    let all_one = job
        .manifest
        .samples_writes
        .filter(|&w| w == 0 || w == job.manifest.samples_rows)
        .map(|w| w > 0);
    let names: &[&str] = match all_one {
        Some(_) => &["len", "submit_ns", "latency_ns"],
        None => &["op", "len", "submit_ns", "latency_ns"],
    };
    let df = ParquetReader::new(file)
        .with_columns(Some(names.iter().map(|n| n.to_string()).collect()))
        .finish()
        .map_err(fail)?;
    let rows = df.height() as u64;
    if rows != job.manifest.samples_rows {
        return Err(format!(
            "{}: {rows} rows, but the manifest says {}",
            path.display(),
            job.manifest.samples_rows
        ));
    }
    if let Some(c) = df.columns().iter().find(|c| c.null_count() > 0) {
        return Err(format!(
            "{}: the column {:?} has missing values",
            path.display(),
            c.name().as_str()
        ));
    }
    // Each column leaves the frame as it is copied out: a job's rows are held about once.
    let mut df = df;
    let mut column = |name: &str| df.drop_in_place(name).map(|c| c.take_materialized_series());
    let mut u64s = |name: &str| crate::store::u64_values(&column(name)?);
    let latency = u64s("latency_ns").map_err(fail)?;
    let submit = u64s("submit_ns").map_err(fail)?;
    let write = match all_one {
        Some(w) => vec![w; latency.len()],
        None => {
            let op = column("op")
                .and_then(|op| op.equal("write"))
                .map_err(fail)?;
            let mut v = Vec::with_capacity(op.len());
            for a in op.downcast_iter() {
                v.extend(a.values().iter());
            }
            v
        }
    };
    let len = column("len")
        .and_then(|s| s.cast(&DataType::UInt32))
        .and_then(|s| Ok(crate::store::native_values(s.u32()?)))
        .map_err(fail)?;
    Ok(Columns {
        write,
        len,
        submit,
        latency,
    })
}

/// The latencies of the samples submitted within `window` (all without one) whose write
/// flag is `only` (all without one), sorted.
fn sorted_latencies(c: &Columns, window: Option<(u64, u64)>, only: Option<bool>) -> Vec<u64> {
    let mut v: Vec<u64> = (0..c.latency.len())
        .filter(|&i| window.is_none_or(|(a, b)| c.submit[i] >= a && c.submit[i] < b))
        .filter(|&i| only.is_none_or(|w| c.write[i] == w))
        .map(|i| c.latency[i])
        .collect();
    radix_sort(&mut v);
    v
}

/// Sorts `v` by its bytes, least significant first, skipping the bytes every value shares
/// (latencies in ns rarely use more than five): linear time, where a comparison sort of a
/// job's tens of millions of latencies took seconds.
pub fn radix_sort(v: &mut Vec<u64>) {
    if v.len() < 256 {
        v.sort_unstable();
        return;
    }
    if sort_few_distinct(v) {
        return;
    }
    let mut counts = [[0usize; 256]; 8];
    for &x in v.iter() {
        for (b, c) in counts.iter_mut().enumerate() {
            c[((x >> (8 * b)) & 0xff) as usize] += 1;
        }
    }
    let mut other = vec![0u64; v.len()];
    for (b, c) in counts.iter().enumerate() {
        if c.contains(&v.len()) {
            continue;
        }
        let mut at = [0usize; 256];
        let mut sum = 0;
        for (d, &n) in c.iter().enumerate() {
            at[d] = sum;
            sum += n;
        }
        for &x in v.iter() {
            let d = ((x >> (8 * b)) & 0xff) as usize;
            other[at[d]] = x;
            at[d] += 1;
        }
        std::mem::swap(v, &mut other);
    }
}

/// Sorts `v` by counting its values, if it holds at most a few thousand distinct ones (a
/// simulated drive's latencies often do: one pass instead of the radix sort's several);
/// leaves `v` as it was and says `false` otherwise, having looked at little of it.
fn sort_few_distinct(v: &mut [u64]) -> bool {
    const MOST: usize = 4096;
    let mut counts: std::collections::HashMap<u64, usize, crate::hash::BuildIntHasher> =
        Default::default();
    let mut run = (v[0], 0usize);
    for &x in v.iter() {
        if x == run.0 {
            run.1 += 1;
            continue;
        }
        *counts.entry(run.0).or_insert(0) += run.1;
        if counts.len() > MOST {
            return false;
        }
        run = (x, 1);
    }
    *counts.entry(run.0).or_insert(0) += run.1;
    let mut values: Vec<(u64, usize)> = counts.into_iter().collect();
    values.sort_unstable();
    let mut at = 0;
    for (x, n) in values {
        v[at..at + n].fill(x);
        at += n;
    }
    true
}

fn summarize_samples(job: &StoredJob) -> Result<JobSummary, String> {
    // The file is read once.
    let samples = read_samples(job)?;
    // A steady-state test reports its measurement window (SNIA), not every round.
    let window = job
        .manifest
        .outcome
        .steady_state
        .as_ref()
        .map(|v| (v.window_start_ns, v.window_end_ns));
    // Sums, extremes and the timeline in one pass over the columns; percentiles from one
    // sort of the measured latencies.
    let pass = Pass::over(&samples, window);
    // A whole-drive fill: writes only, over passes of the span.
    let m = &job.manifest;
    let fill = (m.passes.is_some() && m.samples_writes == Some(m.samples_rows) && window.is_none())
        .then(|| fill::fill(&samples.submit, &samples.latency, &samples.len))
        .flatten();
    let mixed = pass.ops.iter().all(|o| o.ios > 0);
    // A mixed workload sorts each operation's latencies on its own too.
    let by_op = mixed.then(|| {
        [false, true].map(|w| quantile(&sorted_latencies(&samples, window, Some(w)), 0.99))
    });
    let sorted = if window.is_none() {
        // Every latency counts: the column itself is sorted, the others freed first.
        let Columns {
            latency: mut v,
            write,
            len,
            submit,
        } = samples;
        drop((write, len, submit));
        radix_sort(&mut v);
        v
    } else {
        sorted_latencies(&samples, window, None)
    };
    let p99_by_op = |k: usize| by_op.map_or_else(|| quantile(&sorted, 0.99), |p| p[k]);
    let quantile_ns = |p| quantile(&sorted, p);
    let mut summary = assemble(job, window, pass, &quantile_ns, &p99_by_op);
    summary.fill = fill;
    Ok(summary)
}

/// A job's figures from its histogram (`samples: histogram`): see [`crate::store::histogram`]
/// for what is exact and how close the rest is.
fn summarize_histogram(job: &StoredJob) -> Result<JobSummary, String> {
    let h = crate::store::Histogram::read(&job.histogram())?;
    let rows = h.rows() as u64;
    match &job.manifest.histogram {
        Some(r) if r.rows == rows => {}
        r => {
            return Err(format!(
                "{}: {rows} rows, but the manifest says {}",
                job.histogram().display(),
                r.as_ref().map_or("none".into(), |r| r.rows.to_string())
            ))
        }
    }
    let tally = |buckets: &[crate::store::histogram::Bucket]| {
        let mut t = Tally::default();
        buckets.iter().for_each(|b| t.absorb(&b.tally));
        t
    };
    let ops = [tally(&h.latency[0]), tally(&h.latency[1])];
    let all = tally(&h.time);
    let start = if all.ios == 0 { 0 } else { all.first };
    let span = all.last.saturating_sub(start).max(1);
    let width = span / TIMELINE_POINTS + 1;
    let mut intervals = vec![Tally::default(); TIMELINE_POINTS as usize];
    for b in &h.time {
        // A bucket goes where its middle completion time falls.
        let mid = (b.low_ns / 2 + b.high_ns / 2).clamp(start, all.last.max(start));
        let k = ((mid - start) / width).min(TIMELINE_POINTS - 1) as usize;
        intervals[k].absorb(&b.tally);
    }
    let pass = Pass {
        ops,
        timeline: timeline(&intervals, width, all.ios),
        start_ns: start,
        span_ns: if all.ios == 0 { 0 } else { span },
    };
    let both = merge_buckets(&h.latency[0], &h.latency[1]);
    let p99_by_op = |k: usize| bucket_quantile(&h.latency[k], 0.99);
    let quantile_ns = |p| bucket_quantile(&both, p);
    Ok(assemble(job, None, pass, &quantile_ns, &p99_by_op))
}

/// Two operations' latency buckets as one list (the same bucket's tallies merged).
fn merge_buckets(
    a: &[crate::store::histogram::Bucket],
    b: &[crate::store::histogram::Bucket],
) -> Vec<crate::store::histogram::Bucket> {
    let mut by_low: BTreeMap<u64, crate::store::histogram::Bucket> = BTreeMap::new();
    for x in a.iter().chain(b) {
        by_low
            .entry(x.low_ns)
            .and_modify(|y| y.tally.merge(&x.tally))
            .or_insert(*x);
    }
    by_low.into_values().collect()
}

/// The `p` quantile of bucketed latencies, interpolated as [`quantile`] does between the
/// values of its two neighbouring ranks; a rank's value is placed evenly between its
/// bucket's least and greatest latency (exact where they are equal, or at either end).
pub fn bucket_quantile(buckets: &[crate::store::histogram::Bucket], p: f64) -> f64 {
    let n: u64 = buckets.iter().map(|b| b.tally.ios).sum();
    if n == 0 {
        return f64::NAN;
    }
    let value_at = |rank: u64| -> f64 {
        let mut before = 0;
        for b in buckets {
            let t = &b.tally;
            if rank < before + t.ios {
                let (lo, hi) = (t.latency_min_ns as f64, t.latency_max_ns as f64);
                return if t.ios == 1 {
                    lo
                } else {
                    lo + (hi - lo) * (rank - before) as f64 / (t.ios - 1) as f64
                };
            }
            before += t.ios;
        }
        buckets
            .last()
            .map_or(f64::NAN, |b| b.tally.latency_max_ns as f64)
    };
    let idx = p.clamp(0.0, 1.0) * (n - 1) as f64;
    let (lo, hi) = (idx.floor() as u64, idx.ceil() as u64);
    let (a, b) = (value_at(lo), value_at(hi));
    a + (b - a) * (idx - lo as f64)
}

/// A job's summary from its tallies, timeline and latency quantiles (ns; `p99_by_op` of
/// reads, 0, or writes, 1).
fn assemble(
    job: &StoredJob,
    window: Option<(u64, u64)>,
    pass: Pass,
    quantile_ns: &dyn Fn(f64) -> f64,
    p99_by_op: &dyn Fn(usize) -> f64,
) -> JobSummary {
    let pct = |p: f64| quantile_ns(p) / 1e3;
    let total = pass.ops[0].plus(&pass.ops[1]);
    // A test in bursts is measured over its bursts' time, not the idle time between them.
    let busy = job
        .manifest
        .outcome
        .burst
        .map(|b| b.busy_ns)
        .filter(|b| *b > 0);
    let interval_s = match (window, busy) {
        (Some((a, b)), _) => b.saturating_sub(a) as f64 / 1e9,
        (None, Some(busy)) => busy as f64 / 1e9,
        (None, None) => total.last.saturating_sub(total.first) as f64 / 1e9,
    };
    let rate = |x: f64| {
        if interval_s > 0.0 {
            x / interval_s
        } else {
            0.0
        }
    };
    let mut by_op = Vec::new();
    for (k, o) in pass.ops.iter().enumerate() {
        if o.ios == 0 {
            continue;
        }
        by_op.push(OpSummary {
            op: if k == 1 { "write" } else { "read" }.to_string(),
            ios: o.ios,
            iops: rate(o.ios as f64),
            mb_per_s: rate(o.bytes as f64) / 1e6,
            lat_mean_us: o.mean_us(),
            lat_p99_us: p99_by_op(k) / 1e3,
            lat_max_us: o.max as f64 / 1e3,
        });
    }
    let m = &job.manifest;
    JobSummary {
        drive: m.drive.clone(),
        firmware: m.firmware.clone(),
        suite: m.suite.clone(),
        test: m.test.clone(),
        variant: m.variant.clone(),
        repeat: m.repeat,
        ios: total.ios,
        iops: rate(total.ios as f64),
        mb_per_s: rate(total.bytes as f64) / 1e6,
        lat_mean_us: total.mean_us(),
        lat_p50_us: pct(0.5),
        lat_p99_us: pct(0.99),
        lat_p999_us: pct(0.999),
        // A percentile p needs 1 / (1 − p) I/Os before it is anything but the slowest.
        lat_p9999_us: (total.ios >= 10_000).then(|| pct(0.9999)),
        lat_p999999_us: (total.ios >= 1_000_000).then(|| pct(0.999999)),
        lat_max_us: if total.ios == 0 { f64::NAN } else { pct(1.0) },
        cdf: CDF_PERCENTILES.iter().map(|&p| pct(p / 100.0)).collect(),
        duration_s: pass.span_ns as f64 / 1e9,
        window_s: window.map(|(a, b)| {
            (
                a.saturating_sub(pass.start_ns) as f64 / 1e9,
                b.saturating_sub(pass.start_ns) as f64 / 1e9,
            )
        }),
        timeline: pass.timeline,
        by_op,
        fill: None,
    }
}

/// Running figures of a set of I/Os.
#[derive(Debug, Clone, Copy)]
struct Tally {
    ios: u64,
    bytes: u64,
    latency_sum: u128,
    max: u64,
    /// First submit and last completion.
    first: u64,
    last: u64,
}

impl Default for Tally {
    fn default() -> Tally {
        Tally {
            ios: 0,
            bytes: 0,
            latency_sum: 0,
            max: 0,
            first: u64::MAX,
            last: 0,
        }
    }
}

impl Tally {
    fn add(&mut self, submit: u64, latency: u64, len: u64) {
        self.ios += 1;
        self.bytes += len;
        self.latency_sum += latency as u128;
        self.max = self.max.max(latency);
        self.first = self.first.min(submit);
        self.last = self.last.max(submit + latency);
    }
    /// Adds a histogram bucket's tally.
    fn absorb(&mut self, b: &crate::store::histogram::Tally) {
        self.ios += b.ios;
        self.bytes += b.bytes;
        self.latency_sum += b.latency_sum_ns as u128;
        self.max = self.max.max(b.latency_max_ns);
        self.first = self.first.min(b.first_submit_ns);
        self.last = self.last.max(b.last_complete_ns);
    }

    fn plus(&self, o: &Tally) -> Tally {
        Tally {
            ios: self.ios + o.ios,
            bytes: self.bytes + o.bytes,
            latency_sum: self.latency_sum + o.latency_sum,
            max: self.max.max(o.max),
            first: self.first.min(o.first),
            last: self.last.max(o.last),
        }
    }
    fn mean_us(&self) -> f64 {
        if self.ios == 0 {
            f64::NAN
        } else {
            self.latency_sum as f64 / self.ios as f64 / 1e3
        }
    }
}

/// What one pass over a job's samples gives: reads' and writes' tallies over the measured
/// interval, and the whole run's timeline.
struct Pass {
    /// Reads, writes.
    ops: [Tally; 2],
    timeline: Vec<TimePoint>,
    /// The run's first submit (queue clock) and its length to the last completion.
    start_ns: u64,
    span_ns: u64,
}

impl Pass {
    fn over(samples: &Columns, window: Option<(u64, u64)>) -> Pass {
        let (submit, latency, len, write) = (
            &samples.submit,
            &samples.latency,
            &samples.len,
            &samples.write,
        );
        let n = submit.len();
        let (mut start, mut end) = (u64::MAX, 0);
        for i in 0..n {
            start = start.min(submit[i]);
            end = end.max(submit[i] + latency[i]);
        }
        if n == 0 {
            (start, end) = (0, 0);
        }
        let span = end.saturating_sub(start).max(1);
        // Wide enough that the last completion falls in the last interval.
        let width = span / TIMELINE_POINTS + 1;
        let per_ns = 1.0 / width as f64;
        // Each interval's reads and writes apart: without a window the operations' tallies
        // are their sums, so a sample is added once.
        let mut by_op = vec![[Tally::default(); 2]; TIMELINE_POINTS as usize];
        let mut ops = [Tally::default(); 2];
        // Completions come nearly in order: the interval a sample falls in is tallied here
        // and stored when the next sample falls in another.
        let mut here = (0, [Tally::default(); 2]);
        for i in 0..n {
            let (s, l, b) = (submit[i], latency[i], len[i] as u64);
            // Through i64, the values being far below 2^63 ns: the same numbers, converted
            // by one instruction each way instead of an unsigned one's several.
            let k = (((s + l - start) as i64) as f64 * per_ns) as i64 as usize;
            let k = k.min(TIMELINE_POINTS as usize - 1);
            if k != here.0 {
                let [r, w] = &mut by_op[here.0];
                (*r, *w) = (r.plus(&here.1[0]), w.plus(&here.1[1]));
                here = (k, [Tally::default(); 2]);
            }
            let w = write[i] as usize;
            here.1[w].add(s, l, b);
            if window.is_some_and(|(a, z)| s >= a && s < z) {
                ops[w].add(s, l, b);
            }
        }
        let [r, w] = &mut by_op[here.0];
        (*r, *w) = (r.plus(&here.1[0]), w.plus(&here.1[1]));
        if window.is_none() {
            ops = [0, 1].map(|w| by_op.iter().fold(Tally::default(), |t, k| t.plus(&k[w])));
        }
        let intervals: Vec<Tally> = by_op.iter().map(|[r, w]| r.plus(w)).collect();
        let timeline = timeline(&intervals, width, n as u64);
        Pass {
            ops,
            timeline,
            start_ns: start,
            span_ns: if n == 0 { 0 } else { span },
        }
    }
}

/// The timeline of a job from its intervals' tallies, `width` ns each (none without I/Os).
fn timeline(intervals: &[Tally], width: u64, ios: u64) -> Vec<TimePoint> {
    let w_s = width as f64 / 1e9;
    if ios == 0 {
        return vec![];
    }
    intervals
        .iter()
        .enumerate()
        .map(|(k, t)| TimePoint {
            t_s: (k as f64 + 0.5) * w_s,
            iops: t.ios as f64 / w_s,
            mb_per_s: t.bytes as f64 / w_s / 1e6,
            lat_mean_us: t.mean_us(),
            lat_max_us: if t.ios > 0 {
                t.max as f64 / 1e3
            } else {
                f64::NAN
            },
        })
        .collect()
}

/// The percentiles of the latency CDF each job records.
pub const CDF_PERCENTILES: &[f64] = &[
    0.0, 1.0, 2.0, 5.0, 10.0, 15.0, 20.0, 25.0, 30.0, 35.0, 40.0, 45.0, 50.0, 55.0, 60.0, 65.0,
    70.0, 75.0, 80.0, 85.0, 90.0, 92.5, 95.0, 97.0, 98.0, 99.0, 99.5, 99.7, 99.9, 99.95, 99.99,
    100.0,
];

/// Intervals a job's timeline is cut into.
pub const TIMELINE_POINTS: u64 = 120;

/// The `p` quantile (0 to 1) of sorted values, interpolated linearly between neighbours
/// (polars' and numpy's default); NaN when there are none.
pub fn quantile(sorted: &[u64], p: f64) -> f64 {
    let n = sorted.len();
    if n == 0 {
        return f64::NAN;
    }
    let idx = p.clamp(0.0, 1.0) * (n - 1) as f64;
    let (lo, hi) = (idx.floor() as usize, idx.ceil() as usize);
    let (a, b) = (sorted[lo] as f64, sorted[hi] as f64);
    a + (b - a) * (idx - lo as f64)
}

/// One interval of a job's timeline: what completed in it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TimePoint {
    /// Middle of the interval, seconds from the job's first submit.
    pub t_s: f64,
    /// I/Os completed per second.
    pub iops: f64,
    /// Decimal MB/s completed.
    pub mb_per_s: f64,
    /// Mean latency of the I/Os completed, µs (NaN when none completed).
    pub lat_mean_us: f64,
    /// Slowest of them, µs (NaN when none completed).
    pub lat_max_us: f64,
}

/// Summaries of every readable job, in store order, with a problem line for each job whose
/// samples cannot be read (named and skipped, never a panic).
pub fn summarize(jobs: &[StoredJob]) -> (Vec<(StoredJob, JobSummary)>, Vec<String>) {
    // Each job is read once, by one of a few plain threads (not rayon workers: a rayon
    // worker waiting on polars' own pool would start further jobs on its stack); polars
    // parallelises within a job. Results keep the store's order.
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 4);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut results: Vec<Option<Result<JobSummary, String>>> = vec![None; jobs.len()];
    let slots = std::sync::Mutex::new(&mut results);
    let rows = RowBudget::new(ROWS_AT_ONCE);
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(job) = jobs.get(i) else { break };
                let r = {
                    let _held = rows.take(job.manifest.samples_rows);
                    summarize_job(job)
                };
                if let Ok(mut slots) = slots.lock() {
                    slots[i] = Some(r);
                }
            });
        }
    });
    let results = results
        .into_iter()
        .map(|r| r.unwrap_or_else(|| Err("the analysis of this job did not finish".to_string())));
    let mut out = Vec::new();
    let mut problems = Vec::new();
    for (j, r) in jobs.iter().zip(results) {
        match r {
            Ok(s) => out.push((j.clone(), s)),
            Err(e) => problems.push(format!("{e}; skipped")),
        }
    }
    (out, problems)
}

/// Sample rows the analysis holds in memory at once, across its threads: at most about 32
/// bytes a row while a job is read (16 while it is sorted), so some 700 MB. A job with more
/// rows is read alone.
const ROWS_AT_ONCE: u64 = 22_000_000;

/// The rows being analysed, shared by the analysis threads: a thread waits while its job
/// would take them over the budget, unless nothing else is held.
struct RowBudget {
    held: std::sync::Mutex<u64>,
    freed: std::sync::Condvar,
    limit: u64,
}

/// Rows taken from a [`RowBudget`], given back when dropped.
struct HeldRows<'a> {
    budget: &'a RowBudget,
    rows: u64,
}

impl RowBudget {
    fn new(limit: u64) -> RowBudget {
        RowBudget {
            held: std::sync::Mutex::new(0),
            freed: std::sync::Condvar::new(),
            limit,
        }
    }

    fn take(&self, rows: u64) -> HeldRows<'_> {
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        while *held > 0 && *held + rows > self.limit {
            held = self.freed.wait(held).unwrap_or_else(|e| e.into_inner());
        }
        *held += rows;
        HeldRows { budget: self, rows }
    }
}

impl Drop for HeldRows<'_> {
    fn drop(&mut self) {
        let mut held = self.budget.held.lock().unwrap_or_else(|e| e.into_inner());
        *held -= self.rows;
        self.budget.freed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_interpolate_between_neighbours() {
        assert_eq!(quantile(&[10, 20, 30, 40], 0.5), 25.0);
        assert_eq!(quantile(&[10, 20, 30, 40], 1.0), 40.0);
        assert_eq!(quantile(&[5], 0.99), 5.0);
        assert!(quantile(&[], 0.5).is_nan());
    }

    #[test]
    fn the_radix_sort_sorts() {
        let mut v: Vec<u64> = (0..100_000u64)
            .map(|i| (i * 2_654_435_761) % 1_000_003 + (i % 7) * (1 << 40))
            .collect();
        let mut expected = v.clone();
        expected.sort_unstable();
        radix_sort(&mut v);
        assert_eq!(v, expected);
        let mut same = vec![42u64; 1000];
        radix_sort(&mut same);
        assert_eq!(same, vec![42u64; 1000]);
        // Few distinct values (counted, not radix-sorted), in runs and scattered.
        let mut few: Vec<u64> = (0..50_000u64)
            .map(|i| [25_500, 51_000, 9, 1 << 33][((i / 3) * 7 % 4) as usize] + i % 100)
            .collect();
        let mut expected = few.clone();
        expected.sort_unstable();
        assert!(sort_few_distinct(&mut few.clone()));
        radix_sort(&mut few);
        assert_eq!(few, expected);
        // Too many distinct values: left as they were, for the radix sort.
        let mut many: Vec<u64> = (0..10_000u64).rev().collect();
        let before = many.clone();
        assert!(!sort_few_distinct(&mut many));
        assert_eq!(many, before);
    }

    fn frame(submit: Vec<u64>, latency: Vec<u64>, write: Vec<bool>) -> Columns {
        Columns {
            len: vec![4096u32; submit.len()],
            write,
            submit,
            latency,
        }
    }

    #[test]
    fn a_stall_leaves_intervals_where_nothing_completes() {
        // 100 writes of 1 ms back to back, then one that takes 500 ms.
        let mut submit: Vec<u64> = (0..100).map(|i| i * 1_000_000).collect();
        let mut latency = vec![1_000_000; 100];
        submit.push(100_000_000);
        latency.push(500_000_000);
        let p = Pass::over(&frame(submit, latency, vec![true; 101]), None);
        assert_eq!((p.ops[0].ios, p.ops[1].ios), (0, 101));
        assert_eq!(p.span_ns, 600_000_000);
        assert_eq!(p.timeline.len(), TIMELINE_POINTS as usize);
        // 5 ms intervals: the first 20 hold the 1 ms writes, the last the stalled one, and
        // the ones between complete nothing.
        let empty = p.timeline.iter().filter(|t| t.iops == 0.0).count();
        assert_eq!(empty, 120 - 20 - 1);
        assert!(p.timeline[50].lat_max_us.is_nan());
        assert_eq!(p.timeline[119].lat_max_us, 500_000.0);
        assert_eq!(p.timeline[3].lat_mean_us, 1_000.0);
        let width_s = p.timeline[1].t_s - p.timeline[0].t_s;
        let counted: f64 = p.timeline.iter().map(|t| t.iops * width_s).sum();
        assert!(
            (counted - 101.0).abs() < 1e-6,
            "every I/O counted once: {counted}"
        );
    }

    #[test]
    fn one_pass_tallies_what_a_sample_at_a_time_does_in_any_order() {
        // Mixed reads and writes of varied sizes, completing out of submit order, some
        // far apart: the pass (one add a sample, the interval kept in registers) against
        // every sample added to its interval and its operation, as written out here.
        let mut rng = crate::rng::stream(7, "pass");
        let n = 5_000;
        let submit: Vec<u64> = (0..n)
            .map(|i| i * 10_000 + crate::rng::below(&mut rng, 9_000))
            .collect();
        let latency: Vec<u64> = (0..n)
            .map(|i| {
                1_000 + crate::rng::below(&mut rng, if i % 97 == 0 { 50_000_000 } else { 300_000 })
            })
            .collect();
        let write: Vec<bool> = (0..n)
            .map(|_| crate::rng::below(&mut rng, 3) == 0)
            .collect();
        let len: Vec<u32> = (0..n).map(|i| 512 << (i % 5)).collect();
        let c = Columns {
            write,
            len,
            submit,
            latency,
        };
        for window in [None, Some((5_000_000, 30_000_000))] {
            let p = Pass::over(&c, window);
            let start = *c.submit.iter().min().unwrap();
            let end = (0..c.submit.len())
                .map(|i| c.submit[i] + c.latency[i])
                .max()
                .unwrap();
            let width = (end - start) / TIMELINE_POINTS + 1;
            let mut intervals = vec![Tally::default(); TIMELINE_POINTS as usize];
            let mut ops = [Tally::default(); 2];
            for i in 0..c.submit.len() {
                let (s, l, b) = (c.submit[i], c.latency[i], c.len[i] as u64);
                // The interval as the analysis has always computed it.
                let k = (((s + l - start) as f64 * (1.0 / width as f64)) as usize)
                    .min(TIMELINE_POINTS as usize - 1);
                intervals[k].add(s, l, b);
                if window.is_none_or(|(a, z)| s >= a && s < z) {
                    ops[c.write[i] as usize].add(s, l, b);
                }
            }
            for (got, want) in p.ops.iter().zip(&ops) {
                assert_eq!(
                    (
                        got.ios,
                        got.bytes,
                        got.latency_sum,
                        got.max,
                        got.first,
                        got.last
                    ),
                    (
                        want.ios,
                        want.bytes,
                        want.latency_sum,
                        want.max,
                        want.first,
                        want.last
                    )
                );
            }
            assert!(ops[0].ios > 0 && ops[1].ios > 0);
            let want = timeline(&intervals, width, c.submit.len() as u64);
            assert_eq!(format!("{:?}", p.timeline), format!("{want:?}"));
        }
    }

    #[test]
    fn the_window_selects_by_submit_time_and_ops_are_split() {
        let submit: Vec<u64> = (0..100).map(|i| i * 1_000).collect();
        let write: Vec<bool> = (0..100).map(|i| i % 4 == 0).collect();
        let p = Pass::over(
            &frame(submit, vec![500; 100], write),
            Some((50_000, 90_000)),
        );
        assert_eq!((p.ops[0].ios, p.ops[1].ios), (30, 10));
        assert_eq!(p.ops[1].first, 52_000);
        assert_eq!(p.ops[0].last, 89_500);
    }
}
