//! Histogram samples (`samples: histogram`): instead of a row per I/O, a job keeps each
//! operation's latencies in log-linear buckets (HDR-style: 2^[`SUB_BITS`] buckets per power
//! of two) and its completions over time in at most [`TIME_BUCKETS`] power-of-two-wide
//! intervals, every bucket with the exact tally of its I/Os (count, bytes, latency sum,
//! least and greatest latency, first submit, last completion).
//!
//! What that keeps exact: every count, byte total, mean, minimum and maximum. A percentile
//! lies within its bucket, which is one nanosecond wide below 2^(SUB_BITS+1) ns and at most
//! 1/2^SUB_BITS of its values above: within 0.2%, and exact where a bucket's latencies are
//! all equal (a RAM disk's). A timeline interval may gain or lose the I/Os of the one time
//! bucket on each of its edges: at most 120 × 2 / 2^14 of the run, about 1.5% of an
//! interval, usually far less as the edges' errors cancel.

use std::collections::BTreeMap;
use std::fs::File;
use std::path::Path;

use polars::prelude::*;

use crate::engine::Sample;
use crate::error::{Error, Result};
use crate::io::Op;

/// Sub-buckets per power of two: a bucket spans at most 1/512 of its values.
pub const SUB_BITS: u32 = 9;
/// Time buckets a job's timeline keeps at most (each a power of two nanoseconds wide).
pub const TIME_BUCKETS: u64 = 1 << 14;
/// The name of the histogram file in a job folder.
pub const HISTOGRAM: &str = "histogram.parquet";

/// The exact figures of the I/Os that fell in one bucket.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tally {
    /// I/Os.
    pub ios: u64,
    /// Bytes they moved.
    pub bytes: u64,
    /// Sum of their latencies, ns.
    pub latency_sum_ns: u64,
    /// Least latency, ns.
    pub latency_min_ns: u64,
    /// Greatest latency, ns.
    pub latency_max_ns: u64,
    /// Earliest submit, ns (queue clock).
    pub first_submit_ns: u64,
    /// Latest completion, ns (queue clock).
    pub last_complete_ns: u64,
}

impl Default for Tally {
    fn default() -> Tally {
        Tally {
            ios: 0,
            bytes: 0,
            latency_sum_ns: 0,
            latency_min_ns: u64::MAX,
            latency_max_ns: 0,
            first_submit_ns: u64::MAX,
            last_complete_ns: 0,
        }
    }
}

impl Tally {
    #[inline]
    fn add(&mut self, s: &Sample) {
        self.ios += 1;
        self.bytes += s.len as u64;
        self.latency_sum_ns += s.latency_ns;
        self.latency_min_ns = self.latency_min_ns.min(s.latency_ns);
        self.latency_max_ns = self.latency_max_ns.max(s.latency_ns);
        self.first_submit_ns = self.first_submit_ns.min(s.submit_ns);
        self.last_complete_ns = self.last_complete_ns.max(s.submit_ns + s.latency_ns);
    }

    /// Both tallies together.
    pub fn merge(&mut self, o: &Tally) {
        self.ios += o.ios;
        self.bytes += o.bytes;
        self.latency_sum_ns += o.latency_sum_ns;
        self.latency_min_ns = self.latency_min_ns.min(o.latency_min_ns);
        self.latency_max_ns = self.latency_max_ns.max(o.latency_max_ns);
        self.first_submit_ns = self.first_submit_ns.min(o.first_submit_ns);
        self.last_complete_ns = self.last_complete_ns.max(o.last_complete_ns);
    }
}

/// The latency bucket of `ns`: exact below 2^(SUB_BITS+1), then 2^SUB_BITS a power of two.
pub fn latency_bucket(ns: u64) -> usize {
    let msb = 63 - (ns | 1).leading_zeros();
    if msb <= SUB_BITS {
        ns as usize
    } else {
        let e = msb - SUB_BITS;
        (((e + 1) << SUB_BITS) as usize) + ((ns >> e) as usize - (1usize << SUB_BITS))
    }
}

/// The latencies bucket `index` holds: `[low, high)`.
pub fn latency_range(index: usize) -> (u64, u64) {
    let sub = 1usize << SUB_BITS;
    if index < 2 * sub {
        (index as u64, index as u64 + 1)
    } else {
        let e = (index >> SUB_BITS) as u32 - 1;
        let low = ((index - (e as usize + 1) * sub + sub) as u64) << e;
        (low, low.saturating_add(1u64 << e))
    }
}

