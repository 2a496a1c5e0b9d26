//! The simulated SSD: a host link, a controller, channels of NAND dies and an FTL, modelled
//! request by request in virtual time.
//!
//! Every resource (link direction, controller, channel bus, die) has its own busy-until
//! time, as in FEMU's "next available time" model, and every request reserves them in
//! order. A write crosses the link, waits for room in the write buffer, and is placed by
//! the FTL: a page-mapped FTL appends it to the open block of the die whose page is being
//! filled and programs each page (a page on each plane) as it fills, garbage-collecting a
//! die (greedy or FIFO victim, valid pages copied, block erased) when its free blocks run
//! low, in the background (host reads and programs go between its steps, writes pass the
//! die) or in the foreground (the controller waits); a block-mapped
//! FTL stripes each logical block across every die (one physical block on each, written
//! page by page in turn), appends writes to the logical block's log block and merges a
//! whole logical block when the few log blocks run out, behind a small cache written out
//! whole when a write finds it full (the JMF602 stutter). A compressing controller stores
//! the LZ4 size of the data the engine actually wrote. A controller that does not remap
//! writes that are not page aligned reads the partly written pages first.
//! A sequential stream of reads is read ahead, a request's worth of pages behind each one.
//! The drive's state (mapping, free blocks) persists across the jobs of a run, so a used
//! drive behaves like one; between jobs it settles (its backlog written out).
//!
//! This file takes a request in (link, queue slots, controller) and holds the drive's
//! state; `read.rs` and `write.rs` are the two paths from there to the NAND and back.

use rand::SeedableRng;

use crate::drive::{DriveSpec, FtlKind, SsdHistory, SsdSpec};
use crate::error::Result;
use crate::io::{Command, EngineChoice, IoRequest, Op, WriteData};
use crate::workload::IoOptions;

use super::calendar::Calendar;
use super::virtual_queue::{reserving_queues, Reserving, Settled};
use super::{IoQueue, Target, TargetInfo};

mod block_ftl;
mod die;
mod ecc;
mod link;
mod map_cache;
mod page_ftl;
mod params;
mod read;
mod slc;
mod slc_pages;
mod time_queue;
mod write;
mod write_buffer;

use block_ftl::BlockFtl;
use die::Die;
use page_ftl::{scrambled, Loc, PageFtl};
use params::Params;
use slc::Slc;
use write_buffer::Buffer;

/// Where a logical page's data is: its die, the bytes stored, and its page's type (0 the
/// lower; an upper page reads slower where pages have types).
#[derive(Debug, Clone, Copy)]
struct Stored {
    die: usize,
    bytes: u64,
    kind: usize,
    /// The plane its page is on, and its page's wordline (the same on every plane of a
    /// die's block: the pages a multi-plane program wrote).
    plane: usize,
    wordline: u64,
    /// Whether its page is in SLC mode, where that reads faster (`slc_cache.read`).
    slc: bool,
}

/// What the drive did, for the manifest and the tests.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SsdStats {
    /// Bytes the host wrote.
    pub host_bytes: u64,
    /// Bytes programmed into NAND (host data after compression, plus garbage collection).
    pub nand_bytes: u64,
    /// Pages copied by garbage collection.
    pub gc_pages: u64,
    /// Blocks erased.
    pub erases: u64,
    /// Block merges (block-mapped FTL).
    pub merges: u64,
    /// Data pages sensed through `read_lpn` (a host read's, read ahead, a partial write's
    /// merge; map pages and retries not).
    pub page_reads: u64,
    /// Page reads read again after a failed decode.
    pub read_retries: u64,
    /// Host data folded from the SLC cache into native cells before a write.
    pub folded_bytes: u64,
}

impl SsdStats {
    /// NAND bytes per host byte.
    pub fn write_amplification(&self) -> f64 {
        if self.host_bytes == 0 {
            0.0
        } else {
            self.nand_bytes as f64 / self.host_bytes as f64
        }
    }
}

enum Ftl {
    Page(PageFtl),
    Block(BlockFtl),
}

