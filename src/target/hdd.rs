//! The simulated hard disk: one head assembly over spinning platters, behind a host link,
//! with a write-back cache and read-ahead, simulated event by event in virtual time.
//!
//! The head serves one operation at a time. An operation costs a seek (`a + b·√d` over the
//! fraction `d` of the stroke, fitted to the drive's average and full-stroke seeks, never
//! less than a track-to-track seek), the rotational wait until the first sector comes under
//! the head (the platter's angle is a function of time; a sector's angle of its position on
//! its track), and the transfer at the zone's rate (outer tracks faster). Reads wait in the
//! command queue (NCQ) and are served in elevator order; writes complete once in the cache
//! and are destaged by the same elevator when the head is free, or when a write needs room.
//! After a read the head keeps reading ahead into the cache until the next operation.
//! Nothing is looked up from expected results.

use std::collections::{BTreeMap, VecDeque};

use crate::drive::{DriveSpec, HddSpec};
use crate::error::{Error, Result};
use crate::io::{Command, EngineChoice, IoRequest, Op};
use crate::workload::IoOptions;

use super::virtual_queue::{one_queue, take_done, Done};
use super::{AlignedBuf, Completion, IoQueue, Target, TargetError, TargetInfo};

/// How long the head must be idle before it destages the write cache in the background.
const DESTAGE_AFTER_IDLE: u64 = 5_000_000;

#[derive(Debug, Clone, Copy)]
struct Params {
    capacity: u64,
    period: f64,
    link_ns_per_byte: f64,
    command: u64,
    seek_a: f64,
    seek_b: f64,
    seek_min: f64,
    outer: f64,
    inner: f64,
    cache: u64,
    read_ahead: u64,
}

impl Params {
    fn of(s: &HddSpec, capacity: u64) -> Params {
        // t(d) = a + b·√d through the average seek at a third of the stroke (the mean
        // distance between two random positions) and the full stroke at d = 1.
        let (avg, full) = (s.seek_average.0 as f64, s.seek_full_stroke.0 as f64);
        let b = (full - avg) / (1.0 - (1.0f64 / 3.0).sqrt());
        Params {
            capacity,
            period: 60e9 / s.rpm as f64,
            link_ns_per_byte: 1e9 / s.link_rate.0,
            command: s.command_overhead.0,
            seek_a: full - b,
            seek_b: b,
            seek_min: s.seek_track_to_track.0 as f64,
            outer: s.outer_rate.0,
            inner: s.inner_rate.0,
            cache: s.cache.0,
            read_ahead: s.read_ahead.0,
        }
    }

    /// Media rate at byte `pos`, bytes per ns: zones slow linearly towards the spindle.
    fn rate(&self, pos: u64) -> f64 {
        let x = pos as f64 / self.capacity.max(1) as f64;
        (self.outer - (self.outer - self.inner) * x.clamp(0.0, 1.0)) / 1e9
    }

    /// The angle (0 to 1) of byte `pos` on its track.
    fn angle(&self, pos: u64) -> f64 {
        let track = self.rate(pos) * self.period;
        (pos as f64 / track).fract()
    }

    fn seek(&self, from: u64, to: u64) -> f64 {
        if from == to {
            return 0.0;
        }
        let d = from.abs_diff(to) as f64 / self.capacity.max(1) as f64;
        (self.seek_a + self.seek_b * d.sqrt()).max(self.seek_min)
    }
}

/// A read waiting for the head.
#[derive(Debug, Clone, Copy)]
struct Waiting {
    arrived: u64,
    offset: u64,
    len: u64,
    seq: u64,
    slot: u32,
}

/// A simulated hard disk.
pub struct HddSim {
    info: TargetInfo,
    p: Params,
    clock: u64,
    link_out: u64,
    link_in: u64,
    /// When the head finishes its current operation, and where it is then.
    head_free: u64,
    head_pos: u64,
    /// Reads waiting for the head.
    reads: Vec<Waiting>,
    /// Dirty data in the cache: offset → length (adjacent extents merged).
    dirty: BTreeMap<u64, u64>,
    dirty_bytes: u64,
    /// Writes waiting for room in the cache: (offset, bytes, seq, slot).
    blocked: VecDeque<(u64, u64, u64, u32)>,
    /// Read-ahead: from `start`, read at the head's rate since `since`, up to `limit`.
    ra_start: u64,
    ra_since: u64,
    ra_limit: u64,
    /// Whether the head is reading ahead now (else `ra_limit` is where it stopped).
    ra_active: bool,
    /// The elevator's direction: the head serves reads and destages in one sweep.
    upward: bool,
    /// Finished requests.
    done: Done,
}