/// One bucket as stored: its range and the tally of what fell in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bucket {
    /// Low end (ns, latency or completion time), included.
    pub low_ns: u64,
    /// High end, excluded.
    pub high_ns: u64,
    /// What fell in it.
    pub tally: Tally,
}

/// A job's histogram: latency buckets per operation (read, write) and the completions over
/// time, each in ascending order with no empty bucket.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Histogram {
    /// Reads' and writes' latency buckets.
    pub latency: [Vec<Bucket>; 2],
    /// Completion-time buckets (both operations).
    pub time: Vec<Bucket>,
}

/// Completions over time, in buckets `2^shift` ns wide from index `base`.
#[derive(Debug, Clone, Default)]
struct Timeline {
    shift: u32,
    base: u64,
    buckets: Vec<Tally>,
}

impl Timeline {
    #[inline]
    fn add(&mut self, s: &Sample) {
        let t = s.submit_ns + s.latency_ns;
        let mut i = t >> self.shift;
        if self.buckets.is_empty() {
            self.base = i;
        }
        if i < self.base || i - self.base >= TIME_BUCKETS {
            self.fit(t);
            i = t >> self.shift;
        }
        let k = (i - self.base) as usize;
        if k >= self.buckets.len() {
            self.buckets.resize(k + 1, Tally::default());
        }
        self.buckets[k].add(s);
    }

    /// Widens the buckets until `t` fits within [`TIME_BUCKETS`] of them, and moves the base
    /// down if `t` is before it.
    fn fit(&mut self, t: u64) {
        loop {
            let i = t >> self.shift;
            let last = self.base + self.buckets.len().max(1) as u64 - 1;
            let (lo, hi) = (i.min(self.base), i.max(last));
            if hi - lo < TIME_BUCKETS {
                if lo < self.base {
                    let mut moved = vec![Tally::default(); (self.base - lo) as usize];
                    moved.append(&mut self.buckets);
                    self.buckets = moved;
                    self.base = lo;
                }
                return;
            }
            self.widen(self.shift + 1);
        }
    }

    fn widen(&mut self, shift: u32) {
        let by = shift - self.shift;
        let base = self.base >> by;
        let mut out: Vec<Tally> = Vec::new();
        for (k, t) in self.buckets.iter().enumerate() {
            let j = (((self.base + k as u64) >> by) - base) as usize;
            if j >= out.len() {
                out.resize(j + 1, Tally::default());
            }
            out[j].merge(t);
        }
        self.shift = shift;
        self.base = base;
        self.buckets = out;
    }
}

/// One engine loop's histogram, filled sample by sample.
#[derive(Debug, Clone, Default)]
pub struct Recorder {
    latency: [Vec<Tally>; 2],
    time: Timeline,
}

impl Recorder {
    /// Counts one sample.
    #[inline]
    pub fn add(&mut self, s: &Sample) {
        let per_op = &mut self.latency[(s.op == Op::Write) as usize];
        let b = latency_bucket(s.latency_ns);
        if b >= per_op.len() {
            per_op.resize(b + 1, Tally::default());
        }
        per_op[b].add(s);
        self.time.add(s);
    }

    /// The histograms of every loop together, in the coarsest of their time resolutions.
    pub fn combine(recorders: Vec<Recorder>) -> Histogram {
        let shift = recorders.iter().map(|r| r.time.shift).max().unwrap_or(0);
        let mut latency: [BTreeMap<usize, Tally>; 2] = Default::default();
        let mut time: BTreeMap<u64, Tally> = BTreeMap::new();
        for r in &recorders {
            for (op, buckets) in r.latency.iter().enumerate() {
                for (i, t) in buckets.iter().enumerate().filter(|(_, t)| t.ios > 0) {
                    latency[op].entry(i).or_default().merge(t);
                }
            }
            let by = shift - r.time.shift;
            for (k, t) in r.time.buckets.iter().enumerate().filter(|(_, t)| t.ios > 0) {
                time.entry((r.time.base + k as u64) >> by)
                    .or_default()
                    .merge(t);
            }
        }
        // Loops that ran at different times can together span more than TIME_BUCKETS.
        let (mut shift, mut time) = (shift, time);
        while let (Some(a), Some(b)) = (time.keys().next(), time.keys().next_back()) {
            if b - a < TIME_BUCKETS {
                break;
            }
            let mut wider: BTreeMap<u64, Tally> = BTreeMap::new();
            for (i, t) in &time {
                wider.entry(i >> 1).or_default().merge(t);
            }
            time = wider;
            shift += 1;
        }
        let latency = latency.map(|m| {
            m.into_iter()
                .map(|(i, tally)| {
                    let (low_ns, high_ns) = latency_range(i);
                    Bucket {
                        low_ns,
                        high_ns,
                        tally,
                    }
                })
                .collect()
        });
        let time = time
            .into_iter()
            .map(|(i, tally)| Bucket {
                low_ns: i << shift,
                high_ns: (i + 1) << shift,
                tally,
            })
            .collect();
        Histogram { latency, time }
    }
}