/// A simulated SSD.
pub struct SsdSim {
    info: TargetInfo,
    /// Shared and never copied whole ([`Params::interned`]): a method copies the reference
    /// (`let p = self.p`) and passes it down, while it changes the drive.
    p: &'static Params,
    clock: u64,
    link_out: u64,
    /// The link toward the host where each transfer is booked when its request is issued
    /// (a controller behind a RAID bridge, whose bridge takes the requests in turn).
    link_in: Calendar,
    /// The link toward the host where it sends what is ready first (every drive on its own
    /// link): a read's completion is settled once no request issued later could go first.
    link: link::Link,
    /// Whether reads' data wait for `link` (else they are booked on `link_in`).
    sends_ready_first: bool,
    /// Completions `link` settled, not yet taken by the queue.
    settled: Vec<Settled>,
    /// Commands in flight whose completion is still open (with `queue_slots`).
    open: usize,
    /// The queue's tag of the request being served (a read left open is settled with it).
    tag: u32,
    ctrl: u64,
    /// Each channel's bus: a transfer takes the first gap it fits, so a die that is free
    /// is not held up behind one still reading.
    chan: Vec<Calendar>,
    /// Each die's channel.
    channel: Vec<usize>,
    /// The controller's decoder (`ecc.decode_rate`), all channels' reads through it.
    decoder: Calendar,
    /// The controller's encoder (`ecc.encode_rate`), all channels' programs through it.
    encoder: Calendar,
    die: Vec<Die>,
    buffer: Buffer,
    ftl: Ftl,
    /// Bytes of the page being filled on each die (page FTL), waiting in the buffer.
    filling: Vec<u64>,
    /// The controller work left for when the data waiting on each die is programmed
    /// (`completion_share` of its writes').
    deferred: Vec<u64>,
    /// Whether each die's next host program is on an upper page.
    upper_next: Vec<bool>,
    /// With `write_stripes`: the stripe whose programs are being booked.
    stripe: write::Stripe,
    /// The stream page reads' bit errors are drawn from.
    errors: rand_chacha::ChaCha8Rng,
    /// The programs' pulse factors, from their own stream.
    pulses: write::Pulses,
    /// The stream reads' sense times are drawn from.
    senses: rand_chacha::ChaCha8Rng,
    /// When host programs under way end, and the controller work each takes then, in the
    /// order they end.
    completions: time_queue::TimeQueue,
    scratch: Vec<u8>,
    next_small_write: u64,
    /// Pages of data written whose per-page work the controller has not done yet (a stripe
    /// being combined).
    combined: u64,
    /// Where the last read ended: a read that starts there continues a sequential stream.
    read_end: u64,
    /// Reads in a row that continued the stream.
    read_run: u32,
    /// Read-ahead: the first logical page of the window, and for each page from it when
    /// it is across its channel where it was read whole (read ahead), `None` where not;
    /// `ahead_next` is the next window, built from it.
    ahead_first: u64,
    ahead: Vec<Option<u64>>,
    ahead_next: Vec<Option<u64>>,
    /// The SLC cache, where the drive has one, and the host data the FTL maps (which the
    /// cache's accounting follows).
    slc: Option<Slc>,
    /// The logical pages in SLC mode, where they read faster (`slc_cache.read`).
    slc_pages: Option<slc_pages::SlcPages>,
    /// When the controller's rate of host data into native programs is next free
    /// (`slc_cache.native_rate`).
    native_free: u64,
    valid: u64,
    /// The map pages a DRAM-less controller holds.
    map: Option<map_cache::MapCache>,
    /// When the request being served was issued: no later one is ready before it.
    now: u64,
    /// When each command the drive holds completes (with `queue_slots`).
    inflight: std::collections::BinaryHeap<std::cmp::Reverse<u64>>,
    stats: SsdStats,
    /// The logical page of the request last prefetched ([`Reserving::prefetch`]).
    prefetched: std::cell::Cell<u64>,
    /// The pause under way with nothing in flight, if any ([`Reserving::idle_until`]).
    pause: Option<Pause>,
}

/// A pause of the host's under way: the drive idle since `from`, its dies `units` each of
/// folding into it, so that a pause waited out in steps folds as one.
#[derive(Debug, Clone, Copy)]
struct Pause {
    from: u64,
    units: u64,
}

/// The logical pages a request covers: the first, the last, and how many.
#[derive(Debug, Clone, Copy)]
struct Pages {
    first: u64,
    last: u64,
    count: u64,
}

