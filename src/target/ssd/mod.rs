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

use std::sync::Arc;

use rand::SeedableRng;

use crate::drive::{DriveSpec, FtlKind, PlaneReads, SsdHistory, SsdSpec};
use crate::error::Result;
use crate::io::{Command, EngineChoice, IoRequest, Op, WriteData};
use crate::workload::IoOptions;

use super::calendar::Calendar;
use super::virtual_queue::{reserving_queues, Reserving};
use super::{IoQueue, Target, TargetInfo};

mod block_ftl;
mod die;
mod ecc;
mod map_cache;
mod page_ftl;
mod params;
mod slc;
mod write_buffer;

use block_ftl::BlockFtl;
use die::Die;
use ecc::{bit_errors, Ecc};
use page_ftl::{scrambled, Loc, PageFtl};
use params::Params;
use slc::{Placement, Slc};
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

/// Reads continuing a sequential stream after which the controller reads ahead of it.
const READ_AHEAD_AFTER: u32 = 2;

enum Ftl {
    Page(PageFtl),
    Block(BlockFtl),
}

/// A host program's time on its die, and whether it goes to native cells (else in SLC
/// mode).
#[derive(Debug, Clone, Copy)]
struct NextProgram {
    time: u64,
    native: bool,
}

/// The controller work a host program leaves for when it ends (`completion_share`).
#[derive(Debug, Clone, Copy)]
struct Completion {
    end: u64,
    work: u64,
}

/// A simulated SSD.
pub struct SsdSim {
    info: TargetInfo,
    /// Never copied whole (some 350 bytes: copies on every call were 5-6% of the model's
    /// time, in `memcpy`): a method borrows it (`let p = &*self.p`), or, where it also
    /// calls methods that change the drive, takes a handle of its own (`self.params()`)
    /// and passes `&p` down.
    p: Arc<Params>,
    clock: u64,
    link_out: u64,
    link_in: Calendar,
    ctrl: u64,
    /// Each channel's bus: a transfer takes the first gap it fits, so a die that is free
    /// is not held up behind one still reading.
    chan: Vec<Calendar>,
    /// The controller's decoder (`ecc.decode_rate`), all channels' reads through it.
    decoder: Calendar,
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
    /// The stream page reads' bit errors are drawn from.
    errors: rand_chacha::ChaCha8Rng,
    /// The stream programs' pulse counts are drawn from.
    pulses: rand_chacha::ChaCha8Rng,
    /// The stream reads' sense times are drawn from.
    senses: rand_chacha::ChaCha8Rng,
    /// When host programs under way end, and the controller work each takes then, in the
    /// order they end (a program booked now mostly ends after those booked before it, so
    /// it goes in near the back).
    completions: std::collections::VecDeque<Completion>,
    scratch: Vec<u8>,
    next_small_write: u64,
    /// Pages of data written whose per-page work the controller has not done yet (a stripe
    /// being combined).
    combined: u64,
    /// Where the last read ended: a read that starts there continues a sequential stream.
    read_end: u64,
    /// Reads in a row that continued the stream.
    read_run: u32,
    /// Read-ahead: the first logical page read ahead, and when each page from it is across
    /// its channel.
    ahead_first: u64,
    ahead: Vec<u64>,
    /// The SLC cache, where the drive has one, and the host data the FTL maps (which the
    /// cache's accounting follows).
    slc: Option<Slc>,
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
}

/// The logical pages a request covers: the first, the last, and how many.
#[derive(Debug, Clone, Copy)]
struct Pages {
    first: u64,
    last: u64,
    count: u64,
}

/// The map units of logical page `lpn` that a write of `len` bytes at `offset` covers,
/// where the map tracks a page's units apart and the write covers part of the page (a
/// unit it covers in part counts as covered); `None` for the whole page.
fn covered_units(p: &Params, lpn: u64, offset: u64, len: u64) -> Option<page_ftl::Units> {
    if p.map_units <= 1 {
        return None;
    }
    let from = (lpn * p.page).max(offset) - lpn * p.page;
    let to = ((lpn + 1) * p.page).min(offset + len) - lpn * p.page;
    if from == 0 && to == p.page {
        return None;
    }
    let first = from / params::MAP_UNIT;
    Some(page_ftl::Units {
        first,
        count: to.div_ceil(params::MAP_UNIT) - first,
    })
}

