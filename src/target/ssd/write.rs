//! A write's path: the controller's time, the buffer, the FTL's placement, the program
//! on its die (SLC mode or native, folding, its pulses), and the work left for its end.

use crate::drive::FtlKind;
use crate::error::Result;
use crate::io::{IoRequest, WriteData};

use super::page_ftl;
use super::params::{self, Params};
use super::slc::Placement;
use super::time_queue::Timed;
use super::{Ftl, Pages, SsdSim};

/// A host program's time on its die, and whether it goes to native cells (else in SLC
/// mode).
#[derive(Debug, Clone, Copy)]
pub(super) struct NextProgram {
    pub(super) time: u64,
    native: bool,
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

/// When a page is placed: its data is in the buffer `at`; the next page goes to the next
/// die in turn if that die is free by `turn_by` (when all of the write's data is in).
#[derive(Debug, Clone, Copy)]
struct Placed {
    at: u64,
    turn_by: u64,
}

/// A write's bytes widened to the whole 4 KiB map units it covers in part or whole.
#[derive(Debug, Clone, Copy)]
struct Widened {
    offset: u64,
    len: u64,
}

/// The programs' pulse factors (1 ± up to `program_spread`), drawn from their own stream
/// one program ahead: the draw's arithmetic is done before the program that takes it is
/// booked, off the path its end time is wanted on. The same factors in the same order as
/// drawn when wanted; none without a spread.
#[derive(Debug, Clone)]
pub(super) struct Pulses {
    rng: rand_chacha::ChaCha8Rng,
    spread: f64,
    next: f64,
}

impl Pulses {
    pub(super) fn new(rng: rand_chacha::ChaCha8Rng, spread: f64) -> Pulses {
        let mut pulses = Pulses {
            rng,
            spread,
            next: 1.0,
        };
        if spread != 0.0 {
            pulses.next = pulses.draw();
        }
        pulses
    }

    fn draw(&mut self) -> f64 {
        1.0 + self.spread * (2.0 * crate::rng::fraction(&mut self.rng) - 1.0)
    }

    /// The next program's factor (`None` without a spread: nothing is drawn).
    fn take(&mut self) -> Option<f64> {
        if self.spread == 0.0 {
            return None;
        }
        let factor = self.next;
        self.next = self.draw();
        Some(factor)
    }
}

/// With `write_stripes`: the stripe whose programs are being booked, its room in the
/// buffer freed when the last of them (one a die) is booked, at its slowest program's end.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Stripe {
    end: u64,
    bytes: u64,
    programs: usize,
    /// Whether its programs are on upper pages: a stripe is the same page of every die's
    /// open block (a superpage), so its dies program one page type together.
    upper: bool,
}

/// The whole map units the `len` bytes at `offset` fall in.
fn whole_units(offset: u64, len: u64) -> Widened {
    let unit = params::MAP_UNIT;
    let from = offset / unit * unit;
    Widened {
        offset: from,
        len: (offset + len).div_ceil(unit) * unit - from,
    }
}