impl SsdSim {
    /// A fresh drive: every block erased, nothing mapped, time zero.
    pub fn new(drive: &DriveSpec, s: &SsdSpec) -> Result<SsdSim> {
        let p = Params::of(s, drive.firmware.as_deref());
        let logical = 512u64;
        let lpns = drive.capacity.div_ceil(p.page);
        if lpns >= 1 << 32 || (p.blocks_per_die * p.dies as u64) >= 1 << Loc::BLOCK_BITS {
            return Err(super::config_error(drive, "too many pages to simulate"));
        }
        let mut ftl = match p.ftl {
            FtlKind::Page => Ftl::Page(PageFtl::new(&p, lpns).ok_or_else(|| {
                super::config_error(
                    drive,
                    &format!(
                        "its map of {lpns} pages ({} B each) does not fit in this machine's \
                         memory: larger pages or a smaller capacity",
                        p.page
                    ),
                )
            })?),
            FtlKind::Block => Ftl::Block(BlockFtl::new(lpns)),
        };
        // The bytes an aged page-mapped drive's layout holds: a whole page for each page it
        // placed.
        let mut aged_bytes = 0;
        if s.aged {
            // Used: `full` of the logical pages hold data (every page by default).
            let held = ((lpns as f64 * s.full.unwrap_or(1.0)).round() as u64).clamp(1, lpns);
            match &mut ftl {
                Ftl::Page(f) => {
                    f.age(&p, lpns, held)?;
                    aged_bytes = held * p.page;
                }
                Ftl::Block(f) => {
                    for lpn in scrambled(lpns).take(held as usize) {
                        f.set_held(lpn, true);
                    }
                }
            }
        }
        // The drive's own streams: the same drive draws the same on every run.
        let drive_seed = crate::rng::derive_seed(0, &[&drive.id.to_string()]);
        let mut sim = SsdSim {
            info: TargetInfo::simulated(
                drive,
                logical as u32,
                p.page as u32,
                &[("sim_model", "ssd")],
            ),
            p: p.interned(),
            clock: 0,
            link_out: 0,
            link_in: Calendar::default(),
            link: link::Link::default(),
            sends_ready_first: true,
            settled: Vec::new(),
            open: 0,
            tag: 0,
            ctrl: 0,
            chan: vec![Calendar::default(); p.channels],
            channel: (0..p.dies).map(|d| d % p.channels).collect(),
            decoder: Calendar::default(),
            encoder: Calendar::default(),
            die: vec![Die::suspending(p.suspension); p.dies],
            buffer: Buffer::new(p.buffer),
            ftl,
            filling: vec![0; p.dies],
            deferred: vec![0; p.dies],
            upper_next: vec![false; p.dies],
            stripe: write::Stripe::default(),
            errors: crate::rng::stream(drive_seed, "bit errors"),
            pulses: write::Pulses::new(
                crate::rng::stream(drive_seed, "program pulses"),
                p.program_spread,
            ),
            senses: crate::rng::stream(drive_seed, "read senses"),
            completions: Default::default(),
            scratch: Vec::new(),
            next_small_write: 0,
            combined: 0,
            read_end: u64::MAX,
            read_run: 0,
            ahead_first: 0,
            ahead: Vec::new(),
            ahead_next: Vec::new(),
            slc: s.slc_cache.as_ref().map(|c| Slc::new(c, drive.capacity)),
            slc_pages: s
                .slc_cache
                .as_ref()
                .and_then(|c| c.read)
                .map(|r| slc_pages::SlcPages::new(lpns, r.0)),
            native_free: 0,
            valid: 0,
            map: s.map_cache.map(|b| map_cache::MapCache::new(b.0, p.page)),
            now: 0,
            inflight: Default::default(),
            stats: SsdStats::default(),
            prefetched: std::cell::Cell::new(0),
            pause: None,
        };
        if let Some(c) = &mut sim.slc {
            // An aged drive's data is in native cells (a new drive holds none).
            sim.valid = aged_bytes;
            c.hold_native(sim.valid);
        }
        if let Some(h) = &s.history {
            sim.play_history(h, drive.capacity)?;
        }
        Ok(sim)
    }

    /// Plays a used drive's history ([`SsdHistory`]): its random writes one at a time, each
    /// as soon as the one before is done, then idle until everything is on NAND. The clock
    /// runs on from there (a job's times start at its own first I/O); what the history
    /// cost is not the tests', so the counters start again at zero.
    fn play_history(&mut self, h: &SsdHistory, capacity: u64) -> Result<()> {
        let block = h.block_size.map_or(self.p.page, |b| b.0);
        let slots = (h.span.map_or(capacity, |b| b.0) / block).max(1);
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(h.seed);
        for seq in 0..h.writes.0 / block {
            let req = IoRequest {
                seq,
                op: Op::Write,
                offset: crate::rng::below(&mut rng, slots) * block,
                len: block as u32,
            };
            let done = self.serve_at_once(self.clock, &req, None)?;
            self.clock = self.clock.max(done);
        }
        self.settle()?;
        self.stats = SsdStats::default();
        Ok(())
    }

