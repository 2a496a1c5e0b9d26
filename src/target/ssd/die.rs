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
    plane: [u64; crate::drive::MAX_PLANES as usize],
    /// When each plane's cache register is free (its page across the channel), where the
    /// die reads into cache registers; a program's data comes in through them.
    register: [u64; crate::drive::MAX_PLANES as usize],
    /// The last sense of a read where planes read together ([`Die::sense_together`]);
    /// any other operation started ends it.
    sense: Option<Sense>,
    /// Background work still to do, in order.
    bg: std::collections::VecDeque<Work>,
    /// Its total, ns.
    pub(super) bg_left: u64,
    /// When the background work (re)starts, if no host operation comes first.
    bg_from: u64,
    /// Program and erase suspension, where the NAND and controller have it.
    suspension: Option<Suspension>,
    /// The last host program booked, while nothing that takes the whole die follows it.
    programming: Option<Programming>,
    /// A read that suspended (or went ahead of) `programming`: from when the die is its.
    suspended_from: Option<u64>,
}

/// Program and erase suspension: a read for a die that is programming or erasing suspends
/// the operation at its next break point (the end of a program pulse and its verify, a
/// segment of an erase pulse), is sensed and transferred, and the operation resumes after
/// it, its remaining time unchanged but for `resume` (ramping the voltage again). An
/// operation allows `max` suspensions; reads after them wait for its end.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Suspension {
    /// Time between an operation's break points.
    pub(super) step: u64,
    /// What a resumption adds to the operation.
    pub(super) resume: u64,
    /// Suspensions an operation allows.
    pub(super) max: u32,
}

/// A host program booked on a die.
#[derive(Debug, Clone, Copy)]
struct Programming {
    /// When it starts, or restarts after the reads that suspended it.
    start: u64,
    end: u64,
    /// When the die's operations before it ended.
    before: u64,
    /// When the last read that suspended it (or went before it) is done with the die.
    held: u64,
    suspends: u32,
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
    /// Times the current step has been suspended.
    suspends: u32,
    /// A host program queued after a collection's erase ([`Die::background_after`]).
    program: bool,
}

impl Die {
    /// A die that suspends its operations for reads as `suspension` says (or never).
    pub(super) fn suspending(suspension: Option<Suspension>) -> Die {
        Die {
            suspension,
            ..Die::default()
        }
    }

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
    /// operations booked and the pages still leaving the cache registers, and after the
    /// background step running then. The caller books its end with [`Die::book`].
    pub(super) fn start(&mut self, ready: u64) -> u64 {
        self.sense = None;
        self.programming = None;
        let registers = self.register.iter().copied().max().unwrap_or(0);
        self.start_at(ready.max(self.busy).max(registers), false)
    }

    /// Where the die reads into cache registers: when a page on `plane` sensed at
    /// `sensed` moves to the plane's register (the die holds it until then), the
    /// register then held until the page has crossed the channel ([`Die::hold_register`]).
    pub(super) fn in_register(&self, plane: usize, sensed: u64) -> u64 {
        sensed.max(self.register[plane])
    }

    /// Holds `plane`'s cache register until its page has crossed the channel at `end`.
    pub(super) fn hold_register(&mut self, plane: usize, end: u64) {
        self.register[plane] = self.register[plane].max(end);
    }

    /// When a read ready at `ready` can start: as [`Die::start`], but where the die
    /// suspends its operations, at the next break point of the host program or background
    /// step under way (a program not started yet waits for the read). The caller books its
    /// end with [`Die::book`] (or [`Die::book_plane`]), which pushes the program back.
    pub(super) fn start_read(&mut self, ready: u64) -> u64 {
        self.sense = None;
        self.start_again(ready)
    }

    /// When a page read again (a read retry) can start: as [`Die::start_read`], but the
    /// sense the planes share goes on. The pages asked for before it started belong to it
    /// whatever happens to one of them after: a retry of one page is a sense of that page
    /// alone, which leaves the other planes' pages where that sense put them.
    pub(super) fn start_again(&mut self, ready: u64) -> u64 {
        if let Some(s) = self.suspend_program(ready) {
            return s;
        }
        self.start_at(ready.max(self.busy), true)
    }

    /// Where the last host program is the die's last whole-die operation and a read at
    /// `ready` may suspend it (or go before it): when the read starts.
    fn suspend_program(&mut self, ready: u64) -> Option<u64> {
        let sus = self.suspension?;
        let p = self.programming.as_mut()?;
        if self.whole != p.end || ready >= p.end || p.suspends >= sus.max {
            return None;
        }
        let s = if ready < p.start {
            ready.max(p.before)
        } else {
            p.suspends += 1;
            (ready + until_next(ready - p.start, sus.step)).min(p.end)
        }
        .max(p.held);
        self.suspended_from = Some(s);
        Some(s)
    }

