//! A read's path: the map, the die's sense (its page type and spread), the channel, the
//! decoder, bit errors and retries, the link back to the host; read-ahead of a stream.

use crate::drive::PlaneReads;
use crate::io::IoRequest;

use super::ecc::{bit_errors, Ecc};
use super::link::Piece;
use super::page_ftl::{self, Loc};
use super::params;
use super::{Ftl, Pages, SsdSim, Stored};

/// Reads continuing a sequential stream after which the controller reads ahead of it.
const READ_AHEAD_AFTER: u32 = 2;

impl SsdSim {
    /// A read from `at`, when the controller has the command: returns when its last byte is
    /// back over the link, or `None` where its data waits for a link that sends what is
    /// ready first.
    pub(super) fn serve_read(&mut self, req: &IoRequest, span: Pages, at: u64) -> Option<u64> {
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
        let mut pieces = self.sends_ready_first.then(|| self.link.pieces());
        let link_ns = |b: u64| params::scaled(b, link_ns_per_byte);
        self.read_run = if req.offset == self.read_end {
            self.read_run.saturating_add(1)
        } else {
            0
        };
        self.read_end = req.offset + len;
        for lpn in span.first..=span.last {
            let ahead = self.read_ahead_of(lpn);
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
            // Times from the bytes sent so far, so rounding does not add up; a SATA
            // link's frames with them.
            let frames = self.p.read_frames(upto) - self.p.read_frames(bytes_sent);
            let len = link_ns(upto) - link_ns(bytes_sent) + frames;
            match &mut pieces {
                Some(pieces) => pieces.push(Piece { ready, len }),
                None => sent = self.link_in.reserve(self.now, sent.max(ready), len),
            }
            bytes_sent = upto;
        }
        let frame = self.p.frame;
        match &mut pieces {
            // Its completion, a frame of its own as the data ends (booked: in the first
            // gap after it).
            Some(pieces) if frame > 0 => pieces.push(Piece {
                ready: 0,
                len: frame,
            }),
            None if frame > 0 => sent = self.link_in.reserve(self.now, sent, frame),
            _ => {}
        }
        // A stream of three reads in a row is read ahead (what was read ahead before
        // stays until then, for a stream that other reads interrupted).
        if self.read_run >= READ_AHEAD_AFTER {
            self.read_ahead(span.first, span.count, at);
        }
        match pieces {
            Some(pieces) => {
                self.link.wait(req.seq, self.tag, pieces);
                None
            }
            None => Some(sent),
        }
    }

    /// When logical page `lpn` is across its channel where the window read it whole.
    fn read_ahead_of(&self, lpn: u64) -> Option<u64> {
        let i = lpn.checked_sub(self.ahead_first)?;
        self.ahead.get(usize::try_from(i).ok()?).copied().flatten()
    }

    /// Reads ahead of a sequential stream whose request read the `pages` logical pages
    /// from `from`: as many pages again after them (those that hold data) are read from
    /// `at`, behind the request's own, so that the next request of the stream finds them
    /// read and waits only for the link. The window keeps what it read of the request's
    /// pages and after, and reads no page it holds again: where requests are smaller than
    /// a page, each page is sensed once for the requests that read its parts.
    fn read_ahead(&mut self, from: u64, pages: u64, at: u64) {
        let first = from + pages;
        let end = (first + pages).min(self.info.capacity.div_ceil(self.p.page));
        let mut next = std::mem::take(&mut self.ahead_next);
        next.clear();
        for lpn in from..end {
            // The request's own pages not held stay so: only its part of them was read.
            let held = self
                .read_ahead_of(lpn)
                .or_else(|| (lpn >= first).then(|| self.read_lpn(lpn, at, 0, self.p.page)));
            next.push(held);
        }
        self.ahead_next = std::mem::replace(&mut self.ahead, next);
        self.ahead_first = from;
    }