    /// What the drive has done so far.
    pub fn stats(&self) -> SsdStats {
        self.stats
    }

    /// The drive as a controller behind a RAID bridge: each read's data booked on the link
    /// when its request is issued, so that every completion is known at once.
    pub(super) fn booking_at_issue(mut self) -> SsdSim {
        self.sends_ready_first = false;
        self
    }

    /// A request whose completion must be known at once (a used drive's history, a
    /// controller behind a bridge).
    fn serve_at_once(&mut self, now: u64, req: &IoRequest, data: Option<WriteData>) -> Result<u64> {
        match self.submit(now, req, data, 0)? {
            Some(t) => Ok(t),
            None => Err(crate::error::Error::Target(super::TargetError::Internal(
                "a read left open where its completion is needed",
            ))),
        }
    }

    /// Counts the completions the link settled from `settled[from]` on out of the
    /// commands in flight (with `queue_slots`).
    fn count_settled(&mut self, from: usize) {
        if self.p.queue_slots == 0 {
            return;
        }
        for s in &self.settled[from..] {
            self.inflight.push(std::cmp::Reverse(s.at));
            self.open = self.open.saturating_sub(1);
        }
    }

    /// Sends `command` ns of command, then `data` ns of a write's data, toward the drive
    /// from `now`, in the order the commands came; returns when it has arrived. On a
    /// half-duplex link (`half_duplex`) both take a gap between the reads' data coming
    /// back; with `data_half_duplex` the data does.
    fn send_to_drive(&mut self, now: u64, command: u64, data: u64) -> u64 {
        let start = now.max(self.link_out);
        self.link_out = if self.p.half_duplex {
            self.send_between_reads(now, start, command + data)
        } else if self.p.data_half_duplex && data > 0 {
            self.send_between_reads(now, start + command, data)
        } else {
            start + command + data
        };
        self.link_out
    }

    /// Books `len` ns toward the drive on the link the reads' data come back on, from
    /// `start` (a request issued at `now`); returns when it has crossed.
    fn send_between_reads(&mut self, now: u64, start: u64, len: u64) -> u64 {
        if self.sends_ready_first {
            let from = self.settled.len();
            let sent = self.link.send_now(start, len, &mut self.settled);
            self.count_settled(from);
            sent
        } else {
            self.link_in.reserve(now, start, len)
        }
    }

    /// Models one request the drive takes at `now`; returns its completion time (`None`:
    /// a read's data waiting for the link).
    fn serve_now(
        &mut self,
        now: u64,
        req: &IoRequest,
        data: Option<WriteData>,
    ) -> Result<Option<u64>> {
        let p = self.p;
        self.now = now;
        self.pause = None;
        let len = req.len as u64;
        // The command, and a write's data, over the link; then the controller.
        let link = if req.op == Op::Write {
            params::scaled(len, p.link_ns_per_byte)
        } else {
            0
        };
        let first = p.page_of(req.offset);
        let last = p.page_of(req.offset + len - 1);
        let span = Pages {
            first,
            last,
            count: last - first + 1,
        };
        // The command and a read's two frames (the command and the drive's answer), then a
        // write's data with the rest of its frames.
        let command = p.command + p.command_frames(None);
        let data_time =
            p.command_frames((req.op == Op::Write).then_some(len)) - p.command_frames(None) + link;
        let arrived = self.send_to_drive(now, command, data_time);
        // The controller takes the command when it is in; a write's data follows it.
        let command_in = arrived - data_time;
        self.handle_completions_before(command_in);
        let at = command_in.max(self.ctrl);
        self.ctrl = at;
        match req.op {
            Op::Read => {
                let at = at + self.p.read_overhead;
                self.ctrl = at;
                Ok(self.serve_read(req, span, at))
            }
            Op::Write => Ok(Some(
                self.serve_write(req, data, span, at, arrived)? + self.p.write_latency,
            )),
        }
    }