    /// Pushes the suspended program back by a read that held the die until `end`.
    fn resume_program(&mut self, end: u64) {
        let (Some(from), Some(p), Some(sus)) = (
            self.suspended_from.take(),
            self.programming.as_mut(),
            self.suspension,
        ) else {
            return;
        };
        let resume = if from > p.start { sus.resume } else { 0 };
        let shift = end.saturating_sub(from.max(p.start)) + resume;
        p.start = p.start.max(end);
        p.end += shift;
        p.held = p.held.max(end);
        self.whole = self.whole.max(p.end);
        self.busy = self.busy.max(p.end);
    }

    /// Books a host program started by [`Die::start`] from `start` until `end`: reads may
    /// suspend it.
    pub(super) fn book_program(&mut self, start: u64, end: u64) {
        let before = self.whole;
        self.book(end);
        self.programming = Some(Programming {
            start,
            end,
            before,
            held: 0,
            suspends: 0,
        });
    }

    /// Where planes read together: when the page on `plane` of `wordline` (`None`: of any
    /// wordline, where the planes' page addresses may differ), asked for at `ready`, is
    /// sensed: by the last sense if that reads the same wordline (or any) and started
    /// with this read already asked for (a multi-plane read), and not before its own
    /// `t_read` from that sense's start, else by a sense of `t_read` of its own, started as
    /// [`Die::start`] starts one. The caller books the page's transfer with [`Die::book`].
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
            // The planes sense together until the slowest is done: this page's data is not
            // there before its own sense ends (a page asked for earlier in the same sense
            // keeps the end it was given).
            s.sensed = s.sensed.max(s.start + t_read);
            return s.sensed;
        }
        let start = self.start_read(ready);
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
        if let Some(s) = self.suspend_program(ready.max(self.plane[plane])) {
            return s;
        }
        self.start_at(ready.max(self.whole).max(self.plane[plane]), true)
    }

    /// Books a read started by [`Die::start_plane`] until `end`: the plane is busy until
    /// then, and the whole die for the operations that need it.
    pub(super) fn book_plane(&mut self, end: u64, plane: usize) {
        self.resume_program(end);
        self.plane[plane] = self.plane[plane].max(end);
        self.busy = self.busy.max(end);
        if self.bg_left > 0 {
            self.bg_from = self.bg_from.max(self.busy);
        }
    }

    /// When an operation that can start at `s` starts: after the background step running
    /// then, or, for a `read` where the die suspends, at that step's next break point (the
    /// rest of the step, and the resumption, after the read).
    fn start_at(&mut self, s: u64, read: bool) -> u64 {
        self.advance(s);
        if self.bg_left == 0 || self.bg_from > s {
            return s;
        }
        let suspension = self.suspension;
        let Some(w) = self.bg.front_mut() else {
            return s;
        };
        let wait = until_next(w.done, w.step).min(w.left);
        let sus = suspension.filter(|sus| read && w.suspends < sus.max);
        let to_break = sus.map_or(wait, |sus| until_next(w.done % w.step, sus.step).min(wait));
        let (suspends, program) = (w.suspends, w.program);
        w.left -= wait;
        w.done += wait;
        w.suspends = 0;
        if w.left == 0 {
            self.bg.pop_front();
        }
        self.bg_left -= wait;
        if let (Some(sus), true) = (sus, to_break < wait) {
            // The rest of the step, resumed after the read: a step of its own.
            let rest = wait - to_break + sus.resume;
            self.bg.push_front(Work {
                left: rest,
                step: rest,
                done: 0,
                suspends: suspends + 1,
                program,
            });
            self.bg_left += rest;
        }
        s + to_break
    }

    /// Books a host operation started by [`Die::start`] until `end`; background work
    /// resumes after it.
    pub(super) fn book(&mut self, end: u64) {
        self.resume_program(end);
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
                suspends: 0,
                program: false,
            });
            self.bg_left += work;
        }
        self.free_at()
    }

    /// Queues a host program of `work` ns (one step) in the background work at `now`,
    /// after the first stretch that ends at or after `after` (the erase of the block it
    /// goes into) and after every program queued before it (a block's pages are
    /// programmed in order); returns when it ends.
    pub(super) fn background_after(&mut self, now: u64, after: u64, work: u64) -> u64 {
        self.advance(now);
        debug_assert_eq!(self.bg.iter().map(|w| w.left).sum::<u64>(), self.bg_left);
        // The place is looked for from the back, where it mostly is (a collection's erase
        // queued last): from the end of all the work, a stretch is passed back over while
        // it is not a program and the one before it still ends at or after `after`.
        let mut end = self.bg_from.max(self.busy) + self.bg_left;
        let mut at = self.bg.len();
        while at > 1 && !self.bg[at - 1].program {
            let before = end - self.bg[at - 1].left;
            if before < after {
                break;
            }
            end = before;
            at -= 1;
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
                suspends: 0,
                program: true,
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

/// From `elapsed` ns into work made of `every`-ns pieces, the time to the end of the piece
/// under way (0 at a boundary).
fn until_next(elapsed: u64, every: u64) -> u64 {
    (every - elapsed % every) % every
}
