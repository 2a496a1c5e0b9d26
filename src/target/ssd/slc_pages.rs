//! Which logical pages are held in SLC mode, for a drive whose controller reads the cache's
//! pages so (`slc_cache.read`): a cell in SLC mode holds one bit, and a page of it is read
//! with one sense where a native page takes its type's.
//!
//! The cache itself is kept as amounts ([`super::slc::Slc`]); this keeps the pages: a page
//! written while the cache takes host data is in it until it is written again natively,
//! trimmed, or folded, the cache's oldest pages first. Garbage collection's copies leave a
//! page where it was, as the cache's amounts do.

use std::collections::VecDeque;

/// Consecutive logical pages written to the cache in one go.
#[derive(Debug, Clone, Copy)]
struct Run {
    first: u64,
    len: u64,
}

/// The logical pages in SLC mode, and the order they came in.
#[derive(Debug, Clone)]
pub(super) struct SlcPages {
    /// SLC-mode sense time.
    pub t_read: u64,
    /// A bit a logical page: set while it is in SLC mode.
    held: Vec<u64>,
    /// Pages in the order written to the cache (a page written there again appears again;
    /// a page no longer held is passed over).
    order: VecDeque<Run>,
    /// Pages held.
    live: u64,
}

impl SlcPages {
    /// None held, on a drive of `pages` logical pages.
    pub fn new(pages: u64, t_read: u64) -> SlcPages {
        SlcPages {
            t_read,
            held: vec![0; pages.div_ceil(64) as usize],
            order: VecDeque::new(),
            live: 0,
        }
    }

    /// Whether `lpn` is in SLC mode.
    pub fn holds(&self, lpn: u64) -> bool {
        self.held
            .get((lpn / 64) as usize)
            .is_some_and(|w| w & (1 << (lpn % 64)) != 0)
    }

    fn set(&mut self, lpn: u64, on: bool) {
        let Some(w) = self.held.get_mut((lpn / 64) as usize) else {
            return;
        };
        let bit = 1 << (lpn % 64);
        if (*w & bit != 0) != on {
            *w ^= bit;
            if on {
                self.live += 1;
            } else {
                self.live -= 1;
            }
        }
    }

    /// `lpn` written again: in SLC mode or in native cells.
    pub fn written(&mut self, lpn: u64, slc: bool) {
        self.set(lpn, slc);
        if slc {
            self.push(lpn);
            if self.order.len() > 2 * self.live as usize + 4096 {
                self.compact();
            }
        }
    }

    /// `lpn` at the end of the order.
    fn push(&mut self, lpn: u64) {
        match self.order.back_mut() {
            Some(r) if r.first + r.len == lpn => r.len += 1,
            _ => self.order.push_back(Run { first: lpn, len: 1 }),
        }
    }

    /// Pages `first..end` trimmed, a word of the bits at a time.
    pub fn discard(&mut self, first: u64, end: u64) {
        let end = end.min(self.held.len() as u64 * 64);
        let mut lpn = first;
        while lpn < end {
            let to = end.min((lpn / 64 + 1) * 64);
            let (lo, n) = (lpn % 64, to - lpn);
            let mask = if n == 64 {
                u64::MAX
            } else {
                ((1 << n) - 1) << lo
            };
            let w = &mut self.held[(lpn / 64) as usize];
            self.live -= (*w & mask).count_ones() as u64;
            *w &= !mask;
            lpn = to;
        }
    }

    /// The cache's oldest `pages` pages folded into native cells.
    pub fn fold(&mut self, mut pages: u64) {
        while pages > 0 {
            let Some(r) = self.order.front_mut() else {
                return;
            };
            let lpn = r.first;
            r.first += 1;
            r.len -= 1;
            if r.len == 0 {
                self.order.pop_front();
            }
            if self.holds(lpn) {
                self.set(lpn, false);
                pages -= 1;
            }
        }
    }

    /// Keeps each held page once, where it was written last, in order.
    fn compact(&mut self) {
        let mut seen = vec![0u64; self.held.len()];
        let mut kept: Vec<u64> = Vec::with_capacity(self.live as usize);
        for r in self.order.iter().rev() {
            for lpn in (r.first..r.first + r.len).rev() {
                let (w, bit) = ((lpn / 64) as usize, 1u64 << (lpn % 64));
                if self.holds(lpn) && seen[w] & bit == 0 {
                    seen[w] |= bit;
                    kept.push(lpn);
                }
            }
        }
        self.order.clear();
        for lpn in kept.into_iter().rev() {
            self.push(lpn);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_oldest_pages_fold_first_and_a_native_write_leaves_the_cache() {
        let mut c = SlcPages::new(1000, 30);
        for lpn in 0..10 {
            c.written(lpn, true);
        }
        c.written(3, false);
        c.fold(4);
        // 0, 1, 2 and 4 folded (3 was written natively), 5..10 still held.
        assert!((0..5).all(|lpn| !c.holds(lpn)));
        assert!((5..10).all(|lpn| c.holds(lpn)));
        c.discard(8, 20);
        assert_eq!(c.live, 3);
        c.fold(100);
        assert_eq!(c.live, 0);
    }

    #[test]
    fn pages_written_again_keep_their_last_place_in_the_order() {
        let mut c = SlcPages::new(1 << 16, 30);
        // 200,000 writes over 100 pages: the order is compacted to a run a page at most.
        for i in 0..200_000u64 {
            c.written(i * 37 % 100, true);
        }
        assert!(c.order.len() <= 2 * c.live as usize + 4096);
        assert_eq!(c.live, 100);
        // Once compacted, each page is where it was written last: 99 × 37 % 100 = 63 was
        // written last, so it folds last.
        c.compact();
        assert_eq!(c.order.len(), 100);
        c.fold(99);
        assert!(c.holds(63) && c.live == 1);
    }
}