impl HddSim {
    /// Runs the head, with nothing else to do, until the write-back cache is on the
    /// platters; the clock moves to when it is done.
    fn write_out_cache(&mut self) {
        while !self.dirty.is_empty() && self.step(u64::MAX) {}
        self.clock = self.clock.max(self.head_free);
    }

    /// A disk at rest at time zero, head at the outer edge, cache empty.
    pub fn new(drive: &DriveSpec, s: &HddSpec) -> Result<HddSim> {
        let info = TargetInfo::simulated(
            drive,
            512,
            512,
            &[("sim_model", "hdd"), ("rotational", "1")],
        );
        Ok(HddSim {
            p: Params::of(s, info.capacity),
            info,
            clock: 0,
            link_out: 0,
            link_in: 0,
            head_free: 0,
            head_pos: 0,
            reads: Vec::new(),
            dirty: BTreeMap::new(),
            dirty_bytes: 0,
            blocked: VecDeque::new(),
            ra_start: 0,
            ra_since: 0,
            ra_limit: 0,
            ra_active: false,
            upward: true,
            done: Done::default(),
        })
    }

    /// How far read-ahead has got by `t`.
    fn ra_end(&self, t: u64) -> u64 {
        if !self.ra_active {
            return self.ra_limit;
        }
        let run = (t.saturating_sub(self.ra_since) as f64 * self.p.rate(self.ra_start)) as u64;
        (self.ra_start + run).min(self.ra_limit)
    }

    /// Whether `[offset, offset + len)` is in the cache by `t`, read ahead.
    fn read_ahead_holds(&self, offset: u64, len: u64, t: u64) -> bool {
        offset >= self.ra_start && offset + len <= self.ra_end(t)
    }

    /// Sends a read's `len` bytes to the host from `at`, after what the link is sending,
    /// and completes request `seq` on `slot` when they are across.
    fn send_read(&mut self, at: u64, len: u64, seq: u64, slot: u32) {
        let sent = at.max(self.link_in) + (len as f64 * self.p.link_ns_per_byte) as u64;
        self.link_in = sent;
        self.done.push(sent, seq, slot);
    }

    /// One head operation on `[offset, offset + len)` starting no earlier than `at`;
    /// returns when it ends (and moves the head there).
    fn operate(&mut self, at: u64, offset: u64, len: u64) -> u64 {
        let p = self.p;
        let start = at.max(self.head_free);
        // Read-ahead stops where it got to; a read of what it was reading, or of what lay
        // ahead of it in its window, carries on from there, with no seek and no
        // rotational wait.
        if self.ra_active {
            let reached = self.ra_end(start);
            let window = self.ra_limit;
            self.ra_limit = reached;
            self.head_pos = reached;
            self.ra_active = false;
            if (self.ra_start..=window).contains(&offset) && offset + len > reached {
                let rest = (offset + len - reached) as f64 / p.rate(reached);
                self.head_free = (start as f64 + rest).ceil() as u64;
                self.head_pos = offset + len;
                return self.head_free;
            }
        }
        let after_seek = start as f64 + p.seek(self.head_pos, offset);
        let phase = (after_seek / p.period).fract();
        let wait = (p.angle(offset) - phase).rem_euclid(1.0) * p.period;
        let end = after_seek + wait + len as f64 / p.rate(offset);
        self.head_free = end.ceil() as u64;
        self.head_pos = offset + len;
        self.head_free
    }