impl SsdSim {
    /// A write from `at`, when the controller has the command, its data in by `data_in`:
    /// returns when the drive reports it done (in its buffer, or after the work it had to
    /// wait for).
    pub(super) fn serve_write(
        &mut self,
        req: &IoRequest,
        data: Option<WriteData>,
        span: Pages,
        mut at: u64,
        data_in: u64,
    ) -> Result<u64> {
        let p = self.p;
        let len = req.len as u64;
        let Pages {
            first,
            last,
            count: pages,
        } = span;
        let aligned = p.starts_page(req.offset) && p.starts_page(len);
        self.stats.host_bytes += len;
        // What was read ahead may be overwritten.
        self.ahead.clear();
        // Each page of data the write carries (or unit, `page_overhead_unit`) costs the
        // controller its map entry and ECC (an unaligned 4 KiB write is one page of data,
        // remapped, not two).
        // A controller that combines them does it a stripe at a time, when the stripe's
        // last page arrives: that write and those behind it wait for the whole stripe's.
        // The share of it spent when the write's last page is programmed waits for that.
        // The controller works as the data comes in (`data_in`: all of it is in): the work
        // on its last unit, or on a combining controller the stripe's, follows it.
        let units = params::div_ceil(len, p.overhead_unit);
        self.combined += units;
        at += p.write_overhead;
        // The controller has the command from here (a firmware that spaces small writes
        // takes it no sooner than its turn, below): a page whose data is in before the
        // write's last goes to the buffer from then (`arrives`).
        let mut took = at;
        let mut data_done = data_in;
        if self.combined >= p.combine {
            let work = self.combined * p.page_overhead;
            at += work;
            data_done += if p.combine > 1 { work } else { p.page_overhead };
            self.combined = 0;
        }
        if p.small_write_gap > 0 && len < 16 * 1024 {
            took = took.max(self.next_small_write);
            at = at.max(self.next_small_write);
            self.next_small_write = at + p.small_write_gap;
        }
        // What the write stores: on a controller that maps a page's 4 KiB units apart and
        // stores what comes as it comes (it does not compress and pack), whole units, the
        // rest of each unit it covers in part read first (`merged`: when that is done; the
        // write waits for it, the controller goes on with other commands meanwhile).
        let (mut offset, mut stored_len, mut merged) = (req.offset, len, 0);
        if !aligned {
            if p.remap {
                at += p.remap_cost;
                if p.map_units > 1 && !p.compression {
                    let widened = whole_units(req.offset, len);
                    merged = self.read_unit_rest(p, req.offset, len, widened, at);
                    (offset, stored_len) = (widened.offset, widened.len);
                }
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
        at = self.interrupted_until(at).max(data_done);
        self.ctrl = self.ctrl.max(at);
        let at = at.max(merged);
        let stored = if stored_len != len {
            // The merged whole units (no compression here).
            stored_len
        } else if aligned || p.remap {
            self.stored_bytes(data, len)
        } else {
            // The merged whole pages are written.
            pages * p.page
        };
        let per_page = params::div_ceil(stored, pages).max(1);
        // The work left for the program's end; on a compressing controller it goes with the
        // bytes the write stores there (docs/simulated-drives.md, "Model against the
        // reviews": taken per write, compressible data wrote slower than incompressible).
        let deferred = p.write_deferred + units * p.page_deferred;
        let deferred = match p.compression && stored < len {
            true => (deferred as u128 * stored as u128).div_ceil(len as u128) as u64,
            false => deferred,
        };
        match p.ftl {
            FtlKind::Page if p.flush_buffer => {
                let mut done = at;
                let held = self.buffer.held_bytes;
                if held + stored > p.buffer && held > 0 {
                    // The buffer is written out first; no command or data comes in until
                    // it is on NAND.
                    done = self.write_out_held(p, at)?;
                    self.ctrl = self.ctrl.max(done);
                    self.link_out = self.link_out.max(done);
                }
                for lpn in first..=last {
                    self.buffer.hold(lpn, per_page);
                }
                Ok(done)
            }
            FtlKind::Page => {
                // The data comes into the buffer a page at a time as it crosses the link
                // and room frees, so a write larger than the room left streams in behind
                // the programs of its own first pages; it is done when its last page is
                // in. A write that merges what it covers in part (read first) goes in
                // whole, and so does one on a controller that combines pages (kept as
                // fitted: docs/simulated-drives.md, "The SSD model", Writes).
                let whole = merged > 0 || (!aligned && !p.remap) || p.combine > 1;
                let page_work = p.page_overhead * params::div(p.page, p.overhead_unit).max(1);
                let arrives = |lpn: u64| match lpn == last || whole {
                    true => at,
                    false => {
                        // The write's bytes after this page's still on the link.
                        let after = req.offset + len - (lpn + 1) * p.page;
                        let link = params::scaled(after, p.link_ns_per_byte);
                        let worked = took + (lpn - first) * page_work;
                        (data_in.saturating_sub(link).max(worked) + page_work).min(at)
                    }
                };
                let mut admitted = at;
                let mut collected = 0;
                for lpn in first..=last {
                    admitted = self.buffer.admit(per_page, arrives(lpn));
                    // The deferred work waits for the program of the write's last page.
                    let work = if lpn == last { deferred } else { 0 };
                    let units = covered_units(p, lpn, offset, stored_len);
                    let when = Placed {
                        at: admitted,
                        turn_by: admitted.max(at),
                    };
                    let placed = self.place(p, lpn, per_page, units, when, work)?;
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

    /// A block-mapped FTL's write of `span` from `at`: it completes in the cache; one that
    /// finds no room waits for the whole cache to be written out (its merges one after
    /// another: the pause). One larger than the cache goes straight through.
    fn cache_write(&mut self, span: Pages, at: u64) -> u64 {
        let p = self.p;
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

    /// Page FTL: stores `bytes` of logical page `lpn` (the whole page, or `units` of it),
    /// buffered at `when.at`; programs the pages that fill, the controller taking `work`
    /// when the program holding this page ends. Returns when the garbage collection this
    /// caused is done (0 if none).
    fn place(
        &mut self,
        p: &Params,
        lpn: u64,
        bytes: u64,
        units: Option<page_ftl::Units>,
        when: Placed,
        work: u64,
    ) -> Result<u64> {
        let Placed { at, turn_by } = when;
        // In SLC mode if the program it goes into would take the cache now.
        let to_slc = self.slc_pages.is_some()
            && self
                .slc
                .as_ref()
                .is_some_and(|c| c.takes(self.program_unit()));
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
        if let Some(c) = &mut self.slc_pages {
            c.written(lpn, to_slc);
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
            self.release_program(p, done, unit);
            programmed = true;
        }
        if programmed {
            // The next page goes to the next die in turn if it is free by the time all of
            // this write's data arrived, else to the die that is free first (the next in
            // turn among equals): a die busy collecting garbage is passed over.
            let turn = if die + 1 == p.dies { 0 } else { die + 1 };
            let next = if p.striped || self.die[turn].free_at() <= turn_by {
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

    /// A program's `unit` bytes leave the buffer when it ends at `done`; with
    /// `write_stripes`, when its stripe's slowest program ends.
    fn release_program(&mut self, p: &Params, done: u64, unit: u64) {
        if !p.striped {
            self.buffer.release(done, unit);
            return;
        }
        let s = &mut self.stripe;
        s.end = s.end.max(done);
        s.bytes += unit;
        s.programs += 1;
        if s.programs == p.dies {
            let s = std::mem::take(&mut self.stripe);
            self.buffer.release(s.end, s.bytes);
            self.stripe.upper = !s.upper;
        }
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

    /// With `flush_buffer`: writes the buffer out from `at`, its pages placed in the order
    /// they came (a program for every die's share at once); returns when the last is
    /// programmed and the collection they caused is done. A page's data short of a whole
    /// program stays in the buffer, as in [`SsdSim::settle`].
    pub(super) fn write_out_held(&mut self, p: &Params, at: u64) -> Result<u64> {
        let mut done = at;
        for h in self.buffer.take_held() {
            done = done.max(self.place(p, h.lpn, h.bytes, None, Placed { at, turn_by: at }, 0)?);
        }
        Ok(done.max(self.buffer.drain().unwrap_or(at)))
    }

    /// Programs a page on each plane of `die` (one page without multi-plane programs) once
    /// their data is there at `ready`; returns when done. The data crosses the channel as
    /// soon as the channel is free and waits in the die's cache registers if the die is
    /// still busy (a die collecting garbage does not hold up the other dies on its
    /// channel), and a native program after the controller's native rate passes it. A read
    /// that suspends the program later lengthens it on the die only: the end returned
    /// (where the buffer frees its pages) stays as booked.
    pub(super) fn program(&mut self, die: usize, ready: u64, unit: u64) -> u64 {
        let sent = self.send_program(die, ready, unit);
        let next = self.next_program(die, unit);
        let passed = self.native_gate(sent, unit, next.native);
        let start = self.die[die].start(passed);
        let end = start + self.pulsed(next.time);
        self.die[die].book_program(start, end);
        end
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

    /// How long `die`'s next host program of `unit` bytes takes: in SLC mode while the
    /// cache has room; in native cells (their pages alternating lower and upper, or a
    /// wordline's at once) after the cache's data it must fold first, each page a plane
    /// folded read from SLC and programmed natively on the die (on-die copy-back: no
    /// channel transfer).
    pub(super) fn next_program(&mut self, die: usize, unit: u64) -> NextProgram {
        let fold = match self.slc.as_mut().map(|c| c.place(unit)) {
            Some(Placement::Slc) => {
                let time = self.slc.as_ref().map_or(self.p.t_prog, |c| c.t_prog);
                return NextProgram {
                    time,
                    native: false,
                };
            }
            Some(Placement::Native { fold }) => fold,
            None => 0,
        };
        // A program that folds nothing does none of the fold's bookkeeping.
        let folding = if fold == 0 {
            0
        } else {
            self.folded(fold);
            let p = self.p;
            let page = p.page * p.planes;
            (fold as u128 * (self.fold_read() + p.t_prog) as u128 / page as u128) as u64
        };
        NextProgram {
            time: folding + self.native_program_time(die),
            native: true,
        }
    }

    /// The bytes the next host program writes: a page on each plane; with one-shot
    /// programming, a wordline's pages on each plane when it goes to native cells (in SLC
    /// mode a cell holds one page's bit).
    pub(super) fn program_unit(&self) -> u64 {
        let p = self.p;
        let page = p.page * p.planes;
        match &self.slc {
            _ if p.program_pages == 1 => page,
            Some(c) if c.takes(page) => page,
            _ => page * p.program_pages,
        }
    }

    /// A native program's time on `die`: its pages alternate lower and upper (a stripe's
    /// together, with `write_stripes`), or with one-shot programming a wordline's pages
    /// take `program` each, together.
    fn native_program_time(&mut self, die: usize) -> u64 {
        if self.p.program_pages > 1 {
            return self.p.program_pages * self.p.t_prog;
        }
        if self.p.striped {
            return self.p.t_prog_pair[self.stripe.upper as usize];
        }
        let upper = &mut self.upper_next[die];
        let t = self.p.t_prog_pair[*upper as usize];
        *upper = !*upper;
        t
    }

    /// When a program of `unit` bytes sent at `sent` may start: a native program of host
    /// data waits for the controller's native rate (`slc_cache.native_rate`), one after
    /// another; SLC-mode programs and drives without the limit do not.
    fn native_gate(&mut self, sent: u64, unit: u64, native: bool) -> u64 {
        let ns = self.slc.as_ref().map_or(0.0, |c| c.native_ns_per_byte);
        if !native || ns == 0.0 {
            return sent;
        }
        self.native_free = self.native_free.max(sent) + params::scaled(unit, ns);
        self.native_free
    }

    /// Sends a program's pages over the channel of `die` from `ready`, once the
    /// controller's encoder has passed them where it has a rate (`ecc.encode_rate`, one
    /// encoder for every channel); returns when sent.
    fn send_program(&mut self, die: usize, ready: u64, bytes: u64) -> u64 {
        let p = self.p;
        let ch = self.channel[die];
        let ready = match p.ecc.map(|e| e.encode_ns_per_byte) {
            Some(ns) if ns > 0.0 => {
                self.encoder
                    .reserve(self.now, ready, params::scaled(bytes, ns))
            }
            _ => ready,
        };
        let sent =
            self.chan[ch].reserve(self.now, ready, params::scaled(bytes, p.chan_ns_per_byte));
        self.stats.nand_bytes += bytes;
        sent
    }

    /// A program's time as its pulses make it: `time` × (1 ± up to `program_spread`).
    fn pulsed(&mut self, time: u64) -> u64 {
        match self.pulses.take() {
            Some(factor) => params::scaled(time, factor),
            None => time,
        }
    }

    /// Books `work` for the controller when a host program ends at `end`.
    fn completed_at(&mut self, end: u64, work: u64) {
        if work > 0 {
            self.completions.push(end, work);
        }
    }

    /// The controller's work for the programs that ended before `t`, done as they ended.
    pub(super) fn handle_completions_before(&mut self, t: u64) {
        while let Some(Timed {
            at: end,
            value: work,
        }) = self.completions.front()
        {
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
        while let Some(Timed { at: c, value: work }) = self.completions.front() {
            if c >= end {
                break;
            }
            self.completions.pop_front();
            end += work;
        }
        end
    }

    /// The reads before a write that covers part of a 4 KiB map unit on a controller that
    /// maps units: the unit at each end the write covers in part is read whole where it
    /// holds data, both at once; returns when both are read (`at` if neither holds data), or
    /// 0 where the write covers every unit it touches whole (nothing to merge: its pages go
    /// into the buffer as they come, not whole).
    fn read_unit_rest(&mut self, p: &Params, offset: u64, len: u64, w: Widened, at: u64) -> u64 {
        let unit = params::MAP_UNIT;
        let last = w.offset + w.len - unit;
        let ends = if last == w.offset {
            &[w.offset][..]
        } else {
            &[w.offset, last]
        };
        let mut ready = 0;
        for &u in ends {
            if u < offset || u + unit > offset + len {
                let lpn = u / p.page;
                let from = u - lpn * p.page;
                // A DRAM-less controller looks its map page up first, as for a read.
                let found = self.map_lookup(lpn, at);
                ready = ready.max(self.read_lpn(lpn, found, from, from + unit));
            }
        }
        ready
    }
}

#[cfg(test)]
mod tests {
    use super::Pulses;

    #[test]
    fn pulses_drawn_ahead_are_the_factors_drawn_when_wanted() {
        let spread = 0.2;
        let mut ahead = Pulses::new(crate::rng::stream(7, "program pulses"), spread);
        let mut direct = crate::rng::stream(7, "program pulses");
        for _ in 0..1000 {
            let u = crate::rng::fraction(&mut direct);
            let factor = 1.0 + spread * (2.0 * u - 1.0);
            assert_eq!(ahead.take().map(f64::to_bits), Some(factor.to_bits()));
        }
    }
}