    /// Discards the logical pages wholly inside `[offset, offset + len)` (and what was read
    /// ahead, which may be of them).
    fn discard(&mut self, offset: u64, len: u64) {
        self.ahead.clear();
        let p = self.p;
        let first = offset.div_ceil(p.page);
        let end = (offset + len) / p.page;
        self.buffer.drop_held(first, end);
        if let Some(c) = &mut self.slc_pages {
            c.discard(first, end);
        }
        match &mut self.ftl {
            Ftl::Page(f) => {
                let end = end.min(f.map.len() as u64);
                // The bytes the pages held, which the SLC cache's books lose (counted as
                // the pages go, where a pass of its own read the whole map first).
                let stale = f.invalidate_range(first, end, p);
                if let Some(c) = &mut self.slc {
                    self.valid = self.valid.saturating_sub(stale);
                    c.sync(self.valid);
                }
            }
            Ftl::Block(f) => {
                let span = p.pages_per_block * p.dies as u64;
                // Only a logical block the range covers whole loses its log block.
                let (a, b) = (first.div_ceil(span), end / span);
                f.logs.retain(|lbn, _| *lbn < a || *lbn >= b);
                f.cache.retain(|lpn| *lpn < first || *lpn >= end);
                for lpn in first..end {
                    f.set_held(lpn, false);
                }
            }
        }
    }
}

impl Target for SsdSim {
    fn info(&self) -> &TargetInfo {
        &self.info
    }

    fn needs_data(&self) -> bool {
        self.p.compression
    }

    fn random_as_mark(&self) -> bool {
        self.p.compression
    }

    fn trim(&mut self, offset: u64, len: u64) -> Result<()> {
        self.discard(offset, len);
        Ok(())
    }

    fn idle(&mut self, ns: u64, _stop: &std::sync::atomic::AtomicBool) {
        self.fold_units(ns / self.fold_unit_time());
        self.pause = None;
        self.clock += ns;
    }

    fn queues(
        &mut self,
        threads: u32,
        depth: u32,
        _engine: EngineChoice,
        _io: &IoOptions,
    ) -> Result<Vec<Box<dyn IoQueue + Send + '_>>> {
        self.settle()?;
        reserving_queues(self, threads, depth)
    }
}

impl SsdSim {
    /// The time a die takes to fold a unit of the cache in idle time (a page of each plane,
    /// read and programmed); a unit is begun only where it is done within the idle time.
    fn fold_unit_time(&self) -> u64 {
        (self.fold_read() + self.p.t_prog).max(1)
    }

    /// `units` of idle folding on every die: an SLC cache that folds in idle time is folded
    /// by as much (what it holds at most).
    fn fold_units(&mut self, units: u64) {
        let p = self.p;
        let most = units as u128 * p.dies as u128 * (p.page * p.planes) as u128;
        if let Some(c) = self.slc.as_mut().filter(|c| c.fold_in_idle) {
            let folded = c.fold(most.min(u64::MAX as u128) as u64);
            self.folded(folded);
        }
    }

    /// When everything the drive has accepted is done: its controller, link, codecs,
    /// channels and dies (their background work too) and its buffer's writes.
    fn busy_until(&self) -> u64 {
        [
            self.ctrl,
            self.link_out,
            self.link_in.end(),
            self.link.free(),
            self.decoder.end(),
            self.encoder.end(),
        ]
        .into_iter()
        .chain(self.chan.iter().map(Calendar::end))
        .chain(self.die.iter().map(Die::free_at))
        .chain(self.buffer.frees.last_at())
        .max()
        .unwrap_or(0)
    }

    /// The sense time of a page read to fold it: SLC mode's where the drive reads it so.
    fn fold_read(&self) -> u64 {
        self.slc_pages.as_ref().map_or(self.p.t_read, |c| c.t_read)
    }

    /// `bytes` of the cache folded into native cells: counted, and its oldest pages leave it.
    fn folded(&mut self, bytes: u64) {
        self.stats.folded_bytes += bytes;
        if let Some(c) = &mut self.slc_pages {
            c.fold(bytes / self.p.page);
        }
    }

    /// A trim or flush at `now` with nothing in flight; returns when it is done. The
    /// command crosses the link and waits for the controller. A trim drops the mapping of
    /// the whole pages in its range (no NAND work: their space comes back as their blocks
    /// are collected); a flush waits until everything the drive has accepted is on NAND,
    /// as [`SsdSim::settle`] does.
    pub(super) fn command(&mut self, now: u64, cmd: Command) -> Result<u64> {
        self.pause = None;
        let arrived = self.send_to_drive(now, self.p.command + self.p.command_frames(None), 0);
        let at = arrived.max(self.ctrl);
        self.ctrl = at;
        match cmd {
            Command::Trim { offset, len } => {
                self.discard(offset, len);
                Ok(at)
            }
            Command::Flush => {
                self.clock = self.clock.max(at);
                self.settle()?;
                Ok(self.clock)
            }
        }
    }

