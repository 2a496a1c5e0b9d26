//! The queue of a simulated drive: the engine's submit and reap on a virtual clock. A
//! model that reserves its resources when a request is submitted ([`Reserving`]) knows the
//! completion at once; the queue keeps completions in (time, sequence) order and moves the
//! drive's clock to each as it is reaped.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::error::{Error, Result};
use crate::io::{Command, IoRequest, Op, WriteData};

use super::{AlignedBuf, Completion, IoQueue, TargetError};

/// A completion due: when, the request's sequence (equal times in the order the requests
/// were issued), and its slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Due {
    at: u64,
    seq: u64,
    slot: u32,
}

/// The completions not yet reaped, taken in (time, request sequence) order. A shallow
/// queue keeps them in a vector sorted latest first, so that the earliest is taken off
/// its end and a new one (mostly the latest) goes in after a comparison or two: a heap's
/// sifting cost a QD3 run an eighth of its time. Past [`Done::SORTED_MAX`] entries (a
/// deep queue, QD32 on many threads) they move to a min-heap for good, where each costs a
/// few comparisons, not a shift of every entry.
#[derive(Debug, Default)]
pub(super) struct Done {
    /// Latest first, while the queue is shallow.
    sorted: Vec<Due>,
    heap: BinaryHeap<Reverse<Due>>,
    deep: bool,
}

impl Done {
    /// The entries a sorted vector holds before they move to the heap.
    const SORTED_MAX: usize = 64;

    /// Room for `depth` completions.
    pub fn with_capacity(depth: usize) -> Done {
        let mut d = Done::default();
        if depth > Self::SORTED_MAX {
            d.deep = true;
            d.heap.reserve(depth);
        } else {
            d.sorted.reserve(depth);
        }
        d
    }

    /// A completion at `t` of request `seq` on `slot`.
    pub fn push(&mut self, t: u64, seq: u64, slot: u32) {
        let due = Due { at: t, seq, slot };
        if !self.deep && self.sorted.len() >= Self::SORTED_MAX {
            self.deep = true;
            self.heap.extend(self.sorted.drain(..).map(Reverse));
        }
        if self.deep {
            self.heap.push(Reverse(due));
            return;
        }
        let k = self
            .sorted
            .iter()
            .position(|d| *d < due)
            .unwrap_or(self.sorted.len());
        self.sorted.insert(k, due);
    }

    /// The earliest completion.
    fn first(&self) -> Option<&Due> {
        match self.deep {
            true => self.heap.peek().map(|Reverse(d)| d),
            false => self.sorted.last(),
        }
    }

    /// The time of the earliest completion.
    pub fn next_time(&self) -> Option<u64> {
        self.first().map(|d| d.at)
    }

    /// Takes the earliest completion if it is at `t`.
    fn take_at(&mut self, t: u64) -> Option<Due> {
        if self.first()?.at != t {
            return None;
        }
        match self.deep {
            true => self.heap.pop().map(|Reverse(d)| d),
            false => self.sorted.pop(),
        }
    }
}

/// A completion a model settled after leaving it open at submission: the request
/// submitted with `tag`, at `at` (absolute virtual ns).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Settled {
    pub tag: u32,
    pub at: u64,
}

/// A simulated drive that computes each request's completion time when it is submitted
/// (or, with [`Reserving::submit`], once it knows every request that could go before it).
pub(super) trait Reserving: Send {
    /// The drive's clock (absolute virtual ns), which persists across jobs.
    fn clock(&self) -> u64;
    /// Moves the clock forward to `t` (never back).
    fn advance_to(&mut self, t: u64);
    /// Leaves the drive idle until `t` with nothing in flight (a burst test's pause, a timed
    /// replay's gap): its background work goes on meanwhile; by default the clock moves.
    fn idle_until(&mut self, t: u64) {
        self.advance_to(t);
    }
    /// Models `req` issued at `now` (with its data, for a drive that looks at it); returns
    /// when it completes.
    fn serve(&mut self, now: u64, req: &IoRequest, data: Option<WriteData>) -> Result<u64>;
    /// Models `req` issued at `now` as [`Reserving::serve`] does, but may leave its
    /// completion open (`None`) where it waits for a resource that serves what is ready
    /// first: [`Reserving::settle`] gives it, with `tag` (the queue's slot), once no request
    /// issued later can go before it.
    fn submit(
        &mut self,
        now: u64,
        req: &IoRequest,
        data: Option<WriteData>,
        _tag: u32,
    ) -> Result<Option<u64>> {
        self.serve(now, req, data).map(Some)
    }
    /// The completions left open by [`Reserving::submit`] that are settled, given that no
    /// request is issued before `horizon` (the earliest completion known, or a deadline of
    /// the engine's): appended to `out`, each at or after the time its request was issued.
    fn settle(&mut self, _horizon: u64, _out: &mut Vec<Settled>) {}
    /// Models a trim or flush issued at `now` with nothing in flight; returns when it is
    /// done.
    fn command(&mut self, now: u64, cmd: Command) -> Result<u64>;
    /// Whether the model looks at write data.
    fn wants_data(&self) -> bool;
    /// The engine name recorded in manifests.
    fn engine(&self) -> &'static str;
    /// Starts fetching the model state `req` will touch (see [`IoQueue::prefetch`]).
    fn prefetch(&self, _req: &IoRequest) {}
}