/// The kinds of rows, in code order.
const KINDS: [&str; 2] = ["latency", "time"];
/// The operations of rows, in code order (a time row counts both).
const OPS: [&str; 3] = ["read", "write", "all"];

fn categories(values: &[&str]) -> PolarsResult<DataType> {
    Ok(DataType::from_frozen_categories(FrozenCategories::new(
        values.iter().copied(),
    )?))
}

impl Histogram {
    /// Rows in its file.
    pub fn rows(&self) -> usize {
        self.latency[0].len() + self.latency[1].len() + self.time.len()
    }

    fn frame(&self) -> PolarsResult<DataFrame> {
        let rows = self
            .latency
            .iter()
            .enumerate()
            .flat_map(|(op, b)| b.iter().map(move |b| (0u8, op as u8, b)))
            .chain(self.time.iter().map(|b| (1u8, 2u8, b)))
            .collect::<Vec<_>>();
        let n = rows.len();
        let cat = |name: &str, codes: Vec<u8>, values: &[&str]| -> PolarsResult<Column> {
            Ok(Categorical8Chunked::from_cats_and_dtype(
                UInt8Chunked::from_vec(name.into(), codes),
                categories(values)?,
            )
            .into_series()
            .into_column())
        };
        let u64s = |name: &str, f: &dyn Fn(&Bucket) -> u64| {
            Column::new(
                name.into(),
                rows.iter().map(|r| f(r.2)).collect::<Vec<u64>>(),
            )
        };
        DataFrame::new(
            n,
            vec![
                cat("kind", rows.iter().map(|r| r.0).collect(), &KINDS)?,
                cat("op", rows.iter().map(|r| r.1).collect(), &OPS)?,
                u64s("low_ns", &|b| b.low_ns),
                u64s("high_ns", &|b| b.high_ns),
                u64s("ios", &|b| b.tally.ios),
                u64s("bytes", &|b| b.tally.bytes),
                u64s("latency_sum_ns", &|b| b.tally.latency_sum_ns),
                u64s("latency_min_ns", &|b| b.tally.latency_min_ns),
                u64s("latency_max_ns", &|b| b.tally.latency_max_ns),
                u64s("first_submit_ns", &|b| b.tally.first_submit_ns),
                u64s("last_complete_ns", &|b| b.tally.last_complete_ns),
            ],
        )
    }

    /// Writes the histogram as Parquet to `path` (the caller renames it into place).
    pub fn write(&self, path: &Path) -> Result<()> {
        let store_err = |e: PolarsError| Error::Store {
            path: path.to_path_buf(),
            message: e.to_string(),
        };
        let mut df = self.frame().map_err(store_err)?;
        let file = File::create(path).map_err(|e| Error::io(path, e))?;
        let level = polars::polars_utils::compression::ZstdLevel::try_new(3).ok();
        ParquetWriter::new(file)
            .with_compression(ParquetCompression::Zstd(level))
            .finish(&mut df)
            .map_err(store_err)?;
        File::open(path)
            .and_then(|f| f.sync_all())
            .map_err(|e| Error::io(path, e))
    }

