//! What a review prints about a trace.

use std::collections::BTreeMap;

use serde::Serialize;

use super::{Trace, TraceOp};
use crate::units::SizeLabel;

/// The share of one request size.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SizeShare {
    /// Request size in bytes.
    pub bytes: u32,
    /// `4 KiB`.
    pub label: String,
    /// Percent of the requests that move data.
    pub percent: f64,
}

/// A trace's statistics.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TraceStats {
    /// Source format.
    pub format: String,
    /// All requests.
    pub requests: u64,
    /// Reads.
    pub reads: u64,
    /// Writes.
    pub writes: u64,
    /// Trims.
    pub trims: u64,
    /// Flushes.
    pub flushes: u64,
    /// Bytes read.
    pub read_bytes: u64,
    /// Bytes written.
    pub write_bytes: u64,
    /// Request sizes, most frequent first.
    pub sizes: Vec<SizeShare>,
    /// Percent of data requests that start where the previous one of the same kind ended.
    pub sequential_percent: f64,
    /// Average queue depth, where the trace allows computing it.
    pub average_qd: Option<f64>,
    /// Where the average queue depth comes from.
    pub qd_source: String,
    /// Distinct bytes touched.
    pub footprint_bytes: u64,
    /// Highest byte touched (the span a replay needs).
    pub max_offset: u64,
    /// The devices of a multi-device trace, laid out one after another (empty for one).
    pub devices: Vec<super::TraceDevice>,
    /// From the first issue to the last issue (or completion), seconds.
    pub duration_s: f64,
    /// Malformed lines skipped on import.
    pub skipped: u64,
}

/// The bytes a set of (start, end) extents covers, each byte once.
fn footprint(mut extents: Vec<(u64, u64)>) -> u64 {
    extents.sort_unstable();
    let (mut covered, mut cur_end) = (0u64, 0u64);
    for (start, end) in extents {
        let start = start.max(cur_end);
        if end > start {
            covered += end - start;
            cur_end = end;
        }
    }
    covered
}

/// A trace's duration (to its last completion, where every request records one) and its
/// average queue depth, from the times or the depths it records.
fn timing(t: &Trace, s: &mut TraceStats) {
    let first = t.requests.first().map(|r| r.time_ns).unwrap_or(0);
    let last_issue = t.requests.last().map(|r| r.time_ns).unwrap_or(0);
    let all_complete = t.requests.iter().all(|r| r.complete_ns.is_some());
    let last = if all_complete {
        t.requests
            .iter()
            .filter_map(|r| r.complete_ns)
            .max()
            .unwrap_or(last_issue)
            .max(last_issue)
    } else {
        last_issue
    };
    s.duration_s = (last - first) as f64 / 1e9;
    if all_complete && last > first {
        // Little's law: the time-average of requests in flight.
        let busy: u64 = t
            .requests
            .iter()
            .map(|r| r.complete_ns.unwrap_or(r.time_ns).saturating_sub(r.time_ns))
            .sum();
        s.average_qd = Some(busy as f64 / (last - first) as f64);
        s.qd_source = "issue and completion times".into();
    } else if t.requests.iter().all(|r| r.qd.is_some()) {
        s.average_qd = Some(
            t.requests
                .iter()
                .filter_map(|r| r.qd)
                .map(|q| q as f64)
                .sum::<f64>()
                / t.requests.len() as f64,
        );
        s.qd_source = "queue depths recorded at issue".into();
    } else {
        s.qd_source = "not in the trace: measured when it is replayed".into();
    }
}

/// Computes the statistics of a trace.
pub fn stats(t: &Trace) -> TraceStats {
    let mut s = TraceStats {
        format: t.format.to_string(),
        requests: t.requests.len() as u64,
        reads: 0,
        writes: 0,
        trims: 0,
        flushes: 0,
        read_bytes: 0,
        write_bytes: 0,
        sizes: vec![],
        sequential_percent: 0.0,
        average_qd: None,
        qd_source: String::new(),
        footprint_bytes: 0,
        max_offset: 0,
        devices: t.devices.clone(),
        duration_s: 0.0,
        skipped: t.skipped as u64,
    };
    let mut sizes: BTreeMap<u32, u64> = BTreeMap::new();
    let mut prev_end: BTreeMap<TraceOp, u64> = BTreeMap::new();
    let mut sequential = 0u64;
    let mut data_requests = 0u64;
    let mut extents: Vec<(u64, u64)> = Vec::with_capacity(t.requests.len());
    for r in &t.requests {
        match r.op {
            TraceOp::Read => {
                s.reads += 1;
                s.read_bytes += r.len as u64;
            }
            TraceOp::Write => {
                s.writes += 1;
                s.write_bytes += r.len as u64;
            }
            TraceOp::Trim => s.trims += 1,
            TraceOp::Flush => s.flushes += 1,
        }
        if r.op == TraceOp::Flush {
            continue;
        }
        data_requests += 1;
        *sizes.entry(r.len).or_default() += 1;
        let end = r.offset + r.len as u64;
        if prev_end.insert(r.op, end) == Some(r.offset) {
            sequential += 1;
        }
        extents.push((r.offset, end));
        s.max_offset = s.max_offset.max(end);
    }
    let mut by_share: Vec<(u32, u64)> = sizes.into_iter().collect();
    by_share.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    s.sizes = by_share
        .into_iter()
        .map(|(bytes, n)| SizeShare {
            bytes,
            label: SizeLabel(bytes as u64).to_string(),
            percent: n as f64 * 100.0 / data_requests.max(1) as f64,
        })
        .collect();
    s.sequential_percent = sequential as f64 * 100.0 / data_requests.max(1) as f64;
    s.footprint_bytes = footprint(extents);
    timing(t, &mut s);
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::{Format, TraceRequest};

    fn r(t: u64, op: TraceOp, offset: u64, len: u32, done: Option<u64>) -> TraceRequest {
        TraceRequest {
            time_ns: t,
            op,
            offset,
            len,
            complete_ns: done,
            qd: None,
            process: None,
        }
    }

    #[test]
    fn counts_sizes_sequential_footprint_and_qd() {
        let t = Trace {
            requests: vec![
                r(0, TraceOp::Read, 0, 4096, Some(100)),
                r(10, TraceOp::Read, 4096, 4096, Some(110)), // sequential read
                r(20, TraceOp::Write, 0, 16384, Some(220)),  // overlaps the reads
                r(30, TraceOp::Write, 16384, 4096, Some(130)), // sequential write
                r(40, TraceOp::Read, 1 << 20, 4096, Some(140)),
            ],
            format: Format::Mqsim,
            skipped: 0,
            devices: Vec::new(),
        };
        let s = stats(&t);
        assert_eq!(
            (s.reads, s.writes, s.read_bytes, s.write_bytes),
            (3, 2, 12288, 20480)
        );
        assert_eq!(s.sizes[0].bytes, 4096);
        assert!((s.sizes[0].percent - 80.0).abs() < 1e-9);
        assert!((s.sequential_percent - 40.0).abs() < 1e-9);
        assert_eq!(s.footprint_bytes, 20480 + 4096);
        assert_eq!(s.max_offset, (1 << 20) + 4096);
        // In flight: 100+100+200+100+100 = 600 ns over 220 ns.
        assert!((s.average_qd.unwrap() - 600.0 / 220.0).abs() < 1e-9);
    }
}
