//! A NAND die's time: host operations and background collection between them.

/// One NAND die's time: the host operations booked on it, and the background garbage
/// collection it does between them. Collection runs whenever the die has no host operation,
/// a step at a time (a page moved on each plane, or an erase); a host operation that finds
/// a step running waits for that step only, and the collection resumes after it.
#[derive(Debug, Clone, Default)]
pub(super) struct Die {
    /// When the host operations booked so far end.
    pub(super) busy: u64,
    /// When the host operations that take the whole die (programs, erases, reads where
    /// planes do not read apart) end.
    whole: u64,
    /// When each plane's own read ends (planes that read apart).
    plane: [u64; 4],
    /// The last sense of a read where planes read together ([`Die::sense_together`]);
    /// any other operation started ends it.
    sense: Option<Sense>,
    /// Background work still to do, in order.
    bg: std::collections::VecDeque<Work>,
    /// Its total, ns.
    pub(super) bg_left: u64,
    /// When the background work (re)starts, if no host operation comes first.
    bg_from: u64,
}

/// A sense of a wordline's pages (a multi-plane read).
#[derive(Debug, Clone, Copy)]
struct Sense {
    /// The wordline it reads (`None`: a page on each plane, any).
    wordline: Option<u64>,
    start: u64,
    sensed: u64,
    /// The planes whose pages it reads, a bit each.
    planes: u8,
}

/// A stretch of background work made of equal steps that cannot be interrupted.
#[derive(Debug, Clone, Copy)]
pub(super) struct Work {
    left: u64,
    step: u64,
    /// Done so far (where the current step is).
    done: u64,
}

impl Die {
    /// When the die is free of host operations and background work alike.
    pub(super) fn free_at(&self) -> u64 {
        if self.bg_left == 0 {
            self.busy
        } else {
            self.bg_from.max(self.busy) + self.bg_left
        }
    }

    /// Whether background work is still under way at `now`.
    pub(super) fn collecting(&mut self, now: u64) -> bool {
        self.advance(now);
        self.bg_left > 0
    }

    /// Drops the background work done by `now`.
    pub(super) fn advance(&mut self, now: u64) {
        let resumed = self.bg_from.max(self.busy);
        if self.bg_left == 0 || now <= resumed {
            return;
        }
        let mut ran = now - resumed;
        while let Some(w) = self.bg.front_mut() {
            if ran < w.left {
                w.left -= ran;
                w.done += ran;
                self.bg_left -= ran;
                break;
            }
            ran -= w.left;
            self.bg_left -= w.left;
            self.bg.pop_front();
        }
        self.bg_from = now;
    }

    /// When a host operation whose data is ready at `ready` can start: after the host
    /// operations booked, and after the background step running then. The caller books
    /// its end with [`Die::book`].
    pub(super) fn start(&mut self, ready: u64) -> u64 {
        self.sense = None;
        self.start_at(ready.max(self.busy))
    }

    /// Where planes read together: when the page on `plane` of `wordline` (`None`: of any
    /// wordline, where the planes' page addresses may differ), asked for at `ready`, is
    /// sensed: by the last sense if that reads the same wordline (or any) and started
    /// with this read already asked for (a multi-plane read), else by a sense of `t_read`
    /// of its own, started as [`Die::start`] starts one. The caller books the page's
    /// transfer with [`Die::book`].
    pub(super) fn sense_together(
        &mut self,
        ready: u64,
        wordline: Option<u64>,
        plane: usize,
        t_read: u64,
    ) -> u64 {
        let bit = 1 << plane;
        if let Some(s) = self
            .sense
            .as_mut()
            .filter(|s| s.wordline == wordline && ready <= s.start && s.planes & bit == 0)
        {
            s.planes |= bit;
            return s.sensed;
        }
        let start = self.start(ready);
        let sensed = start + t_read;
        self.sense = Some(Sense {
            wordline,
            start,
            sensed,
            planes: bit,
        });
        sensed
    }

    /// When a read of a page on `plane` can start, where planes read apart: after the
    /// operations that take the whole die and that plane's last read, and after the
    /// background step running then. The caller books its end with [`Die::book_plane`].
    pub(super) fn start_plane(&mut self, ready: u64, plane: usize) -> u64 {
        self.start_at(ready.max(self.whole).max(self.plane[plane]))
    }

    /// Books a read started by [`Die::start_plane`] until `end`: the plane is busy until
    /// then, and the whole die for the operations that need it.
    pub(super) fn book_plane(&mut self, end: u64, plane: usize) {
        self.plane[plane] = self.plane[plane].max(end);
        self.busy = self.busy.max(end);
        if self.bg_left > 0 {
            self.bg_from = self.bg_from.max(self.busy);
        }
    }

    fn start_at(&mut self, s: u64) -> u64 {
        self.advance(s);
        if self.bg_left == 0 || self.bg_from > s {
            return s;
        }
        let Some(w) = self.bg.front_mut() else {
            return s;
        };
        let wait = ((w.step - w.done % w.step) % w.step).min(w.left);
        w.left -= wait;
        w.done += wait;
        self.bg_left -= wait;
        if w.left == 0 {
            self.bg.pop_front();
        }
        s + wait
    }

    /// Books a host operation started by [`Die::start`] until `end`; background work
    /// resumes after it.
    pub(super) fn book(&mut self, end: u64) {
        self.busy = self.busy.max(end);
        self.whole = self.whole.max(end);
        if self.bg_left > 0 {
            self.bg_from = self.bg_from.max(self.busy);
        }
    }

    /// Queues background work from `at`: `work` ns in steps of `step` ns. Returns when all
    /// the background work would end.
    pub(super) fn background(&mut self, at: u64, work: u64, step: u64) -> u64 {
        self.advance(at);
        if work > 0 {
            if self.bg_left == 0 {
                self.bg_from = at;
            }
            self.bg.push_back(Work {
                left: work,
                step: step.max(1),
                done: 0,
            });
            self.bg_left += work;
        }
        self.free_at()
    }

    /// Queues `work` ns (one step) in the background work at `now`, after the stretch that
    /// ends at or after `after` (a program into the block that stretch erases); returns
    /// when it ends.
    pub(super) fn background_after(&mut self, now: u64, after: u64, work: u64) -> u64 {
        self.advance(now);
        let mut end = self.bg_from.max(self.busy);
        let mut at = self.bg.len();
        for (i, w) in self.bg.iter().enumerate() {
            end += w.left;
            if end >= after {
                at = i + 1;
                break;
            }
        }
        if self.bg_left == 0 {
            self.bg_from = after;
            end = after.max(self.busy);
        }
        self.bg.insert(
            at,
            Work {
                left: work,
                step: work.max(1),
                done: 0,
            },
        );
        self.bg_left += work;
        end + work
    }

    /// Reserves the die for `work` ns from `at`, after everything queued on it (work host
    /// operations must wait for); returns when it ends.
    pub(super) fn block(&mut self, at: u64, work: u64) -> u64 {
        self.busy = at.max(self.free_at()) + work;
        self.whole = self.busy;
        self.bg.clear();
        self.bg_left = 0;
        self.busy
    }
}
