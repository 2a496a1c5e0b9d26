//! Trace playback as a request source: the trace's order, offsets remapped into the span,
//! requests aligned for direct I/O, recorded queue depths and (timed mode) issue times.

use serde::{Deserialize, Serialize};

use super::{IoRequest, IoSource, Op};
use crate::suite::{Remap, ReplayMode, ReplaySpec};
use crate::trace::{TraceOp, TraceRequest};

/// What playback changed or left out, for the manifest.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ReplayReport {
    /// Requests issued.
    pub issued: u64,
    /// Requests whose offset lay beyond the span and were remapped into it.
    pub remapped: u64,
    /// Requests whose offset or length was widened to the target's logical block.
    pub aligned: u64,
    /// Trims and flushes passed over (not replayed).
    pub passed_over: u64,
    /// Timed mode: mean lateness of issues behind their deadlines (µs).
    pub lag_mean_us: f64,
    /// Timed mode: the latest issue behind its deadline (µs).
    pub lag_max_us: f64,
    /// Timed mode: issues more than a millisecond late.
    pub late_issues: u64,
    /// The average queue depth the playback ran at (I/Os in flight at each issue, itself
    /// included): the trace's own where it records one, else what the drive sustained.
    pub average_qd: f64,
}

/// Plays a trace's requests onto a span of a target.
pub struct TraceSource<'t> {
    requests: &'t [TraceRequest],
    pos: usize,
    span: u64,
    block: u64,
    remap: Remap,
    scale: f64,
    mode: ReplayMode,
    time_scale: f64,
    next_seq: u64,
    max_len: u32,
    report: ReplayReport,
}

impl<'t> TraceSource<'t> {
    /// A source over `requests` for a span of `span` bytes and a logical block of `block`.
    pub fn new(
        requests: &'t [TraceRequest],
        spec: &ReplaySpec,
        span: u64,
        block: u64,
    ) -> TraceSource<'t> {
        let block = block.max(1);
        let max_end = requests
            .iter()
            .map(|r| r.offset + r.len as u64)
            .max()
            .unwrap_or(0)
            .max(1);
        let longest = requests.iter().map(|r| r.len as u64).max().unwrap_or(block);
        let max_len = (longest.div_ceil(block) * block + block)
            .min(span / block * block)
            .max(block) as u32;
        TraceSource {
            requests,
            pos: 0,
            span,
            block,
            remap: spec.remap,
            scale: span as f64 / max_end as f64,
            mode: spec.mode,
            time_scale: spec.time_scale,
            next_seq: 0,
            max_len,
            report: ReplayReport::default(),
        }
    }

    /// What playback changed, so far.
    pub fn report(&self) -> &ReplayReport {
        &self.report
    }

    fn next_data(&self) -> Option<&TraceRequest> {
        self.requests[self.pos..]
            .iter()
            .find(|r| matches!(r.op, TraceOp::Read | TraceOp::Write))
    }
}

impl IoSource for TraceSource<'_> {
    fn next_request(&mut self) -> Option<IoRequest> {
        loop {
            let r = *self.requests.get(self.pos)?;
            self.pos += 1;
            let op = match r.op {
                TraceOp::Read => Op::Read,
                TraceOp::Write => Op::Write,
                TraceOp::Trim | TraceOp::Flush => {
                    self.report.passed_over += 1;
                    continue;
                }
            };
            let b = self.block;
            let start = r.offset / b * b;
            let end = (r.offset + r.len as u64).div_ceil(b) * b;
            if start != r.offset || end != r.offset + r.len as u64 {
                self.report.aligned += 1;
            }
            let len = (end - start).min(self.max_len as u64);
            let mut offset = start;
            if offset + len > self.span {
                self.report.remapped += 1;
                let room = self.span - len;
                offset = match self.remap {
                    Remap::Modulo => offset % (room + b),
                    Remap::Scale => ((offset as f64 * self.scale) as u64).min(room),
                } / b
                    * b;
            }
            let seq = self.next_seq;
            self.next_seq += 1;
            self.report.issued += 1;
            return Some(IoRequest {
                seq,
                op,
                offset,
                len: len as u32,
            });
        }
    }

    fn max_len(&self) -> u32 {
        self.max_len
    }

    fn depth_limit(&self) -> Option<u32> {
        self.next_data().and_then(|r| r.qd).map(|q| q.max(1))
    }

    fn next_deadline(&self) -> Option<u64> {
        match self.mode {
            ReplayMode::Timed => self
                .next_data()
                .map(|r| (r.time_ns as f64 / self.time_scale) as u64),
            ReplayMode::AsFastAsPossible => None,
        }
    }

    fn replay_report(&self) -> Option<ReplayReport> {
        Some(self.report.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tr(t: u64, op: TraceOp, offset: u64, len: u32, qd: Option<u32>) -> TraceRequest {
        TraceRequest {
            time_ns: t,
            op,
            offset,
            len,
            complete_ns: None,
            qd,
            process: None,
        }
    }

    fn spec(mode: ReplayMode, remap: Remap) -> ReplaySpec {
        ReplaySpec {
            trace: crate::suite::TraceInput::File {
                path: "t".into(),
                format: None,
            },

            mode,
            time_scale: 2.0,
            remap,
        }
    }

    #[test]
    fn aligns_remaps_and_passes_over_trims() {
        let reqs = [
            tr(0, TraceOp::Write, 1000, 2560, Some(3)),  // unaligned
            tr(10, TraceOp::Trim, 0, 4096, None),        // passed over
            tr(20, TraceOp::Read, 10 << 20, 4096, None), // beyond an 8 MiB span
            tr(30, TraceOp::Read, 4096, 4096, None),
        ];
        let mut s = TraceSource::new(&reqs, &spec(ReplayMode::Timed, Remap::Modulo), 8 << 20, 512);
        assert_eq!(s.depth_limit(), Some(3));
        assert_eq!(s.next_deadline(), Some(0));
        let a = s.next_request().unwrap();
        assert_eq!((a.op, a.offset, a.len), (Op::Write, 512, 3072));
        assert_eq!(
            s.next_deadline(),
            Some(10),
            "the trim is passed over: the next deadline is the read's, halved"
        );
        let b = s.next_request().unwrap();
        assert_eq!(
            (b.offset, b.len),
            ((10 << 20) % ((8 << 20) - 4096 + 512) / 512 * 512, 4096)
        );
        assert!(b.offset + b.len as u64 <= 8 << 20);
        let c = s.next_request().unwrap();
        assert_eq!(c.offset, 4096);
        assert!(s.next_request().is_none());
        let r = s.report();
        assert_eq!(
            (r.issued, r.aligned, r.remapped, r.passed_over),
            (3, 1, 1, 1)
        );
    }

    #[test]
    fn scale_keeps_the_layout() {
        let reqs = [
            tr(0, TraceOp::Read, 0, 4096, None),
            tr(1, TraceOp::Read, 100 << 20, 4096, None),
        ];
        let mut s = TraceSource::new(
            &reqs,
            &spec(ReplayMode::AsFastAsPossible, Remap::Scale),
            10 << 20,
            4096,
        );
        assert_eq!(s.next_deadline(), None);
        assert_eq!(s.next_request().unwrap().offset, 0);
        let far = s.next_request().unwrap().offset;
        assert!(far > 9 << 20 && far + 4096 <= 10 << 20, "{far}");
    }
}
