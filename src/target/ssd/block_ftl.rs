//! The block-mapped FTL (JMicron JMF602): log blocks for recently written logical blocks
//! and a small cache in front of them.

use std::collections::BTreeMap;

use super::{Ftl, SsdSim};

/// The block-mapped FTL: a log block per recently written logical block.
pub(super) struct BlockFtl {
    /// Log blocks: logical block → (pages written, written in order from page 0, last use).
    pub(super) logs: BTreeMap<u64, (u64, bool, u64)>,
    uses: u64,
    /// Logical pages held in the controller's cache, in arrival order, written out all
    /// together when a write finds it full.
    pub(super) cache: Vec<u64>,
    /// One bit per logical page: whether it holds data (a merge copies only those).
    held: Vec<u64>,
}

impl BlockFtl {
    /// A fresh FTL for `lpns` logical pages: no log blocks, nothing cached or held.
    pub(super) fn new(lpns: u64) -> BlockFtl {
        BlockFtl {
            logs: BTreeMap::new(),
            uses: 0,
            cache: Vec::new(),
            held: vec![0; lpns.div_ceil(64) as usize],
        }
    }

    pub(super) fn holds(&self, lpn: u64) -> bool {
        self.held
            .get((lpn / 64) as usize)
            .is_some_and(|w| w >> (lpn % 64) & 1 == 1)
    }

    pub(super) fn set_held(&mut self, lpn: u64, on: bool) {
        if let Some(w) = self.held.get_mut((lpn / 64) as usize) {
            if on {
                *w |= 1 << (lpn % 64);
            } else {
                *w &= !(1 << (lpn % 64));
            }
        }
    }
}

impl SsdSim {
    /// Block FTL: writes every page held in the cache through the log blocks, in arrival
    /// order, from `at`; returns when the last is on NAND (`at` if the cache is empty).
    pub(super) fn write_out_cache(&mut self, at: u64) -> u64 {
        let cached = match &mut self.ftl {
            Ftl::Block(f) => std::mem::take(&mut f.cache),
            Ftl::Page(_) => return at,
        };
        let mut done = at;
        for &lpn in &cached {
            done = done.max(self.log_write(lpn, at));
        }
        if let Ftl::Block(f) = &mut self.ftl {
            // The emptied vector is kept for its capacity.
            f.cache = cached;
            f.cache.clear();
        }
        done
    }

    /// Block FTL: writes logical page `lpn` through its logical block's log block, merging
    /// a log block first when none is free or its own is full; returns when it is on NAND.
    /// A logical block is striped over every die (page `i` on die `i % dies`), as a
    /// multi-channel controller writes it, so a merge keeps every die busy at once.
    pub(super) fn log_write(&mut self, lpn: u64, at: u64) -> u64 {
        let p = self.p;
        let Ftl::Block(f) = &mut self.ftl else {
            return at;
        };
        let span = p.pages_per_block * p.dies as u64;
        let lbn = lpn / span;
        let die = (lpn % p.dies as u64) as usize;
        f.uses += 1;
        let uses = f.uses;
        let mut merge: Vec<(u64, bool)> = Vec::new();
        match f.logs.get(&lbn).copied() {
            Some((n, _, _)) if n >= span => {
                let (_, seq, _) = f.logs.remove(&lbn).unwrap_or((0, false, 0));
                merge.push((lbn, seq));
            }
            Some(_) => {}
            None if f.logs.len() >= p.log_blocks => {
                // The least recently used log block is merged to free it.
                if let Some((&victim, &(_, seq, _))) =
                    f.logs.iter().min_by_key(|(k, (_, _, used))| (*used, **k))
                {
                    f.logs.remove(&victim);
                    merge.push((victim, seq));
                }
            }
            None => {}
        }
        let e = f.logs.entry(lbn).or_insert((0, lpn % span == 0, uses));
        e.1 = e.1 && lpn % span == e.0;
        e.0 += 1;
        e.2 = uses;
        // Merges run on the controller, one at a time: everything waits for them. Each die
        // copies the pages of its block that hold data (read, program) into a new block and
        // erases the old data and log blocks, all dies at once; a merge ends when the die
        // with the most to copy is done.
        let mut t = at.max(self.ctrl);
        let dies = p.dies as u64;
        let mut copies: Vec<u64> = Vec::new();
        for (victim, sequential) in merge {
            let start = self.die.iter().fold(t, |a, d| a.max(d.free_at()));
            self.stats.merges += 1;
            if sequential {
                // A log written in order replaces its data block: erase the old one.
                t = start + p.t_erase;
                self.die.iter_mut().for_each(|d| d.book(t));
                self.stats.erases += dies;
                continue;
            }
            copies.clear();
            copies.resize(p.dies, 0);
            for i in 0..span {
                if f.holds(victim * span + i) {
                    copies[(i % dies) as usize] += 1;
                }
            }
            for (d, &n) in self.die.iter_mut().zip(&copies) {
                d.book(start + n * (p.t_read + p.t_prog) + 2 * p.t_erase);
            }
            t = self.die.iter().fold(start, |a, d| a.max(d.busy));
            let copied: u64 = copies.iter().sum();
            self.stats.erases += 2 * dies;
            self.stats.nand_bytes += copied * p.page;
            self.stats.gc_pages += copied;
        }
        f.set_held(lpn, true);
        self.ctrl = t;
        // Block-mapped drives are the classic MLC ones: a page a program.
        self.program(die, t, p.page * p.planes)
    }
}