    /// One step of the head: the next read in the elevator's order (`next_read`); else,
    /// when the head is free before `until` or a write waits for room, a destage of the
    /// dirty extent next in the elevator's direction; else idling to the next read's
    /// arrival before `until`.
    /// Returns whether anything happened.
    fn step(&mut self, until: u64) -> bool {
        let now = self.head_free;
        let blocked = !self.blocked.is_empty();
        if now >= until && !blocked {
            return false;
        }
        if let Some(i) = self.next_read(now) {
            let r = self.reads.swap_remove(i);
            let end = if self.read_ahead_holds(r.offset, r.len, now) {
                // Read ahead while it waited: sent from the cache, the head reading on.
                now
            } else {
                let end = self.operate(now, r.offset, r.len);
                // Read ahead from here while nothing else needs the head.
                self.ra_start = r.offset + r.len;
                self.ra_since = end;
                self.ra_limit = (self.ra_start + self.p.read_ahead).min(self.p.capacity);
                self.ra_active = true;
                end
            };
            self.send_read(end, r.len, r.seq, r.slot);
            return true;
        }
        // Dirty data is destaged at once when writes wait for room or the cache is over
        // half full; otherwise only after the head has been idle a while (reads first).
        let forced = blocked || self.dirty_bytes > self.p.cache / 2;
        let next_read = self.reads.iter().map(|r| r.arrived).min();
        let idle_start = now + DESTAGE_AFTER_IDLE;
        let background = !self.dirty.is_empty()
            && next_read.is_none_or(|r| r > idle_start)
            && idle_start < until;
        if forced || background {
            let now = if forced { now } else { idle_start };
            let pos = self.head_pos;
            let pick = if self.upward {
                self.dirty
                    .range(pos..)
                    .next()
                    .or_else(|| self.dirty.range(..pos).next_back())
            } else {
                self.dirty
                    .range(..pos)
                    .next_back()
                    .or_else(|| self.dirty.range(pos..).next())
            };
            let Some((&off, &len)) = pick else {
                return false;
            };
            self.upward = off >= pos;
            self.dirty.remove(&off);
            let end = self.operate(now, off, len);
            self.dirty_bytes -= len.min(self.dirty_bytes);
            // Writes waiting for room go in now.
            while let Some(&(offset, bytes, seq, slot)) = self.blocked.front() {
                if self.dirty_bytes + bytes > self.p.cache && self.dirty_bytes > 0 {
                    break;
                }
                self.blocked.pop_front();
                self.add_dirty(offset, bytes);
                self.done.push(end, seq, slot);
            }
            return true;
        }
        match next_read {
            Some(next) if next < until || blocked => {
                self.head_free = next.max(now);
                true
            }
            _ => false,
        }
    }

    /// The read the head serves next, of those arrived by `now`: the nearest in the
    /// elevator's direction, or, with none left that way, the nearest the other way (the
    /// elevator turns). Every read is reached within a sweep of the disk each way, however
    /// many keep arriving near the head (nearest-first would leave a far one waiting as
    /// long as they do).
    fn next_read(&mut self, now: u64) -> Option<usize> {
        let pos = self.head_pos;
        let (mut ahead, mut behind): (Option<usize>, Option<usize>) = (None, None);
        for (i, r) in self.reads.iter().enumerate() {
            if r.arrived > now {
                continue;
            }
            let forward = if self.upward {
                r.offset >= pos
            } else {
                r.offset <= pos
            };
            let best = if forward { &mut ahead } else { &mut behind };
            let closer =
                |b: &Waiting| (r.offset.abs_diff(pos), r.seq) < (b.offset.abs_diff(pos), b.seq);
            if best.is_none_or(|b| closer(&self.reads[b])) {
                *best = Some(i);
            }
        }
        if ahead.is_none() && behind.is_some() {
            self.upward = !self.upward;
        }
        ahead.or(behind)
    }

    fn add_dirty(&mut self, offset: u64, len: u64) {
        // Merge with an extent that ends here (sequential writes become one long
        // operation), up to 1 MiB an extent; a rewrite of the same extent replaces it.
        let (mut off, mut len) = (offset, len);
        if let Some((&o, &l)) = self.dirty.range(..off).next_back() {
            if o + l == off && l + len <= 1 << 20 {
                self.dirty.remove(&o);
                self.dirty_bytes -= l;
                off = o;
                len += l;
            }
        }
        if let Some(old) = self.dirty.insert(off, len) {
            self.dirty_bytes -= old;
        }
        self.dirty_bytes += len;
    }