impl SsdSim {
    /// The drive's parameters, a handle of its own for a method that also changes the
    /// drive's state.
    fn params(&self) -> Arc<Params> {
        Arc::clone(&self.p)
    }

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
        if s.aged {
            // Used: `full` of the logical pages hold data (every page by default).
            let held = ((lpns as f64 * s.full.unwrap_or(1.0)).round() as u64).clamp(1, lpns);
            match &mut ftl {
                Ftl::Page(f) => f.age(&p, lpns, held)?,
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
            p: Arc::new(p),
            clock: 0,
            link_out: 0,
            link_in: Calendar::default(),
            ctrl: 0,
            chan: vec![Calendar::default(); p.channels],
            decoder: Calendar::default(),
            die: vec![Die::suspending(p.suspension); p.dies],
            buffer: Buffer::new(p.buffer),
            ftl,
            filling: vec![0; p.dies],
            deferred: vec![0; p.dies],
            upper_next: vec![false; p.dies],
            errors: crate::rng::stream(drive_seed, "bit errors"),
            pulses: crate::rng::stream(drive_seed, "program pulses"),
            senses: crate::rng::stream(drive_seed, "read senses"),
            completions: Default::default(),
            scratch: Vec::new(),
            next_small_write: 0,
            combined: 0,
            read_end: u64::MAX,
            read_run: 0,
            ahead_first: 0,
            ahead: Vec::new(),
            slc: s.slc_cache.as_ref().map(|c| Slc::new(c, drive.capacity)),
            native_free: 0,
            valid: 0,
            map: s.map_cache.map(|b| map_cache::MapCache::new(b.0, p.page)),
            now: 0,
            inflight: Default::default(),
            stats: SsdStats::default(),
            prefetched: std::cell::Cell::new(0),
        };
        if let (Some(_), Ftl::Page(f)) = (&sim.slc, &sim.ftl) {
            // An aged drive's data is in native cells.
            sim.valid = (0..lpns).map(|lpn| f.held_bytes(lpn)).sum();
            if let Some(c) = &mut sim.slc {
                c.hold_native(sim.valid);
            }
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
            let done = self.serve(self.clock, &req, None)?;
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

    /// Programs a page on each plane of `die` (one page without multi-plane programs) once
    /// their data is there at `ready`; returns when done. The data crosses the channel as
    /// soon as the channel is free and waits in the die's cache registers if the die is
    /// still busy (a die collecting garbage does not hold up the other dies on its
    /// channel), and a native program after the controller's native rate passes it. A read
    /// that suspends the program later lengthens it on the die only: the end returned
    /// (where the buffer frees its pages) stays as booked.
    fn program(&mut self, die: usize, ready: u64, unit: u64) -> u64 {
        let sent = self.send_program(die, ready, unit);
        let next = self.next_program(die, unit);
        let passed = self.native_gate(sent, unit, next.native);
        let start = self.die[die].start(passed);
        let end = start + self.pulsed(next.time);
        self.die[die].book_program(start, end);
        end
    }

    /// A program's time as its pulses make it: `time` × (1 ± up to `program_spread`).
    fn pulsed(&mut self, time: u64) -> u64 {
        let s = self.p.program_spread;
        if s == 0.0 {
            return time;
        }
        let u = crate::rng::fraction(&mut self.pulses);
        (time as f64 * (1.0 + s * (2.0 * u - 1.0))) as u64
    }

    /// A read's sense time as it varies from read to read: `time` × the drive's spread.
    fn sensed(&mut self, time: u64) -> u64 {
        let Some(r) = self.p.read_spread else {
            return time;
        };
        (time as f64 * r.factor(crate::rng::fraction(&mut self.senses))) as u64
    }

    /// Books `work` for the controller when a host program ends at `end`.
    fn completed_at(&mut self, end: u64, work: u64) {
        if work > 0 {
            let mut k = self.completions.len();
            while k > 0 && self.completions[k - 1].end > end {
                k -= 1;
            }
            self.completions.insert(k, Completion { end, work });
        }
    }

    /// The controller's work for the programs that ended before `t`, done as they ended.
    fn handle_completions_before(&mut self, t: u64) {
        while let Some(&Completion { end, work }) = self.completions.front() {
            if end >= t {
                break;
            }
            self.completions.pop_front();
            self.ctrl = self.ctrl.max(end) + work;
        }
    }

    /// When controller work that would end at `end` does: the programs that end while it
    /// runs take the controller first.
    fn interrupted_until(&mut self, mut end: u64) -> u64 {
        while let Some(&Completion { end: c, work }) = self.completions.front() {
            if c >= end {
                break;
            }
            self.completions.pop_front();
            end += work;
        }
        end
    }

    /// The bytes the next host program writes: a page on each plane; with one-shot
    /// programming, a wordline's pages on each plane when it goes to native cells (in SLC
    /// mode a cell holds one page's bit).
    fn program_unit(&self) -> u64 {
        let p = &*self.p;
        let page = p.page * p.planes;
        match &self.slc {
            _ if p.program_pages == 1 => page,
            Some(c) if c.takes(page) => page,
            _ => page * p.program_pages,
        }
    }

    /// How long `die`'s next host program of `unit` bytes takes: in SLC mode while the
    /// cache has room; in native cells (their pages alternating lower and upper, or a
    /// wordline's at once) after the cache's data it must fold first, each page a plane
    /// folded read from SLC and programmed natively on the die (on-die copy-back: no
    /// channel transfer).
    fn next_program(&mut self, die: usize, unit: u64) -> NextProgram {
        let p = &*self.p;
        let fold = match self.slc.as_mut().map(|c| c.place(unit)) {
            Some(Placement::Slc) => {
                let time = self.slc.as_ref().map_or(p.t_prog, |c| c.t_prog);
                return NextProgram {
                    time,
                    native: false,
                };
            }
            Some(Placement::Native { fold }) => fold,
            None => 0,
        };
        self.stats.folded_bytes += fold;
        let page = p.page * p.planes;
        let folding = (fold as u128 * (p.t_read + p.t_prog) as u128 / page as u128) as u64;
        NextProgram {
            time: folding + self.native_program_time(die),
            native: true,
        }
    }

    /// A native program's time on `die`: its pages alternate lower and upper, or with
    /// one-shot programming a wordline's pages take `program` each, together.
    fn native_program_time(&mut self, die: usize) -> u64 {
        if self.p.program_pages > 1 {
            return self.p.program_pages * self.p.t_prog;
        }
        let upper = &mut self.upper_next[die];
        let t = self.p.t_prog_pair[*upper as usize];
        *upper = !*upper;
        t
    }

    /// Programs a page on each plane of `die` as soon as the background collection queued
    /// on it has erased their block at `erased`; host reads still go between its steps.
    /// Returns when done.
    fn program_after_collection(&mut self, die: usize, ready: u64, erased: u64, unit: u64) -> u64 {
        let sent = self.send_program(die, ready, unit);
        let next = self.next_program(die, unit);
        let sent = self.native_gate(sent, unit, next.native);
        let time = self.pulsed(next.time);
        self.die[die].background_after(sent, erased.max(sent), time)
    }

    /// When a program of `unit` bytes sent at `sent` may start: a native program of host
    /// data waits for the controller's native rate (`slc_cache.native_rate`), one after
    /// another; SLC-mode programs and drives without the limit do not.
    fn native_gate(&mut self, sent: u64, unit: u64, native: bool) -> u64 {
        let ns = self.slc.as_ref().map_or(0.0, |c| c.native_ns_per_byte);
        if !native || ns == 0.0 {
            return sent;
        }
        self.native_free = self.native_free.max(sent) + (unit as f64 * ns) as u64;
        self.native_free
    }

    /// Sends a program's pages over the channel of `die` from `ready`; returns when sent.
    fn send_program(&mut self, die: usize, ready: u64, bytes: u64) -> u64 {
        let p = &*self.p;
        let ch = die % p.channels;
        let sent =
            self.chan[ch].reserve(self.now, ready, (bytes as f64 * p.chan_ns_per_byte) as u64);
        self.stats.nand_bytes += bytes;
        sent
    }

    /// Reads `bytes` of a page (an upper page senses longer where pages have types);
    /// returns when they are across the channel, decoded and corrected (read again first if the
    /// decode failed: a read retry). Where planes read apart, only the page's plane is
    /// held, else the whole die.
    fn read_page(&mut self, page: Stored, ready: u64, bytes: u64) -> u64 {
        let p = &*self.p;
        let (d, ch) = (page.die, page.die % p.channels);
        let kind_time = p.t_read_types[page.kind];
        let independent = p.plane_reads == Some(PlaneReads::Independent);
        let mut at = ready;
        let mut first = true;
        loop {
            let t_read = self.sensed(kind_time);
            let p = &*self.p;
            let sensed = match p.plane_reads {
                Some(PlaneReads::Independent) => self.die[d].start_plane(at, page.plane) + t_read,
                // A read again is a sense of its own. Synchronous planes pair pages of any
                // wordline.
                Some(m @ (PlaneReads::Multi | PlaneReads::Synchronous)) if first => {
                    let wordline = (m == PlaneReads::Multi).then_some(page.wordline);
                    self.die[d].sense_together(at, wordline, page.plane, t_read)
                }
                // A retry does not part the planes that sense together: the pages of the
                // request asked for with this one still join their sense.
                _ if !first => self.die[d].start_again(at) + t_read,
                _ => self.die[d].start_read(at) + t_read,
            };
            first = false;
            let moving = (bytes as f64 * p.chan_ns_per_byte) as u64;
            let end = self.chan[ch].reserve(self.now, sensed, moving);
            if independent {
                self.die[d].book_plane(end, page.plane);
            } else {
                self.die[d].book(end);
            }
            let Some(ecc) = p.ecc else {
                return end;
            };
            let end = self.decode(ecc, end - moving, end, bytes);
            let (fix, retry) = bit_errors(&mut self.errors, ecc);
            if !retry {
                return end + fix;
            }
            self.stats.read_retries += 1;
            at = end + fix;
        }
    }

    /// When the data of a page read that crossed its channel from `start` to `end` is
    /// decoded, where the controller's decoder has a rate (`ecc.decode_rate`): its
    /// codewords in turn as they arrive, so the last is decoded a codeword's time after
    /// `end` where the decoder keeps up with the channel, and the page's bytes take the
    /// decoder that long from its first codeword where it does not. The decoder serves
    /// every channel; a page ready early takes a gap before one still crossing.
    fn decode(&mut self, ecc: Ecc, start: u64, end: u64, bytes: u64) -> u64 {
        if ecc.decode_ns_per_byte == 0.0 {
            return end;
        }
        let decode = |b: u64| (b as f64 * ecc.decode_ns_per_byte) as u64;
        let codeword = ecc.codeword.min(bytes);
        let decoding = decode(bytes);
        // From the first codeword's arrival; done no sooner than a codeword after the last.
        let arrived = start + (codeword as f64 * self.p.chan_ns_per_byte) as u64;
        let ready = arrived.max((end + decode(codeword)).saturating_sub(decoding));
        self.decoder.reserve(self.now, ready, decoding)
    }

    /// Bytes a write stores: the LZ4-compressed size of its data on a compressing
    /// controller (never more than the data), else its length.
    fn stored_bytes(&mut self, data: Option<WriteData>, len: u64) -> u64 {
        match data {
            // LZ4's output for random bytes is the bytes and its framing: stored as they are.
            Some(WriteData::Random) => len,
            Some(WriteData::Bytes(d)) if self.p.compression => {
                self.scratch
                    .resize(lz4_flex::block::get_maximum_output_size(d.len()), 0);
                match lz4_flex::block::compress_into(d, &mut self.scratch) {
                    Ok(n) => (n as u64).min(len),
                    Err(_) => len,
                }
            }
            _ => len,
        }
    }

    /// Models one request issued at absolute time `now`; returns its completion time. A
    /// drive that holds `queue_slots` commands takes one more when the first of them
    /// completes.
    fn serve(&mut self, now: u64, req: &IoRequest, data: Option<WriteData>) -> Result<u64> {
        if self.p.queue_slots == 0 {
            return self.serve_now(now, req, data);
        }
        use std::cmp::Reverse;
        while self.inflight.peek().is_some_and(|Reverse(t)| *t <= now) {
            self.inflight.pop();
        }
        let mut start = now;
        if self.inflight.len() >= self.p.queue_slots {
            if let Some(Reverse(t)) = self.inflight.pop() {
                start = start.max(t);
            }
        }
        let done = self.serve_now(start, req, data)?;
        self.inflight.push(Reverse(done));
        Ok(done)
    }

    /// Models one request the drive takes at `now`; returns its completion time.
    fn serve_now(&mut self, now: u64, req: &IoRequest, data: Option<WriteData>) -> Result<u64> {
        let p = &*self.p;
        self.now = now;
        let len = req.len as u64;
        // The command, and a write's data, over the link; then the controller.
        let link = if req.op == Op::Write {
            (len as f64 * p.link_ns_per_byte) as u64
        } else {
            0
        };
        let start = now.max(self.link_out);
        let arrived = start + p.command + link;
        self.link_out = arrived;
        let first = req.offset / p.page;
        let last = (req.offset + len - 1) / p.page;
        let span = Pages {
            first,
            last,
            count: last - first + 1,
        };
        self.handle_completions_before(arrived);
        let at = arrived.max(self.ctrl);
        self.ctrl = at;
        match req.op {
            Op::Read => {
                let at = at + self.p.read_overhead;
                self.ctrl = at;
                Ok(self.serve_read(req, span, at))
            }
            Op::Write => Ok(self.serve_write(req, data, span, at)? + self.p.write_latency),
        }
    }

    /// A read from `at`, when the controller has the command: returns when its last byte is
    /// back over the link.
    fn serve_read(&mut self, req: &IoRequest, span: Pages, at: u64) -> u64 {
        // Copied: the reads below change the drive.
        let (page, link_ns_per_byte) = (self.p.page, self.p.link_ns_per_byte);
        let len = req.len as u64;
        // Every page is read at once (each die and channel in turn), and this read's
        // data goes back over the link in order, each page's part as soon as it is
        // across its channel (cut-through) and the link has a gap for it (before other
        // reads' data still waiting for their dies), so a large read's link transfer
        // overlaps its NAND reads. A page read ahead is not read again.
        let mut sent = at;
        let mut bytes_sent = 0u64;
        let link_ns = |b: u64| (b as f64 * link_ns_per_byte) as u64;
        self.read_run = if req.offset == self.read_end {
            self.read_run.saturating_add(1)
        } else {
            0
        };
        self.read_end = req.offset + len;
        for lpn in span.first..=span.last {
            let ahead = lpn
                .checked_sub(self.ahead_first)
                .and_then(|i| self.ahead.get(i as usize).copied());
            let ready = match ahead {
                // Sent once the command is in, however early it was read.
                Some(t) => t.max(at),
                None => {
                    // Only the part of the page the request asks for leaves the die.
                    let from = (lpn * page).max(req.offset);
                    let to = ((lpn + 1) * page).min(req.offset + len);
                    let at = self.map_lookup(lpn, at);
                    self.read_lpn(lpn, at, from - lpn * page, to - lpn * page)
                }
            };
            let upto = ((lpn + 1) * page).min(req.offset + len) - req.offset;
            // Times from the bytes sent so far, so rounding does not add up.
            sent = self.link_in.reserve(
                self.now,
                sent.max(ready),
                link_ns(upto) - link_ns(bytes_sent),
            );
            bytes_sent = upto;
        }
        // A stream of three reads in a row is read ahead (what was read ahead before
        // stays until then, for a stream that other reads interrupted).
        if self.read_run >= READ_AHEAD_AFTER {
            self.read_ahead(span.last + 1, span.count, at);
        }
        sent
    }

    /// A write from `at`, when the controller has the command and its data: returns when
    /// the drive reports it done (in its buffer, or after the work it had to wait for).
    fn serve_write(
        &mut self,
        req: &IoRequest,
        data: Option<WriteData>,
        span: Pages,
        mut at: u64,
    ) -> Result<u64> {
        let p = self.params();
        let len = req.len as u64;
        let Pages {
            first,
            last,
            count: pages,
        } = span;
        let aligned = req.offset % p.page == 0 && len % p.page == 0;
        self.stats.host_bytes += len;
        // What was read ahead may be overwritten.
        self.ahead.clear();
        // Each page of data the write carries (or unit, `page_overhead_unit`) costs the
        // controller its map entry and ECC (an unaligned 4 KiB write is one page of data,
        // remapped, not two).
        // A controller that combines them does it a stripe at a time, when the stripe's
        // last page arrives: that write and those behind it wait for the whole stripe's.
        // The share of it spent when the write's last page is programmed waits for that.
        let units = len.div_ceil(p.overhead_unit);
        self.combined += units;
        at += p.write_overhead;
        if self.combined >= p.combine {
            at += self.combined * p.page_overhead;
            self.combined = 0;
        }
        let deferred = p.write_deferred + units * p.page_deferred;
        if p.small_write_gap > 0 && len < 16 * 1024 {
            at = at.max(self.next_small_write);
            self.next_small_write = at + p.small_write_gap;
        }
        if !aligned {
            if p.remap {
                at += p.remap_cost;
            } else {
                // Read-modify-write of the partly covered first and last pages,
                // one after the other through the controller's one merge buffer,
                // which holds the controller until the merged data is ready.
                let mut ready = at;
                let ends = if first == last {
                    &[first][..]
                } else {
                    &[first, last]
                };
                for &lpn in ends {
                    let partial =
                        lpn * p.page < req.offset || (lpn + 1) * p.page > req.offset + len;
                    if partial && !self.buffer.is_held(lpn) {
                        if let Some(page) = self.locate(lpn) {
                            ready = self.read_page(page, ready, page.bytes);
                        }
                    }
                }
                at = ready;
            }
        }
        at = self.interrupted_until(at);
        self.ctrl = self.ctrl.max(at);
        let stored = if aligned || p.remap {
            self.stored_bytes(data, len)
        } else {
            // The merged whole pages are written.
            pages * p.page
        };
        let per_page = stored.div_ceil(pages).max(1);
        match p.ftl {
            FtlKind::Page if p.flush_buffer => {
                let mut done = at;
                let held = self.buffer.held_bytes;
                if held + stored > p.buffer && held > 0 {
                    // The buffer is written out first; no command or data comes in until
                    // it is on NAND.
                    done = self.write_out_held(&p, at)?;
                    self.ctrl = self.ctrl.max(done);
                    self.link_out = self.link_out.max(done);
                }
                for lpn in first..=last {
                    self.buffer.hold(lpn, per_page);
                }
                Ok(done)
            }
            FtlKind::Page => {
                let admitted = self.buffer.admit(stored, at);
                let mut collected = 0;
                for lpn in first..=last {
                    // The deferred work waits for the program of the write's last page.
                    let work = if lpn == last { deferred } else { 0 };
                    let units = covered_units(&p, lpn, req.offset, len);
                    let placed = self.place(&p, lpn, per_page, units, admitted, work)?;
                    collected = collected.max(placed);
                }
                if p.gc_foreground && collected > 0 {
                    // The controller collected: this write and every command after
                    // it wait until the victim is copied and erased.
                    self.ctrl = self.ctrl.max(collected);
                    return Ok(admitted.max(collected));
                }
                Ok(admitted)
            }
            FtlKind::Block => Ok(self.cache_write(span, at)),
        }
    }

    /// A block-mapped FTL's write of `span` from `at`: it completes in the cache; one that
    /// finds no room waits for the whole cache to be written out (its merges one after
    /// another: the pause). One larger than the cache goes straight through.
    fn cache_write(&mut self, span: Pages, at: u64) -> u64 {
        let p = &*self.p;
        let Pages {
            first,
            last,
            count: pages,
        } = span;
        let cap = p.buffer / p.page;
        let cached = match &self.ftl {
            Ftl::Block(f) => f.cache.len() as u64,
            Ftl::Page(_) => 0,
        };
        let mut done = at;
        if cached + pages > cap {
            done = self.write_out_cache(at);
        }
        if pages > cap {
            for lpn in first..=last {
                done = done.max(self.log_write(lpn, at));
            }
        } else if let Ftl::Block(f) = &mut self.ftl {
            for lpn in first..=last {
                if !f.cache.contains(&lpn) {
                    f.cache.push(lpn);
                }
            }
        }
        done
    }

    /// Reads ahead of a sequential stream: the `pages` logical pages from `first` (those
    /// that hold data) are read from `at`, behind the request's own pages, so that the next
    /// request of the stream finds them read and waits only for the link.
    fn read_ahead(&mut self, first: u64, pages: u64, at: u64) {
        let end = (first + pages).min(self.info.capacity.div_ceil(self.p.page));
        self.ahead.clear();
        self.ahead_first = first;
        for lpn in first..end {
            let ready = self.read_lpn(lpn, at, 0, self.p.page);
            self.ahead.push(ready);
        }
    }

    /// When a DRAM-less controller knows where logical page `lpn` is, looking from `at`: at
    /// once if its map page is held (or the page holds no data), else once the map page is
    /// read from NAND (map pages spread over the dies).
    fn map_lookup(&mut self, lpn: u64, at: u64) -> u64 {
        if self.map.is_none() || !self.holds(lpn) {
            return at;
        }
        match self.map.as_mut().and_then(|m| m.miss(lpn)) {
            Some(page) => {
                let (dies, planes) = (self.p.dies as u64, self.p.planes);
                // Map pages are laid out as data is: over the dies, then the planes,
                // alternately lower and upper.
                let stored = Stored {
                    die: (page % dies) as usize,
                    bytes: self.p.page,
                    kind: (page / dies / planes % self.p.page_types) as usize,
                    plane: (page / dies % planes) as usize,
                    // Apart from the data's wordlines.
                    wordline: (1 << 63) | (page / dies / planes),
                };
                self.read_page(stored, at, self.p.page)
            }
            None => at,
        }
    }

    /// Reads bytes `from..to` of logical page `lpn` from `at`; returns when they are across
    /// their channels (`at` for a page that holds no data, which the NAND is not asked
    /// for). A page whose map units are stored apart is read from each place that holds
    /// some of the range, at once.
    fn read_lpn(&mut self, lpn: u64, at: u64, from: u64, to: u64) -> u64 {
        if self.buffer.is_held(lpn) {
            // Still in the buffer.
            return at;
        }
        if let Ftl::Page(f) = &self.ftl {
            if let Some(pieces) = f.pieces(lpn, from, to) {
                let mut ready = at;
                for loc in pieces {
                    let stored = self.stored_at(loc);
                    ready = ready.max(self.read_page(stored, at, stored.bytes));
                }
                return ready;
            }
        }
        match self.locate(lpn) {
            Some(s) => {
                let part = (s.bytes * (to - from)).div_ceil(self.p.page).max(1);
                self.read_page(s, at, part)
            }
            None => at,
        }
    }

    /// Whether logical page `lpn` holds data (stored whole or unit by unit).
    fn holds(&self, lpn: u64) -> bool {
        match &self.ftl {
            Ftl::Page(f) => f.mapping(lpn) != page_ftl::Mapping::Unmapped,
            Ftl::Block(_) => self.locate(lpn).is_some(),
        }
    }

    /// Where a page FTL's entry `loc` is on the NAND: its die, its page's type, plane and
    /// wordline, and the bytes it holds.
    fn stored_at(&self, loc: Loc) -> Stored {
        let p = &*self.p;
        Stored {
            die: (loc.block as u64 / p.blocks_per_die) as usize,
            bytes: loc.bytes as u64,
            kind: (loc.entry() as u64 / p.planes % p.page_types) as usize,
            plane: (loc.entry() as u64 % p.planes) as usize,
            wordline: loc.block as u64 * p.pages_per_block + loc.entry() as u64 / p.planes,
        }
    }

    /// Where a logical page's data is, if it holds any: its die, the bytes stored and its
    /// page's type (a page's wordline is its place in its block on each plane; lower and
    /// upper alternate).
    fn locate(&self, lpn: u64) -> Option<Stored> {
        let p = &*self.p;
        match &self.ftl {
            // A page whose units are stored apart is read by its pieces (`read_lpn`).
            Ftl::Page(f) => Some(self.stored_at(f.location(lpn)?)),
            // A page in the cache is read from there; one never written is not read.
            Ftl::Block(f) if f.cache.contains(&lpn) || !f.holds(lpn) => None,
            Ftl::Block(_) => Some(Stored {
                die: (lpn % p.dies as u64) as usize,
                bytes: p.page,
                kind: (lpn / p.dies as u64 % p.page_types) as usize,
                plane: 0,
                wordline: lpn,
            }),
        }
    }

    /// With `flush_buffer`: writes the buffer out from `at`, its pages placed in the order
    /// they came (a program for every die's share at once); returns when the last is
    /// programmed and the collection they caused is done. A page's data short of a whole
    /// program stays in the buffer, as in [`SsdSim::settle`].
    fn write_out_held(&mut self, p: &Params, at: u64) -> Result<u64> {
        let mut done = at;
        for h in self.buffer.take_held() {
            done = done.max(self.place(p, h.lpn, h.bytes, None, at, 0)?);
        }
        Ok(done.max(self.buffer.drain().unwrap_or(at)))
    }

    /// Page FTL: stores `bytes` of logical page `lpn` (the whole page, or `units` of it),
    /// buffered at `at`; programs the pages that fill, the controller taking `work` when the
    /// program holding this page ends. Returns when the garbage collection this caused is
    /// done (0 if none).
    fn place(
        &mut self,
        p: &Params,
        lpn: u64,
        bytes: u64,
        units: Option<page_ftl::Units>,
        at: u64,
        work: u64,
    ) -> Result<u64> {
        let Ftl::Page(f) = &mut self.ftl else {
            return Ok(0);
        };
        let die = f.die;
        // The old data goes stale; the new is counted as it is programmed.
        let old = match units {
            Some(u) => f.invalidate_units(lpn, u, p),
            None => f.invalidate(lpn, p),
        };
        if let Some(c) = &mut self.slc {
            self.valid = self.valid.saturating_sub(old) + bytes;
            c.sync(self.valid);
        }
        let mut book = page_ftl::Booking {
            busy: &mut self.die,
            stats: &mut self.stats,
            at,
        };
        let collected = f.append(die, lpn as u32, bytes, units, p, &mut book)?;
        // A block the die is still collecting into the free list is written after that.
        let erased = f.open[die].map_or(0, |b| f.blocks[b as usize].erased);
        let queued = erased > at && self.die[die].bg_left > 0;
        self.filling[die] += bytes;
        self.deferred[die] += work;
        // A program takes a page for each plane (a wordline's pages, one-shot).
        let mut programmed = false;
        loop {
            let unit = self.program_unit();
            if self.filling[die] < unit {
                break;
            }
            self.filling[die] -= unit;
            let done = if queued {
                self.program_after_collection(die, at, erased, unit)
            } else {
                self.program(die, at.max(erased), unit)
            };
            let work = std::mem::take(&mut self.deferred[die]);
            self.completed_at(done, work);
            self.buffer.release(done, unit);
            programmed = true;
        }
        if programmed {
            // The next page goes to the next die in turn if it is free by the time this
            // write's data arrived, else to the die that is free first (the next in turn
            // among equals): a die busy collecting garbage is passed over.
            let turn = if die + 1 == p.dies { 0 } else { die + 1 };
            let next = if self.die[turn].free_at() <= at {
                turn
            } else {
                self.free_first(turn)
            };
            if let Ftl::Page(f) = &mut self.ftl {
                f.die = next;
            }
        }
        Ok(collected)
    }

    /// The die free first, the first in turn from `turn` among equals (two plain loops:
    /// this runs for most writes where the dies bind).
    fn free_first(&self, turn: usize) -> usize {
        let mut best = turn;
        let mut best_at = u64::MAX;
        for (d, die) in self.die.iter().enumerate().skip(turn) {
            let at = die.free_at();
            if at < best_at {
                best = d;
                best_at = at;
            }
        }
        for (d, die) in self.die.iter().enumerate().take(turn) {
            let at = die.free_at();
            if at < best_at {
                best = d;
                best_at = at;
            }
        }
        best
    }

    /// Discards the logical pages wholly inside `[offset, offset + len)` (and what was read
    /// ahead, which may be of them).
    fn discard(&mut self, offset: u64, len: u64) {
        self.ahead.clear();
        let p = &*self.p;
        let first = offset.div_ceil(p.page);
        let end = (offset + len) / p.page;
        self.buffer.drop_held(first, end);
        match &mut self.ftl {
            Ftl::Page(f) => {
                let end = end.min(f.map.len() as u64);
                if let Some(c) = &mut self.slc {
                    let stale: u64 = (first..end).map(|lpn| f.held_bytes(lpn)).sum();
                    self.valid = self.valid.saturating_sub(stale);
                    c.sync(self.valid);
                }
                // A short range page by page; a long one (a purge) counts every block's
                // pages out first and moves each block among the victims once.
                if end.saturating_sub(first) < f.blocks.len() as u64 {
                    for lpn in first..end {
                        f.invalidate(lpn, p);
                    }
                } else {
                    f.invalidate_range(first, end, p);
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
        // An SLC cache is folded while the drive idles, every die reading and programming.
        let p = &*self.p;
        if let Some(c) = self.slc.as_mut().filter(|c| c.fold_in_idle) {
            let per_unit = p.t_read + p.t_prog;
            let units = ns as u128 * p.dies as u128 / per_unit as u128;
            let folded = c.fold((units * (p.page * p.planes) as u128).min(u64::MAX as u128) as u64);
            self.stats.folded_bytes += folded;
        }
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
    /// A trim or flush at `now` with nothing in flight; returns when it is done. The
    /// command crosses the link and waits for the controller. A trim drops the mapping of
    /// the whole pages in its range (no NAND work: their space comes back as their blocks
    /// are collected); a flush waits until everything the drive has accepted is on NAND,
    /// as [`SsdSim::settle`] does.
    pub(super) fn command(&mut self, now: u64, cmd: Command) -> Result<u64> {
        let arrived = now.max(self.link_out) + self.p.command;
        self.link_out = arrived;
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
        self.write_out_cache(self.clock);
        if self.buffer.held_bytes > 0 {
            let p = self.params();
            let done = self.write_out_held(&p, self.clock.max(self.ctrl))?;
            self.clock = self.clock.max(done);
        }
        // A stripe begun is written out: its pages' work done.
        if self.combined > 0 {
            self.ctrl = self.ctrl.max(self.clock) + self.combined * self.p.page_overhead;
            self.combined = 0;
        }
        let busy = [
            self.ctrl,
            self.link_out,
            self.link_in.end(),
            self.decoder.end(),
        ]
        .into_iter()
        .chain(self.chan.iter().map(Calendar::end))
        .chain(self.die.iter().map(Die::free_at))
        .chain(self.buffer.frees.iter().map(|&(when, _)| when))
        .max()
        .unwrap_or(0);
        self.clock = self.clock.max(busy);
        self.buffer.frees.clear();
        self.buffer.used = self.filling.iter().sum::<u64>().min(self.buffer.cap);
        Ok(())
    }
}

impl Reserving for SsdSim {
    fn prefetch(&self, req: &IoRequest) {
        if let Ftl::Page(f) = &self.ftl {
            // The request prefetched last time is the next to come (the engine asks two
            // ahead): its map word is in by now, and a split page's unit words are asked
            // for behind it.
            f.prefetch_units(self.prefetched.replace(req.offset / self.p.page));
            f.prefetch(req.offset / self.p.page);
        }
    }

    fn clock(&self) -> u64 {
        self.clock
    }
    fn advance_to(&mut self, t: u64) {
        self.clock = self.clock.max(t);
    }
    fn serve(&mut self, now: u64, req: &IoRequest, data: Option<WriteData>) -> Result<u64> {
        SsdSim::serve(self, now, req, data)
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