    /// When a DRAM-less controller knows where logical page `lpn` is, looking from `at`: at
    /// once if its map page is held (or the page holds no data), else once the map page is
    /// read from NAND (map pages spread over the dies).
    pub(super) fn map_lookup(&mut self, lpn: u64, at: u64) -> u64 {
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
                    slc: false,
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
    pub(super) fn read_lpn(&mut self, lpn: u64, at: u64, from: u64, to: u64) -> u64 {
        if self.buffer.is_held(lpn) {
            // Still in the buffer.
            return at;
        }
        if let Ftl::Page(f) = &self.ftl {
            if let Some(pieces) = f.pieces(lpn, from, to) {
                let mut ready = at;
                for loc in pieces {
                    let stored = Stored {
                        slc: self.in_slc(lpn),
                        ..self.stored_at(loc)
                    };
                    self.stats.page_reads += 1;
                    ready = ready.max(self.read_page(stored, at, stored.bytes));
                }
                return ready;
            }
        }
        match self.locate(lpn) {
            Some(s) => {
                let part = (s.bytes * (to - from)).div_ceil(self.p.page).max(1);
                self.stats.page_reads += 1;
                self.read_page(s, at, part)
            }
            None => at,
        }
    }

    /// Reads `bytes` of a page (an upper page senses longer where pages have types);
    /// returns when they are across the channel, decoded and corrected (read again first if the
    /// decode failed: a read retry). Where planes read apart, only the page's plane is
    /// held, else the whole die.
    pub(super) fn read_page(&mut self, page: Stored, ready: u64, bytes: u64) -> u64 {
        let p = self.p;
        let (d, ch) = (page.die, self.channel[page.die]);
        let kind_time = match &self.slc_pages {
            Some(c) if page.slc => c.t_read,
            _ => p.t_read_types[page.kind],
        };
        let independent = p.plane_reads == Some(PlaneReads::Independent);
        let mut at = ready;
        let mut first = true;
        loop {
            let t_read = self.sensed(kind_time);
            let p = self.p;
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
            let moving = params::scaled(bytes, p.chan_ns_per_byte);
            // With cache reads the page leaves the die for its plane's register, and the
            // die is free to sense again while it crosses the channel.
            let moved = if p.cache_reads {
                self.die[d].in_register(page.plane, sensed)
            } else {
                sensed
            };
            let end = self.chan[ch].reserve(self.now, moved, moving);
            let held = if p.cache_reads {
                self.die[d].hold_register(page.plane, end);
                moved
            } else {
                end
            };
            if independent {
                self.die[d].book_plane(held, page.plane);
            } else {
                self.die[d].book(held);
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

    /// A read's sense time as it varies from read to read: `time` × the drive's spread.
    fn sensed(&mut self, time: u64) -> u64 {
        let Some(r) = self.p.read_spread else {
            return time;
        };
        params::scaled(time, r.factor(crate::rng::fraction(&mut self.senses)))
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
        let decode = |b: u64| params::scaled(b, ecc.decode_ns_per_byte);
        let codeword = ecc.codeword.min(bytes);
        let decoding = decode(bytes);
        // From the first codeword's arrival; done no sooner than a codeword after the last.
        let arrived = start + params::scaled(codeword, self.p.chan_ns_per_byte);
        let ready = arrived.max((end + decode(codeword)).saturating_sub(decoding));
        self.decoder.reserve(self.now, ready, decoding)
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
        let p = self.p;
        Stored {
            die: (loc.block as u64 / p.blocks_per_die) as usize,
            bytes: loc.bytes as u64,
            kind: (loc.entry() as u64 / p.planes % p.page_types) as usize,
            plane: (loc.entry() as u64 % p.planes) as usize,
            wordline: loc.block as u64 * p.pages_per_block + loc.entry() as u64 / p.planes,
            slc: false,
        }
    }

    /// Whether logical page `lpn` is in SLC mode, where that reads faster.
    fn in_slc(&self, lpn: u64) -> bool {
        self.slc_pages.as_ref().is_some_and(|c| c.holds(lpn))
    }

    /// Where a logical page's data is, if it holds any: its die, the bytes stored and its
    /// page's type (a page's wordline is its place in its block on each plane; lower and
    /// upper alternate).
    pub(super) fn locate(&self, lpn: u64) -> Option<Stored> {
        let p = self.p;
        match &self.ftl {
            // A page whose units are stored apart is read by its pieces (`read_lpn`).
            Ftl::Page(f) => Some(Stored {
                slc: self.in_slc(lpn),
                ..self.stored_at(f.location(lpn)?)
            }),
            // A page in the cache is read from there; one never written is not read.
            Ftl::Block(f) if f.cache.contains(&lpn) || !f.holds(lpn) => None,
            Ftl::Block(_) => Some(Stored {
                die: (lpn % p.dies as u64) as usize,
                bytes: p.page,
                kind: (lpn / p.dies as u64 % p.page_types) as usize,
                plane: 0,
                wordline: lpn,
                slc: false,
            }),
        }
    }
}