    fn submit_at(&mut self, now: u64, req: &IoRequest, slot: u32) {
        let p = self.p;
        let len = req.len as u64;
        let data = if req.op == Op::Write {
            (len as f64 * p.link_ns_per_byte) as u64
        } else {
            0
        };
        let arrived = now.max(self.link_out) + p.command + data;
        self.link_out = arrived;
        match req.op {
            Op::Write => {
                let room = self.dirty_bytes + len <= p.cache || self.dirty_bytes == 0;
                if room && self.blocked.is_empty() {
                    self.add_dirty(req.offset, len);
                    self.done.push(arrived, req.seq, slot);
                } else {
                    // Destaging makes room for it later (`step`).
                    self.blocked.push_back((req.offset, len, req.seq, slot));
                }
            }
            Op::Read => {
                if self.read_ahead_holds(req.offset, len, arrived) {
                    self.send_read(arrived, len, req.seq, slot);
                } else {
                    self.reads.push(Waiting {
                        arrived,
                        offset: req.offset,
                        len,
                        seq: req.seq,
                        slot,
                    });
                }
            }
        }
    }
}

impl Target for HddSim {
    fn info(&self) -> &TargetInfo {
        &self.info
    }

    fn needs_data(&self) -> bool {
        false
    }

    fn trim(&mut self, _offset: u64, _len: u64) -> Result<()> {
        // A disk has nothing to discard.
        Ok(())
    }

    fn idle(&mut self, ns: u64, _stop: &std::sync::atomic::AtomicBool) {
        self.clock += ns;
    }

    fn queues(
        &mut self,
        threads: u32,
        depth: u32,
        _engine: EngineChoice,
        _io: &IoOptions,
    ) -> Result<Vec<Box<dyn IoQueue + Send + '_>>> {
        one_queue(threads)?;
        // Between tests the disk is left idle until its cache is written out (as a
        // benchmark's pause between tests does), so one test's writes do not slow the next.
        self.write_out_cache();
        let origin = self.clock;
        Ok(vec![Box::new(HddQueue {
            origin,
            sim: self,
            bufs: (0..depth).map(|_| None).collect(),
            inflight: 0,
        })])
    }
}

struct HddQueue<'a> {
    sim: &'a mut HddSim,
    origin: u64,
    bufs: Vec<Option<AlignedBuf>>,
    inflight: usize,
}

impl HddQueue<'_> {
    /// The earliest finished request, if one finishes by `until`, running the head as far
    /// as needed to know.
    fn next_done(&mut self, until: u64) -> Option<u64> {
        loop {
            let top = self.sim.done.next_time();
            // Nothing the head does from now on can finish before it is free.
            if let Some(t) = top.filter(|t| *t <= self.sim.head_free) {
                return (t <= until).then_some(t);
            }
            let horizon = top.unwrap_or(u64::MAX).min(until);
            if !self.sim.step(horizon) {
                return top.filter(|t| *t <= until);
            }
        }
    }
}

impl IoQueue for HddQueue<'_> {
    fn now(&self) -> u64 {
        self.sim.clock - self.origin
    }

    fn engine(&self) -> &'static str {
        "sim-hdd"
    }

    fn submit(&mut self, slot: u32, req: IoRequest, buf: AlignedBuf) -> Result<()> {
        let now = self.sim.clock;
        // The head works on while the host is busy.
        while self.sim.step(now) {}
        self.sim.submit_at(now, &req, slot);
        self.bufs[slot as usize] = Some(buf);
        self.inflight += 1;
        Ok(())
    }

    fn wait_until(&mut self, until: u64, out: &mut Vec<Completion>) -> Result<()> {
        let abs = until + self.origin;
        match self.next_done(abs) {
            Some(_) => self.reap(out),
            None => {
                self.sim.clock = self.sim.clock.max(abs);
                Ok(())
            }
        }
    }

    fn reap(&mut self, out: &mut Vec<Completion>) -> Result<()> {
        if self.inflight == 0 {
            return Err(Error::Target(TargetError::Internal(
                "reap with nothing in flight",
            )));
        }
        let Some(t) = self.next_done(u64::MAX) else {
            return Err(Error::Target(TargetError::Internal(
                "the simulated disk lost a request",
            )));
        };
        self.sim.clock = self.sim.clock.max(t);
        self.inflight -= take_done(&mut self.sim.done, &mut self.bufs, self.origin, t, out)?;
        Ok(())
    }

    /// A disk has nothing to trim (the kernel sends it no discards); a flush waits until
    /// the write-back cache is on the platters.
    fn command(&mut self, cmd: Command) -> Result<()> {
        if self.inflight > 0 {
            return Err(Error::Target(TargetError::Internal(
                "a trim or flush with I/O in flight",
            )));
        }
        if cmd == Command::Flush {
            self.sim.write_out_cache();
        }
        Ok(())
    }
}