    /// Leaves the drive idle until everything it has accepted is on NAND (as a benchmark's
    /// pause between tests does), so one test's backlog does not stall the next one's first
    /// I/Os; a block-mapped controller writes out its cache. Data waiting for the rest of
    /// its page stays in the buffer. Fails where writing out a held buffer finds a die full.
    pub(super) fn settle(&mut self) -> Result<()> {
        self.pause = None;
        // Reads left open by a queue gone (a job stopped) are sent and forgotten.
        self.link.send_all(&mut self.settled);
        self.settled.clear();
        self.open = 0;
        self.write_out_cache(self.clock);
        if self.buffer.held_bytes > 0 {
            let p = self.p;
            let done = self.write_out_held(p, self.clock.max(self.ctrl))?;
            self.clock = self.clock.max(done);
        }
        // A stripe begun is written out: its pages' work done.
        if self.combined > 0 {
            self.ctrl = self.ctrl.max(self.clock) + self.combined * self.p.page_overhead;
            self.combined = 0;
        }
        self.clock = self.clock.max(self.busy_until());
        self.buffer.frees.clear();
        self.buffer.used = self.filling.iter().sum::<u64>().min(self.buffer.cap);
        Ok(())
    }
}

impl Reserving for SsdSim {
    fn prefetch(&self, req: &IoRequest) {
        if let Ftl::Page(f) = &self.ftl {
            // The request prefetched last time is the next to come (the engine asks two
            // ahead): its map word is in by now, and what it points at (a split page's unit
            // words, or the block whose counts the write changes) is asked for behind it.
            let lpn = self.p.page_of(req.offset);
            f.prefetch_behind(self.prefetched.replace(lpn));
            f.prefetch(lpn);
        }
    }

    fn clock(&self) -> u64 {
        self.clock
    }
    fn advance_to(&mut self, t: u64) {
        self.clock = self.clock.max(t);
    }
    /// The drive idles from when its own work is done, folding its cache meanwhile.
    fn idle_until(&mut self, t: u64) {
        let pause = self.pause.unwrap_or(Pause {
            from: self.clock.max(self.busy_until()),
            units: 0,
        });
        let units = (t.saturating_sub(pause.from) / self.fold_unit_time()).max(pause.units);
        self.fold_units(units - pause.units);
        self.pause = Some(Pause { units, ..pause });
        self.advance_to(t);
    }
    fn serve(&mut self, now: u64, req: &IoRequest, data: Option<WriteData>) -> Result<u64> {
        self.serve_at_once(now, req, data)
    }
    /// Models one request issued at absolute time `now`; returns its completion time, or
    /// `None` where a read's data waits for the link ([`Reserving::settle`] gives it). A
    /// drive that holds `queue_slots` commands takes one more when the first of them
    /// completes.
    fn submit(
        &mut self,
        now: u64,
        req: &IoRequest,
        data: Option<WriteData>,
        tag: u32,
    ) -> Result<Option<u64>> {
        self.tag = tag;
        if self.p.queue_slots == 0 {
            return self.serve_now(now, req, data);
        }
        use std::cmp::Reverse;
        while self.inflight.peek().is_some_and(|Reverse(t)| *t <= now) {
            self.inflight.pop();
        }
        let mut start = now;
        if self.inflight.len() + self.open >= self.p.queue_slots {
            // The first completion of those in flight: the link's waiting data sent up to
            // the earliest known.
            if self.open > 0 {
                let known = self.inflight.peek().map_or(u64::MAX, |Reverse(t)| *t);
                let from = self.settled.len();
                self.link.send_ready_by(known, &mut self.settled);
                self.count_settled(from);
            }
            if let Some(Reverse(t)) = self.inflight.pop() {
                start = start.max(t);
            }
        }
        let done = self.serve_now(start, req, data)?;
        match done {
            Some(t) => self.inflight.push(Reverse(t)),
            None => self.open += 1,
        }
        Ok(done)
    }
    fn settle(&mut self, horizon: u64, out: &mut Vec<Settled>) {
        if !self.link.is_idle() {
            let from = self.settled.len();
            self.link.send_ready_by(horizon, &mut self.settled);
            self.count_settled(from);
        }
        out.append(&mut self.settled);
    }
    fn command(&mut self, now: u64, cmd: Command) -> Result<u64> {
        SsdSim::command(self, now, cmd)
    }
    fn wants_data(&self) -> bool {
        self.p.compression
    }
    fn engine(&self) -> &'static str {
        "sim-ssd"
    }
}

#[cfg(test)]
mod tests;