    /// Reads a histogram written by [`write`](Self::write); an error says what is wrong.
    pub fn read(path: &Path) -> std::result::Result<Histogram, String> {
        let fail = |e: &dyn std::fmt::Display| {
            format!("{}: cannot read the histogram ({e})", path.display())
        };
        let file = File::open(path).map_err(|e| fail(&e))?;
        let df = ParquetReader::new(file).finish().map_err(|e| fail(&e))?;
        if let Some(c) = df.columns().iter().find(|c| c.null_count() > 0) {
            return Err(fail(&format!(
                "the column {:?} has missing values",
                c.name().as_str()
            )));
        }
        let text = |name: &str| -> PolarsResult<Vec<String>> {
            let s = df
                .column(name)?
                .as_materialized_series()
                .cast(&DataType::String)?;
            Ok(s.str()?
                .downcast_iter()
                .flat_map(|a| a.values_iter().map(str::to_string))
                .collect())
        };
        let u64s = |name: &str| super::u64_values(df.column(name)?.as_materialized_series());
        let columns = (|| -> PolarsResult<_> {
            Ok((
                text("kind")?,
                text("op")?,
                [
                    u64s("low_ns")?,
                    u64s("high_ns")?,
                    u64s("ios")?,
                    u64s("bytes")?,
                    u64s("latency_sum_ns")?,
                    u64s("latency_min_ns")?,
                    u64s("latency_max_ns")?,
                    u64s("first_submit_ns")?,
                    u64s("last_complete_ns")?,
                ],
            ))
        })()
        .map_err(|e| fail(&e))?;
        let (kind, op, [low, high, ios, bytes, sum, min, max, first, last]) = columns;
        let mut h = Histogram::default();
        for i in 0..kind.len() {
            let b = Bucket {
                low_ns: low[i],
                high_ns: high[i],
                tally: Tally {
                    ios: ios[i],
                    bytes: bytes[i],
                    latency_sum_ns: sum[i],
                    latency_min_ns: min[i],
                    latency_max_ns: max[i],
                    first_submit_ns: first[i],
                    last_complete_ns: last[i],
                },
            };
            match (kind[i].as_str(), op[i].as_str()) {
                ("latency", "read") => h.latency[0].push(b),
                ("latency", "write") => h.latency[1].push(b),
                ("time", _) => h.time.push(b),
                (k, o) => return Err(fail(&format!("row {i}: unknown kind {k:?} or op {o:?}"))),
            }
        }
        for list in h.latency.iter_mut().chain([&mut h.time]) {
            list.sort_by_key(|b| b.low_ns);
        }
        Ok(h)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_contiguous_and_hold_their_values() {
        let mut expected_low = 0;
        for i in 0..(40usize << SUB_BITS) {
            let (lo, hi) = latency_range(i);
            assert_eq!(lo, expected_low, "bucket {i}");
            assert!(hi > lo);
            assert_eq!(latency_bucket(lo), i);
            assert_eq!(latency_bucket(hi - 1), i);
            // No wider than 1/2^SUB_BITS of its values.
            assert!(
                (hi - lo) * (1 << SUB_BITS) <= lo.max(1 << SUB_BITS),
                "bucket {i}"
            );
            expected_low = hi;
        }
        assert_eq!(latency_bucket(u64::MAX), latency_bucket(u64::MAX - 1));
    }

    fn sample(op: Op, submit_ns: u64, latency_ns: u64) -> Sample {
        Sample {
            seq: 0,
            op,
            offset: 0,
            len: 4096,
            submit_ns,
            latency_ns,
            qd: 1,
        }
    }

    #[test]
    fn loops_combine_into_one_timeline_within_its_bucket_limit() {
        let mut a = Recorder::default();
        let mut b = Recorder::default();
        for k in 0..100_000u64 {
            a.add(&sample(Op::Read, k * 1000, 500));
            b.add(&sample(Op::Write, 50_000_000 + k * 3000, 700 + k % 5000));
        }
        let h = Recorder::combine(vec![a, b]);
        let ios = |v: &[Bucket]| v.iter().map(|b| b.tally.ios).sum::<u64>();
        assert_eq!(ios(&h.latency[0]), 100_000);
        assert_eq!(ios(&h.latency[1]), 100_000);
        assert_eq!(ios(&h.time), 200_000);
        let (first, last) = (h.time[0].low_ns, h.time.last().unwrap().high_ns);
        let width = h.time[0].high_ns - h.time[0].low_ns;
        assert!((last - first) / width <= TIME_BUCKETS);
        assert!(h.time.windows(2).all(|w| w[0].high_ns <= w[1].low_ns));
        for b in &h.time {
            assert!(b.tally.last_complete_ns < b.high_ns && b.tally.last_complete_ns >= b.low_ns);
        }
        assert_eq!(h.latency[1][0].tally.latency_min_ns, 700);
        assert_eq!(
            h.latency[1].last().unwrap().tally.latency_max_ns,
            700 + 4999
        );
    }

    #[test]
    fn a_histogram_reads_back_as_written() {
        let mut r = Recorder::default();
        for k in 0..10_000u64 {
            let op = if k % 3 == 0 { Op::Write } else { Op::Read };
            r.add(&sample(op, k * 10_000, 20_000 + (k * 7919) % 900_000));
        }
        let h = Recorder::combine(vec![r]);
        let dir = std::env::temp_dir().join(format!("roundup-histogram-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(HISTOGRAM);
        h.write(&path).unwrap();
        let back = Histogram::read(&path).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(back, h);
        assert_eq!(back.rows(), h.rows());
    }
}