/// The queues of a job on a [`Reserving`] drive: one of `depth` slots.
pub(super) fn reserving_queues<M: Reserving>(
    sim: &mut M,
    threads: u32,
    depth: u32,
) -> Result<Vec<Box<dyn IoQueue + Send + '_>>> {
    one_queue(threads)?;
    Ok(vec![Box::new(ReservingQueue::new(sim, depth))])
}

/// A simulated drive serves one queue (one job's loop owns its state).
pub(super) fn one_queue(threads: u32) -> Result<()> {
    if threads != 1 {
        return Err(Error::Target(TargetError::Internal(
            "a simulated drive serves one queue; run threads × depth in it",
        )));
    }
    Ok(())
}

/// Moves every completion at time `t` out of `done` into `out`, with its buffer; returns
/// how many.
pub(super) fn take_done(
    done: &mut Done,
    bufs: &mut [Option<AlignedBuf>],
    origin: u64,
    t: u64,
    out: &mut Vec<Completion>,
) -> Result<usize> {
    let mut n = 0;
    while let Some(Due { at: when, slot, .. }) = done.take_at(t) {
        // An error built only when it is returned (built and dropped on every completion,
        // it cost the simulator 2% of its instructions).
        let Some(buf) = bufs.get_mut(slot as usize).and_then(Option::take) else {
            return Err(Error::Target(TargetError::Internal(
                "slot without a buffer",
            )));
        };
        out.push(Completion {
            slot,
            buf,
            done_ns: when - origin,
            error: None,
        });
        n += 1;
    }
    Ok(n)
}

/// The queue of a [`Reserving`] drive.
pub(super) struct ReservingQueue<'a, M: Reserving> {
    sim: &'a mut M,
    origin: u64,
    pending: Done,
    /// How many requests in flight have a completion not known yet; each slot's request's
    /// sequence and when it was issued; the model's settled completions.
    open: usize,
    seqs: Vec<u64>,
    issued: Vec<u64>,
    settled: Vec<Settled>,
    bufs: Vec<Option<AlignedBuf>>,
}

impl<'a, M: Reserving> ReservingQueue<'a, M> {
    /// A queue of `depth` slots whose clock starts at the drive's current time.
    pub fn new(sim: &'a mut M, depth: u32) -> Self {
        let origin = sim.clock();
        ReservingQueue {
            sim,
            origin,
            pending: Done::with_capacity(depth as usize),
            open: 0,
            seqs: vec![0; depth as usize],
            issued: vec![0; depth as usize],
            settled: Vec::new(),
            bufs: (0..depth).map(|_| None).collect(),
        }
    }

    /// The earliest completion, once the model has settled what it left open that no
    /// request issued from `deadline` (absolute) on, nor from the earliest completion,
    /// could go before.
    fn next_time(&mut self, deadline: u64) -> Result<Option<u64>> {
        if self.open > 0 {
            let horizon = self.pending.next_time().unwrap_or(u64::MAX).min(deadline);
            self.sim.settle(horizon, &mut self.settled);
            for s in self.settled.drain(..) {
                let slot = s.tag as usize;
                let (Some(&seq), Some(&issued), Some(open)) = (
                    self.seqs.get(slot),
                    self.issued.get(slot),
                    self.open.checked_sub(1),
                ) else {
                    return Err(Error::Target(TargetError::Internal(
                        "a settled request not in flight",
                    )));
                };
                self.open = open;
                // A completion is never at the instant of its submit.
                self.pending.push(s.at.max(issued + 1), seq, s.tag);
            }
        }
        Ok(self.pending.next_time())
    }
}

impl<M: Reserving> IoQueue for ReservingQueue<'_, M> {
    fn now(&self) -> u64 {
        self.sim.clock() - self.origin
    }

    fn engine(&self) -> &'static str {
        self.sim.engine()
    }

    fn submit(&mut self, slot: u32, req: IoRequest, buf: AlignedBuf) -> Result<()> {
        let now = self.sim.clock();
        let data = (req.op == Op::Write && self.sim.wants_data()).then(|| {
            if buf.is_random() {
                WriteData::Random
            } else {
                WriteData::Bytes(&buf.as_slice()[..req.len as usize])
            }
        });
        let done = self.sim.submit(now, &req, data, slot)?;
        self.bufs[slot as usize] = Some(buf);
        match done {
            // A completion is never at the instant of its submit.
            Some(done) => self.pending.push(done.max(now + 1), req.seq, slot),
            None => {
                self.open += 1;
                self.seqs[slot as usize] = req.seq;
                self.issued[slot as usize] = now;
            }
        }
        Ok(())
    }

    fn prefetch(&self, req: &IoRequest) {
        self.sim.prefetch(req);
    }

    fn wait_until(&mut self, until: u64, out: &mut Vec<Completion>) -> Result<()> {
        match self.next_time(until + self.origin)? {
            Some(t) if t <= until + self.origin => self.reap(out),
            None if self.open == 0 => {
                self.sim.idle_until(until + self.origin);
                Ok(())
            }
            _ => {
                self.sim.advance_to(until + self.origin);
                Ok(())
            }
        }
    }

    fn reap(&mut self, out: &mut Vec<Completion>) -> Result<()> {
        let Some(t) = self.next_time(u64::MAX)? else {
            return Err(Error::Target(TargetError::Internal(
                "reap with nothing in flight",
            )));
        };
        self.sim.advance_to(t);
        take_done(&mut self.pending, &mut self.bufs, self.origin, t, out)?;
        Ok(())
    }

    fn command(&mut self, cmd: Command) -> Result<()> {
        if self.pending.next_time().is_some() || self.open > 0 {
            return Err(Error::Target(TargetError::Internal(
                "a trim or flush with I/O in flight",
            )));
        }
        let now = self.sim.clock();
        let done = self.sim.command(now, cmd)?;
        self.sim.advance_to(done);
        Ok(())
    }
}

