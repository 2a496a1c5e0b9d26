//! Trace playback as a request source: the trace's order, offsets remapped into the span,
//! requests aligned for direct I/O, recorded queue depths and (timed mode) issue times.

use serde::{Deserialize, Serialize};

use crate::io::{Command, IoRequest, Op};
use crate::trace::{TraceOp, TraceRequest};
use crate::workload::{Remap, ReplayMode, ReplaySpec};

use super::IoSource;

/// What playback changed or left out, for the manifest.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ReplayReport {
    /// Requests issued.
    pub issued: u64,
    /// Requests whose offset lay beyond the span and were remapped into it.
    pub remapped: u64,
    /// Requests whose offset or length was moved to the target's logical block (widened
    /// for a read or write, narrowed for a trim; a trim of less than a block is dropped).
    pub aligned: u64,
    /// Trims issued (each with nothing else in flight).
    pub trims: u64,
    /// Flushes issued (each with nothing else in flight).
    pub flushes: u64,
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
    /// Idle gaps cut to this (trace ns), the idle removed before the next request so far,
    /// and the time of the request before it.
    max_idle: Option<u64>,
    removed: u64,
    prev_time: u64,
    next_seq: u64,
    max_len: u32,
    report: ReplayReport,
}

/// The longest of `requests` once played on a span of `span` bytes with a logical block of
/// `block`: widened to whole blocks (a block more for one that straddles them), at most the
/// span. The buffer each slot of the playback needs.
pub fn placed_len(requests: &[TraceRequest], span: u64, block: u64) -> u64 {
    let block = block.max(1);
    let longest = requests.iter().map(|r| r.len as u64).max().unwrap_or(block);
    (longest.div_ceil(block) * block + block)
        .min(span / block * block)
        .max(block)
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
        let max_len = placed_len(requests, span, block) as u32;
        TraceSource {
            requests,
            pos: 0,
            span,
            block,
            remap: spec.remap,
            scale: span as f64 / max_end as f64,
            mode: spec.mode,
            time_scale: spec.time_scale,
            max_idle: spec.max_idle,
            removed: 0,
            prev_time: 0,
            next_seq: 0,
            max_len,
            report: ReplayReport::default(),
        }
    }

    /// The idle cut from the gap before request `r` (with `max_idle`).
    fn cut(&self, r: &TraceRequest) -> u64 {
        self.max_idle.map_or(0, |c| {
            r.time_ns.saturating_sub(self.prev_time).saturating_sub(c)
        })
    }

    /// Moves past the next request of the trace, keeping the idle cut so far.
    fn step(&mut self) {
        if let Some(r) = self.requests.get(self.pos).copied() {
            self.removed += self.cut(&r);
            self.prev_time = self.prev_time.max(r.time_ns);
        }
        self.pos += 1;
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

    /// Where a range of the trace lands on the span: `offset` (a multiple of the block)
    /// moved into the span as the test says if the range does not fit, and `len` cut to
    /// what is left of the span.
    fn place(&mut self, offset: u64, len: u64) -> (u64, u64) {
        let b = self.block;
        let len = len.min(self.span / b * b);
        if offset + len <= self.span {
            return (offset, len);
        }
        self.report.remapped += 1;
        let room = self.span - len;
        let offset = match self.remap {
            Remap::Modulo => offset % (room + b),
            Remap::Scale => ((offset as f64 * self.scale) as u64).min(room),
        } / b
            * b;
        (offset, len)
    }
}