/// A simulated drive's queue behind a host that takes `latency` of its own per request
/// (a test's `host_latency`): each request reaches the drive that long after the engine
/// issues it, in the order issued, so its latency includes the host's. The drive's clock
/// moves to each arrival (reaping what completes before it) as the host would see it.
pub(crate) struct HostDelayed<'a> {
    inner: Box<dyn IoQueue + Send + 'a>,
    latency: u64,
    /// Requests issued and not yet at the drive: (arrival on the queue's clock, slot,
    /// request, buffer), in the order issued (their arrivals never decrease).
    waiting: std::collections::VecDeque<(u64, u32, IoRequest, AlignedBuf)>,
}

impl<'a> HostDelayed<'a> {
    /// `inner` behind a host of `latency` ns a request.
    pub(crate) fn new(inner: Box<dyn IoQueue + Send + 'a>, latency: u64) -> Self {
        HostDelayed {
            inner,
            latency,
            waiting: std::collections::VecDeque::new(),
        }
    }

    /// Hands the drive every request that arrives by `until` (queue clock), unless a
    /// completion comes first: returns whether one did (appended to `out`).
    fn deliver(&mut self, until: u64, out: &mut Vec<Completion>) -> Result<bool> {
        while let Some(&(at, ..)) = self.waiting.front() {
            if at > until {
                break;
            }
            let before = out.len();
            self.inner.wait_until(at, out)?;
            if out.len() > before {
                return Ok(true);
            }
            if let Some((_, slot, req, buf)) = self.waiting.pop_front() {
                self.inner.submit(slot, req, buf)?;
            }
        }
        Ok(false)
    }
}

impl IoQueue for HostDelayed<'_> {
    fn now(&self) -> u64 {
        self.inner.now()
    }

    fn engine(&self) -> &'static str {
        self.inner.engine()
    }

    fn submit(&mut self, slot: u32, req: IoRequest, buf: AlignedBuf) -> Result<()> {
        let at = self.inner.now() + self.latency;
        self.waiting.push_back((at, slot, req, buf));
        Ok(())
    }

    fn reap(&mut self, out: &mut Vec<Completion>) -> Result<()> {
        if self.deliver(u64::MAX, out)? {
            return Ok(());
        }
        self.inner.reap(out)
    }

    fn wait_until(&mut self, until: u64, out: &mut Vec<Completion>) -> Result<()> {
        if self.deliver(until, out)? {
            return Ok(());
        }
        self.inner.wait_until(until, out)
    }

    fn prefetch(&self, req: &IoRequest) {
        self.inner.prefetch(req);
    }

    fn command(&mut self, cmd: Command) -> Result<()> {
        if !self.waiting.is_empty() {
            return Err(Error::Target(TargetError::Internal(
                "a trim or flush with I/O in flight",
            )));
        }
        self.inner.command(cmd)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pushes and takes by turns against a plain min-heap, past the depth at which the
    /// sorted vector moves to the heap: the same completions in the same order.
    #[test]
    fn completions_come_out_in_time_and_sequence_order_shallow_or_deep() {
        let mut rng = crate::rng::stream(7, "done");
        for depth in [3usize, 32, 200] {
            let mut done = Done::with_capacity(depth.min(8));
            let mut model = BinaryHeap::new();
            let mut seq = 0u64;
            for round in 0..2_000u64 {
                // Fill to `depth`, a few equal times among them, then take what is due.
                while model.len() < depth {
                    let at = round * 10 + crate::rng::below(&mut rng, 40);
                    let slot = (seq % depth as u64) as u32;
                    done.push(at, seq, slot);
                    model.push(Reverse(Due { at, seq, slot }));
                    seq += 1;
                }
                let Some(t) = done.next_time() else {
                    panic!("a completion was pushed")
                };
                assert_eq!(model.peek().map(|Reverse(d)| d.at), Some(t));
                while let Some(d) = done.take_at(t) {
                    assert_eq!(model.pop(), Some(Reverse(d)));
                }
                assert!(model.peek().is_none_or(|Reverse(d)| d.at > t));
            }
            assert_eq!(done.deep, depth > Done::SORTED_MAX);
        }
    }
}