impl IoSource for TraceSource<'_> {
    /// The next read or write; a caller that does not take commands first
    /// ([`IoSource::next_command`]) plays the trace without them.
    fn next_request(&mut self) -> Option<IoRequest> {
        loop {
            let r = *self.requests.get(self.pos)?;
            self.step();
            let op = match r.op {
                TraceOp::Read => Op::Read,
                TraceOp::Write => Op::Write,
                TraceOp::Trim | TraceOp::Flush => continue,
            };
            let b = self.block;
            let start = r.offset / b * b;
            let end = (r.offset + r.len as u64).div_ceil(b) * b;
            if start != r.offset || end != r.offset + r.len as u64 {
                self.report.aligned += 1;
            }
            let (offset, len) = self.place(start, (end - start).min(self.max_len as u64));
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

    fn next_command(&mut self) -> Option<Command> {
        loop {
            let r = *self.requests.get(self.pos)?;
            match r.op {
                TraceOp::Read | TraceOp::Write => return None,
                TraceOp::Flush => {
                    self.step();
                    self.report.flushes += 1;
                    return Some(Command::Flush);
                }
                TraceOp::Trim => {
                    self.step();
                    // Only whole blocks can be discarded: the range narrows to them.
                    let b = self.block;
                    let start = r.offset.div_ceil(b) * b;
                    let end = (r.offset + r.len as u64) / b * b;
                    if start != r.offset || end != r.offset + r.len as u64 {
                        self.report.aligned += 1;
                    }
                    if end <= start {
                        continue;
                    }
                    let (offset, len) = self.place(start, end - start);
                    self.report.trims += 1;
                    return Some(Command::Trim { offset, len });
                }
            }
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
            ReplayMode::Timed => self.requests.get(self.pos).map(|r| {
                let t = r.time_ns.saturating_sub(self.removed + self.cut(r));
                (t as f64 / self.time_scale) as u64
            }),
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
            trace: crate::workload::TraceInput::File {
                path: "t".into(),
                format: None,
            },

            mode,
            time_scale: 2.0,
            max_idle: None,
            remap,
        }
    }

    #[test]
    fn idle_gaps_are_cut_to_the_cap() {
        const MS: u64 = 1_000_000;
        let reqs = [
            tr(100 * MS, TraceOp::Read, 0, 4096, None), // 100 ms idle first: cut to 25
            tr(110 * MS, TraceOp::Read, 0, 4096, None),
            tr(310 * MS, TraceOp::Flush, 0, 0, None), // 200 ms: 25
            tr(320 * MS, TraceOp::Write, 0, 4096, None),
        ];
        let mut spec = spec(ReplayMode::Timed, Remap::Modulo);
        spec.time_scale = 1.0;
        spec.max_idle = Some(25 * MS);
        let mut s = TraceSource::new(&reqs, &spec, 8 << 20, 512);
        let mut deadlines = Vec::new();
        while let Some(d) = s.next_deadline() {
            deadlines.push(d / MS);
            if s.next_command().is_none() {
                s.next_request();
            }
        }
        assert_eq!(deadlines, [25, 35, 60, 70]);
    }

    #[test]
    fn aligns_remaps_and_gives_trims_and_flushes_in_their_place() {
        let reqs = [
            tr(0, TraceOp::Write, 1000, 2560, Some(3)), // unaligned
            tr(10, TraceOp::Trim, 100, 8192, None),     // narrowed to 512..8192
            tr(12, TraceOp::Trim, 600, 100, None),      // under a block: dropped
            tr(14, TraceOp::Flush, 0, 0, None),
            tr(20, TraceOp::Read, 10 << 20, 4096, None), // beyond an 8 MiB span
            tr(30, TraceOp::Read, 4096, 4096, None),
            tr(40, TraceOp::Trim, 6 << 20, 4 << 20, None), // runs past the span's end
        ];
        let mut s = TraceSource::new(&reqs, &spec(ReplayMode::Timed, Remap::Modulo), 8 << 20, 512);
        assert_eq!(s.depth_limit(), Some(3));
        assert_eq!(s.next_deadline(), Some(0));
        assert_eq!(s.next_command(), None, "a write comes first");
        let a = s.next_request().unwrap();
        assert_eq!((a.op, a.offset, a.len), (Op::Write, 512, 3072));
        assert_eq!(s.next_deadline(), Some(5), "the trim's time, halved");
        assert_eq!(
            s.next_command(),
            Some(Command::Trim {
                offset: 512,
                len: 7680
            })
        );
        assert_eq!(
            s.next_command(),
            Some(Command::Flush),
            "the trim of less than a block is dropped"
        );
        assert_eq!(s.next_command(), None);
        assert_eq!(s.next_deadline(), Some(10));
        let b = s.next_request().unwrap();
        assert_eq!(
            (b.offset, b.len),
            ((10 << 20) % ((8 << 20) - 4096 + 512) / 512 * 512, 4096)
        );
        assert!(b.offset + b.len as u64 <= 8 << 20);
        let c = s.next_request().unwrap();
        assert_eq!(c.offset, 4096);
        assert_eq!(s.next_deadline(), Some(20));
        match s.next_command() {
            Some(Command::Trim { offset, len }) => {
                assert_eq!(len, 4 << 20);
                assert!(offset + len <= 8 << 20 && offset % 512 == 0, "{offset}");
            }
            other => panic!("expected the last trim, found {other:?}"),
        }
        assert_eq!(s.next_command(), None);
        assert!(s.next_request().is_none());
        let r = s.report();
        assert_eq!(
            (r.issued, r.aligned, r.remapped, r.trims, r.flushes),
            (3, 3, 2, 2, 1)
        );
    }

    #[test]
    fn a_caller_without_commands_plays_the_requests_alone() {
        let reqs = [
            tr(0, TraceOp::Trim, 0, 4096, None),
            tr(1, TraceOp::Read, 0, 4096, None),
            tr(2, TraceOp::Flush, 0, 0, None),
        ];
        let mut s = TraceSource::new(
            &reqs,
            &spec(ReplayMode::AsFastAsPossible, Remap::Modulo),
            8 << 20,
            512,
        );
        assert_eq!(s.next_request().map(|r| r.op), Some(Op::Read));
        assert!(s.next_request().is_none());
        assert_eq!((s.report().trims, s.report().flushes), (0, 0));
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
