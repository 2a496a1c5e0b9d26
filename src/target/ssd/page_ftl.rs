//! The page-mapped FTL: logical pages appended to the open block of a die, a map from
//! each logical page to where it is stored, and greedy or FIFO garbage collection; stale
//! data tracked page by page, or by write-combination vector ([`Vectors`]).

use super::die::Die;
use super::params::MAP_UNIT;
use super::{Params, SsdStats};
use crate::drive::GcPolicy;
use crate::error::{Error, Result};

/// Free blocks above the collection watermark within which a die collects: in the
/// background a victim whenever it has none under way, on the controller (`gc:
/// foreground`) one after each write it takes; at the watermark it collects until above.
const BACKGROUND_GC_BLOCKS: usize = 2;

/// The page-mapped FTL: logical pages appended to the open block of a die.
pub(super) struct PageFtl {
    /// Logical page → where it is stored, [`Loc`] packed; 0 when unmapped.
    pub(super) map: Vec<u64>,
    pub(super) blocks: Vec<Block>,
    /// Free blocks of each die: taken from the back, erased ones returned to the front.
    free: Vec<std::collections::VecDeque<u32>>,
    pub(super) open: Vec<Option<u32>>,
    /// Closed blocks of each die.
    pub(super) closed: Vec<Victims>,
    /// The die whose page is being filled.
    pub(super) die: usize,
    /// Stale data tracked by write-combination vector, where the firmware does so
    /// (`vector_pages`); `None`: page by page.
    vectors: Option<Vectors>,
    /// The map's units a page ([`Params::map_units`]).
    units: u64,
    /// The unit words of the logical pages whose units are stored apart.
    splits: Box<Splits>,
}

/// The map words of the logical pages whose units are stored apart (a write covered some
/// of them), [`PageFtl::units`] a page: each unit's [`Loc`], its bytes the unit's share of
/// what its entry stored. Boxed: most drives never split a page.
#[derive(Debug, Default)]
struct Splits {
    words: Vec<u64>,
    /// Split pages' words given back (a page written whole again, or trimmed).
    free: Vec<usize>,
}

/// What a logical page's map word says: nothing stored, stored whole at one place, or its
/// units stored apart (the word then holds no bytes, and points at them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Mapping {
    Unmapped,
    Whole(Loc),
    Split(usize),
}

impl Mapping {
    fn of(word: u64) -> Mapping {
        match Loc::unpack(word) {
            None => Mapping::Unmapped,
            Some(loc) if loc.bytes == 0 => Mapping::Split(word as usize - 1),
            Some(loc) => Mapping::Whole(loc),
        }
    }
}

/// Some of a logical page's map units: the first and how many.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Units {
    pub(super) first: u64,
    pub(super) count: u64,
}

/// Unit `j`'s share of `total` bytes spread over `k` units (the shares add up to `total`).
fn share(total: u64, j: u64, k: u64) -> u64 {
    total * (j + 1) / k - total * j / k
}

/// A vector id for an entry that belongs to none (the stale rest of an aged block).
const NO_VECTOR: u32 = u32::MAX;

/// Write-combination vectors: a firmware that records the host pages it combined into one
/// write as one vector of its remap table, and tracks stale data by vector. A page
/// overwritten (or trimmed) while other pages of its vector still hold data stays counted
/// as valid: garbage collection copies it with the rest, and it is given back only when
/// the last page of its vector goes stale. Small random writes over data that was written
/// together then use up the spare area a page at a time (PC Perspective's "sub-block
/// fragmentation" of the original X25-M firmware); writing a vector's pages over again,
/// as a sequential pass does, gives its space back.
#[derive(Debug, Clone)]
struct Vectors {
    /// Host pages combined into a vector.
    pages: u32,
    /// The vector host pages are being added to, and how many it holds.
    current: u32,
    filled: u32,
    /// Per vector: how many of its pages still hold data.
    live: Vec<u32>,
    /// Per vector: where its stale copies that are kept are, (block, entry).
    kept: Vec<Vec<(u32, u32)>>,
    /// Per block: the vector of each of its entries. Kept here, not in [`Block`], so that a
    /// block stays one cache line for the drives without vectors.
    of_entry: Vec<Vec<u32>>,
    /// Per block: of its valid bytes, the stale copies kept by their vectors.
    kept_bytes: Vec<u64>,
}

impl Vectors {
    fn new(pages: u32, blocks: usize) -> Vectors {
        Vectors {
            pages,
            current: 0,
            filled: 0,
            live: vec![0],
            kept: vec![Vec::new()],
            of_entry: vec![Vec::new(); blocks],
            kept_bytes: vec![0; blocks],
        }
    }

    /// The vector the next host page joins (a new one every `pages` pages).
    fn next(&mut self) -> u32 {
        if self.filled == self.pages {
            self.current = self.live.len() as u32;
            self.live.push(0);
            self.kept.push(Vec::new());
            self.filled = 0;
        }
        self.filled += 1;
        self.live[self.current as usize] += 1;
        self.current
    }
}

/// A physical block of the page-mapped FTL.
#[derive(Debug, Clone, Default)]
pub(super) struct Block {
    /// What was appended, in order: (logical page, stored bytes).
    entries: Vec<(u32, u32)>,
    pub(super) valid: u64,
    used: u64,
    pub(super) closed: bool,
    /// When its last erase ends: nothing is programmed into it before then.
    pub(super) erased: u64,
    /// Where it is among its die's victims (greedy): bucket and index.
    bucket: u32,
    pub(super) pos: u32,
    /// Its die (kept through its erases).
    pub(super) die: u32,
}

/// The closed blocks of one die, as garbage-collection candidates: in buckets by how much
/// valid data they hold (greedy picks from the emptiest), or in the order they were closed
/// (FIFO). Moving a block between buckets is O(1), which keeps invalidation cheap.
#[derive(Debug, Clone, Default)]
pub(super) struct Victims {
    pub(super) buckets: Vec<Vec<u32>>,
    fifo: std::collections::VecDeque<u32>,
}

impl Victims {
    /// How many closed blocks there are.
    fn len(&self) -> usize {
        self.fifo.len() + self.buckets.iter().map(Vec::len).sum::<usize>()
    }
}

/// Where a logical page is stored: its block, its entry there and its stored bytes, packed
/// in the map's one word so that overwriting a page touches no other memory to find them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Loc {
    pub(super) block: u32,
    entry: u32,
    pub(super) bytes: u32,
}

impl Loc {
    /// Its entry in the block: the block's pages in the order they were written.
    pub(super) fn entry(&self) -> u32 {
        self.entry
    }

    const ENTRY_BITS: u32 = 23;
    pub(super) const BLOCK_BITS: u32 = 24;
    const BYTES_BITS: u32 = 64 - Self::ENTRY_BITS - Self::BLOCK_BITS;

    /// The packed word; never 0, as a stored page holds at least a byte.
    pub(super) fn pack(self) -> u64 {
        ((self.bytes as u64) << (Self::ENTRY_BITS + Self::BLOCK_BITS))
            | ((self.block as u64) << Self::ENTRY_BITS)
            | self.entry as u64
    }

    /// The location in a map word, `None` for 0 (unmapped).
    pub(super) fn unpack(w: u64) -> Option<Loc> {
        (w != 0).then_some(Loc {
            block: ((w >> Self::ENTRY_BITS) & ((1 << Self::BLOCK_BITS) - 1)) as u32,
            entry: (w & ((1 << Self::ENTRY_BITS) - 1)) as u32,
            bytes: (w >> (Self::ENTRY_BITS + Self::BLOCK_BITS)) as u32,
        })
    }
}

/// A zeroed vector that asks the kernel for transparent huge pages: the map of a page FTL
/// is hundreds of MB read at random, and with 4 KiB pages nearly every lookup would miss
/// the TLB as well as the cache. `None` if the memory cannot be had (a drive file whose
/// map is larger than the machine), where `vec!` would abort the process.
fn huge_zeroed(n: usize) -> Option<Vec<u64>> {
    let layout = std::alloc::Layout::array::<u64>(n).ok()?;
    let v = if layout.size() == 0 {
        Vec::new()
    } else {
        // SAFETY: the layout's size is not zero; a non-null pointer from `alloc_zeroed` is
        // an allocation of the global allocator with exactly this layout (n u64s, their
        // alignment), every byte zero, which is a valid u64: the vector owns it, with
        // length and capacity n.
        unsafe {
            let ptr = std::alloc::alloc_zeroed(layout).cast::<u64>();
            if ptr.is_null() {
                return None;
            }
            Vec::from_raw_parts(ptr, n, n)
        }
    };
    advise_huge(&v);
    Some(v)
}

/// `n` copies of `value` in memory backed by transparent huge pages where the kernel has
/// them (the blocks of a page FTL, tens of MB touched at random as pages go stale): the
/// room is asked for before any of it is written, so the pages the writes fault in are
/// huge ones. `None` if the memory cannot be had.
fn huge_filled<T: Clone>(n: usize, value: T) -> Option<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).ok()?;
    advise_huge(&v);
    v.resize(n, value);
    Some(v)
}

/// Asks the kernel to back the whole 2 MiB pages of `v`'s allocation (its capacity) with
/// transparent huge pages.
fn advise_huge<T>(v: &Vec<T>) {
    let (start, len) = (v.as_ptr() as usize, v.capacity() * std::mem::size_of::<T>());
    const HUGE: usize = 2 << 20;
    let first = start.next_multiple_of(HUGE);
    let end = (start + len) / HUGE * HUGE;
    if end > first {
        // SAFETY: the range lies inside the vector's allocation, which lives as long as the
        // vector; MADV_HUGEPAGE changes only how it is backed, never its contents. A kernel
        // without transparent huge pages refuses it, which costs nothing but speed.
        unsafe {
            libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE);
        }
    }
}

/// Asks the CPU to bring `v`'s cache line in, without waiting for it.
#[inline]
fn prefetch_line<T>(v: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads nothing architecturally and cannot fault; the address is a
    // live reference.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
            (v as *const T).cast::<i8>(),
        );
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = v;
}

/// The logical pages `0..space` in a fixed scrambled order (i → i × step mod space, a
/// bijection as step is coprime to space): the order a used drive's pages are dealt out in.
pub(super) fn scrambled(space: u64) -> impl Iterator<Item = u64> {
    let gcd = |mut a: u64, mut b: u64| {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a
    };
    let space = space.max(1);
    let mut step = ((space as f64 * 0.618_033_988_75) as u64).max(1);
    while gcd(step, space) != 1 {
        step += 1;
    }
    (0..space).map(move |i| ((i as u128 * step as u128) % space as u128) as u64)
}

/// The greedy bucket of a block holding `valid` bytes: its valid pages, rounded down (a
/// shift for the usual power-of-two page: this runs on every page overwritten).
pub(super) fn bucket_of(valid: u64, p: &Params) -> usize {
    p.page_of(valid) as usize
}

impl PageFtl {
    /// A fresh FTL for `lpns` logical pages: every block free, nothing mapped; `None` if
    /// its map does not fit in memory.
    pub(super) fn new(p: &Params, lpns: u64) -> Option<PageFtl> {
        let bpd = p.blocks_per_die as u32;
        Some(PageFtl {
            map: huge_zeroed(lpns as usize)?,
            blocks: {
                let mut blocks = huge_filled(p.blocks_per_die as usize * p.dies, Block::default())?;
                for (k, b) in blocks.iter_mut().enumerate() {
                    b.die = (k as u64 / p.blocks_per_die) as u32;
                }
                blocks
            },
            // Popped from the end: lowest-numbered blocks first.
            free: (0..p.dies as u32)
                .map(|d| (d * bpd..(d + 1) * bpd).rev().collect())
                .collect(),
            open: vec![None; p.dies],
            closed: vec![
                Victims {
                    buckets: vec![Vec::new(); p.pages_per_block as usize + 1],
                    fifo: Default::default(),
                };
                p.dies
            ],
            die: 0,
            vectors: (p.vector_pages > 1)
                .then(|| Vectors::new(p.vector_pages, p.blocks_per_die as usize * p.dies)),
            units: p.map_units.max(1),
            splits: Box::default(),
        })
    }

    /// Where a logical page is stored, if it holds data stored whole at one place.
    #[inline]
    pub(super) fn location(&self, lpn: u64) -> Option<Loc> {
        match self.mapping(lpn) {
            Mapping::Whole(loc) => Some(loc),
            _ => None,
        }
    }

    /// What logical page `lpn`'s map word says.
    #[inline]
    pub(super) fn mapping(&self, lpn: u64) -> Mapping {
        Mapping::of(self.map.get(lpn as usize).copied().unwrap_or(0))
    }

    /// The bytes logical page `lpn` holds, stored whole or unit by unit.
    #[cfg(test)]
    pub(super) fn held_bytes(&self, lpn: u64) -> u64 {
        match self.mapping(lpn) {
            Mapping::Unmapped => 0,
            Mapping::Whole(loc) => loc.bytes as u64,
            Mapping::Split(s) => self.unit_words(s).iter().map(|&w| unit_bytes(w)).sum(),
        }
    }

    /// Where the bytes `from..to` of a split logical page are: a [`Loc`] for each place
    /// that holds some of them, its bytes those it stores of the range; `None` for a page
    /// stored whole or not at all. Units of one entry, or of entries appended one after
    /// the other to a block within a page's bytes (a stream of small writes), are one place:
    /// one page to sense.
    pub(super) fn pieces(&self, lpn: u64, from: u64, to: u64) -> Option<Vec<Loc>> {
        let Mapping::Split(s) = self.mapping(lpn) else {
            return None;
        };
        // A split page is the map's units, whole.
        let page = self.units * MAP_UNIT;
        let mut out: Vec<Loc> = Vec::new();
        let mut last_entry = 0;
        let words = self.unit_words(s);
        for u in from / MAP_UNIT..to.div_ceil(MAP_UNIT).min(self.units) {
            let Some(loc) = Loc::unpack(words[u as usize]) else {
                continue;
            };
            let (lo, hi) = ((u * MAP_UNIT).max(from), ((u + 1) * MAP_UNIT).min(to));
            let part = (loc.bytes as u64 * (hi - lo)).div_ceil(MAP_UNIT).max(1) as u32;
            match out.last_mut() {
                Some(last)
                    if last.block == loc.block
                        && (loc.entry == last_entry || loc.entry == last_entry + 1)
                        && (last.bytes + part) as u64 <= page =>
                {
                    last.bytes += part;
                }
                _ => out.push(Loc { bytes: part, ..loc }),
            }
            last_entry = loc.entry;
        }
        Some(out)
    }

    /// The unit words of split page `s`.
    fn unit_words(&self, s: usize) -> &[u64] {
        let n = self.units as usize;
        &self.splits.words[s * n..(s + 1) * n]
    }

    /// Makes logical page `lpn` split, its units where they are (a page stored whole has
    /// each unit's share of its bytes at its one place); returns its split index.
    fn split_page(&mut self, lpn: u64) -> usize {
        let n = self.units;
        let was = self.mapping(lpn);
        if let Mapping::Split(s) = was {
            return s;
        }
        let s = self.splits.free.pop().unwrap_or_else(|| {
            self.splits
                .words
                .resize(self.splits.words.len() + n as usize, 0);
            self.splits.words.len() / n as usize - 1
        });
        for u in 0..n {
            self.splits.words[s * n as usize + u as usize] = match was {
                Mapping::Whole(loc) => Loc {
                    bytes: share(loc.bytes as u64, u, n) as u32,
                    ..loc
                }
                .pack(),
                _ => 0,
            };
        }
        self.map[lpn as usize] = s as u64 + 1;
        s
    }

    /// Units `units` of logical page `lpn` no longer hold what they held (overwritten):
    /// their shares are counted out of their blocks, the page split if it was not.
    /// Returns the bytes counted out.
    pub(super) fn invalidate_units(&mut self, lpn: u64, units: Units, p: &Params) -> u64 {
        let s = self.split_page(lpn);
        let base = s * self.units as usize;
        let mut out = 0;
        for u in units.first..(units.first + units.count).min(self.units) {
            let word = std::mem::take(&mut self.splits.words[base + u as usize]);
            if let Some(loc) = Loc::unpack(word) {
                self.count_out(loc.block, loc.bytes as u64, p);
                out += loc.bytes as u64;
            }
        }
        out
    }

    /// Takes split page `s`'s words off its blocks and gives its words back; returns the
    /// bytes counted out (each block marked in `touched` if given, else moved among the
    /// greedy victims at once).
    fn drop_split(&mut self, s: usize, p: &Params, mut touched: Option<&mut Vec<bool>>) -> u64 {
        let n = self.units as usize;
        let mut out = 0;
        for u in 0..n {
            let word = std::mem::take(&mut self.splits.words[s * n + u]);
            let Some(loc) = Loc::unpack(word) else {
                continue;
            };
            out += loc.bytes as u64;
            match touched.as_deref_mut() {
                Some(t) => {
                    self.blocks[loc.block as usize].valid -= loc.bytes as u64;
                    t[loc.block as usize] = true;
                }
                None => self.count_out(loc.block, loc.bytes as u64, p),
            }
        }
        self.splits.free.push(s);
        out
    }

    /// Starts bringing a logical page's map entry into the cache.
    #[inline]
    pub(super) fn prefetch(&self, lpn: u64) {
        if let Some(word) = self.map.get(lpn as usize) {
            prefetch_line(word);
        }
    }

    /// Starts bringing what logical page `lpn`'s map word points at into the cache (its
    /// word asked for one request earlier): its unit words if it is split, else its block's
    /// counts, which a write's invalidation changes.
    #[inline]
    pub(super) fn prefetch_behind(&self, lpn: u64) {
        match self.mapping(lpn) {
            Mapping::Split(s) if self.units > 1 => {
                prefetch_line(&self.splits.words[s * self.units as usize]);
            }
            Mapping::Whole(loc) => {
                if let Some(b) = self.blocks.get(loc.block as usize) {
                    prefetch_line(b);
                }
            }
            _ => {}
        }
    }

    /// Lays the drive out as long uniform random writes leave it: `lpns` of its `space`
    /// logical pages stored once (the first `lpns` of [`scrambled`], so any span of them is
    /// spread over every block and the pages without data too), in closed blocks whose
    /// share of valid pages falls with their age as `exp(-age / u)` (a page survives each
    /// later write with probability about 1 − 1/lpns), `u` chosen so that the valid pages
    /// add up to `lpns`; the oldest blocks are the next victims. Each die keeps one free
    /// block above its collection watermark.
    pub(super) fn age(&mut self, p: &Params, space: u64, lpns: u64) -> Result<()> {
        let ppb = p.pages_per_block;
        let bpd = p.blocks_per_die as usize;
        let per_die = bpd.saturating_sub(p.gc_free + 1);
        let blocks = per_die * p.dies;
        if (blocks as u64) * ppb < lpns || lpns == 0 {
            return Err(model("an aged drive needs more flash than logical pages"));
        }
        // Block k (0 the oldest) was written (blocks - k - 1/2) blocks' worth of writes ago:
        // the valid pages of all blocks are a geometric sum in q = exp(-ppb / u). `libm`'s
        // exp and pow, pure Rust, give the same bits on every machine; std's may not (their
        // precision varies by platform and Rust version: `powi` here moved pages, and a
        // used drive's results with them).
        let valid_with = |u: f64| -> f64 {
            let q = libm::exp(-(ppb as f64) / u);
            ppb as f64 * libm::exp(-(ppb as f64) / (2.0 * u)) * (1.0 - libm::pow(q, blocks as f64))
                / (1.0 - q)
        };
        let (mut lo, mut hi) = (1.0f64, 1e3 * blocks as f64 * ppb as f64);
        for _ in 0..200 {
            let mid = (lo * hi).sqrt();
            if valid_with(mid) < lpns as f64 {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let mut counts: Vec<u64> = Vec::with_capacity(blocks);
        let (mut cum, mut given) = (0.0f64, 0u64);
        for k in 0..blocks {
            let age = (blocks - k) as f64 - 0.5;
            cum += ppb as f64 * libm::exp(-age * ppb as f64 / hi);
            let n = ((cum.round() as u64).min(lpns).saturating_sub(given)).min(ppb);
            counts.push(n);
            given += n;
        }
        // Rounding leaves a few pages over: the newest blocks with room take them.
        for n in counts.iter_mut().rev() {
            let more = (lpns - given).min(ppb - *n);
            *n += more;
            given += more;
        }
        if let Some(v) = &mut self.vectors {
            // The layout is a used drive whose history gave back what it wrote: written in
            // large pieces (files, a system installed), each vector a run of consecutive
            // logical pages, since moved about by garbage collection. Small writes of its
            // past, and the copies they left kept, are the drive file's `history`, played
            // after this layout. The host's vectors come after these.
            let runs = space.div_ceil(v.pages as u64) as usize;
            v.live = vec![0; runs + 1];
            v.kept = vec![Vec::new(); runs + 1];
            (v.current, v.filled) = (runs as u32, 0);
        }
        let mut order = scrambled(space);
        for (k, &n) in counts.iter().enumerate() {
            let (die, b) = (k % p.dies, (k % p.dies) * bpd + k / p.dies);
            let blk = &mut self.blocks[b];
            blk.entries.clear();
            // Every block ends with an entry a page (the stale rest below): room for them once.
            blk.entries.reserve_exact(ppb as usize);
            if let Some(v) = &mut self.vectors {
                v.of_entry[b].reserve_exact(ppb as usize);
            }
            for entry in 0..n {
                let lpn = order.next().unwrap_or(0) as u32;
                if let Some(v) = &mut self.vectors {
                    // Its history's vector: the run of logical pages it was written with
                    // (its live pages counted below).
                    v.of_entry[b].push(lpn / v.pages);
                }
                blk.entries.push((lpn, p.page as u32));
                let loc = Loc {
                    block: b as u32,
                    entry: entry as u32,
                    bytes: p.page as u32,
                };
                self.map[lpn as usize] = loc.pack();
            }
            // The stale rest of the block: no page maps to these entries.
            blk.entries.resize(ppb as usize, (0, p.page as u32));
            if let Some(v) = &mut self.vectors {
                v.of_entry[b].resize(ppb as usize, NO_VECTOR);
            }
            blk.used = ppb * p.page;
            blk.valid = n * p.page;
            self.close(die, b as u32, p);
        }
        if let Some(v) = &mut self.vectors {
            // Each vector's live pages, in one pass over the map in logical order: the
            // layout places them in a scrambled order, where counting missed the cache on
            // nearly every page (the map held nothing before the layout).
            let pages = v.pages as usize;
            for (lpn, &word) in self.map.iter().enumerate() {
                if word != 0 {
                    v.live[lpn / pages] += 1;
                }
            }
        }
        for (d, free) in self.free.iter_mut().enumerate() {
            *free = ((d * bpd + per_die) as u32..((d + 1) * bpd) as u32)
                .rev()
                .collect();
        }
        Ok(())
    }

    /// Logical page `lpn` no longer holds what it held (overwritten or trimmed): its copy is
    /// stale, and counted out of its block, unless other pages of its write-combination
    /// vector still hold data ([`Vectors`]): then it is kept, and when the last one goes,
    /// all the vector's kept copies are counted out with it. Returns the bytes it held.
    pub(super) fn invalidate(&mut self, lpn: u64, p: &Params) -> u64 {
        let word = self.take_word(lpn);
        let (block, entry, bytes) = match Mapping::of(word) {
            Mapping::Unmapped => return 0,
            Mapping::Split(s) => return self.drop_split(s, p, None),
            Mapping::Whole(loc) => (loc.block, loc.entry, loc.bytes),
        };
        // The kept copies its vector gives back with it, if this was its last live page.
        let mut released = Vec::new();
        if let Some(v) = &mut self.vectors {
            let g = v.of_entry[block as usize][entry as usize] as usize;
            if g != NO_VECTOR as usize {
                v.live[g] -= 1;
                if v.live[g] > 0 {
                    v.kept[g].push((block, entry));
                    v.kept_bytes[block as usize] += bytes as u64;
                    return bytes as u64;
                }
                released = std::mem::take(&mut v.kept[g]);
                for &(b, e) in &released {
                    v.kept_bytes[b as usize] -=
                        self.blocks[b as usize].entries[e as usize].1 as u64;
                }
            }
        }
        for (b, e) in released {
            let kept = self.blocks[b as usize].entries[e as usize].1 as u64;
            self.count_out(b, kept, p);
        }
        self.count_out(block, bytes as u64, p);
        bytes as u64
    }

    /// Takes `bytes` of stale data off block `block`'s valid count (and moves it among the
    /// greedy victims).
    fn count_out(&mut self, block: u32, bytes: u64, p: &Params) {
        let b = &mut self.blocks[block as usize];
        b.valid -= bytes;
        if b.closed && p.policy == GcPolicy::Greedy {
            let to = bucket_of(b.valid, p);
            if to != b.bucket as usize {
                let die = b.die as usize;
                self.unbucket(die, block);
                self.bucket(die, block, to);
            }
        }
    }

    /// Drops the logical pages `first..end` from the map; returns the bytes they held. A
    /// range shorter than the drive has blocks goes page by page; in a longer one (a purge)
    /// a block's place among the victims is updated once, after all its pages are counted
    /// out (a whole-drive trim would otherwise move each block between buckets once per
    /// page).
    pub(super) fn invalidate_range(&mut self, first: u64, end: u64, p: &Params) -> u64 {
        // With vectors a page's kept copies may be anywhere: page by page too.
        if end.saturating_sub(first) < self.blocks.len() as u64 || self.vectors.is_some() {
            return (first..end).map(|lpn| self.invalidate(lpn, p)).sum();
        }
        let mut touched = vec![false; self.blocks.len()];
        let mut held = 0;
        for lpn in first..end {
            match Mapping::of(self.take_word(lpn)) {
                Mapping::Unmapped => {}
                Mapping::Split(s) => {
                    held += self.drop_split(s, p, Some(&mut touched));
                }
                Mapping::Whole(Loc { block, bytes, .. }) => {
                    self.blocks[block as usize].valid -= bytes as u64;
                    touched[block as usize] = true;
                    held += bytes as u64;
                }
            }
        }
        if p.policy != GcPolicy::Greedy {
            return held;
        }
        for (block, _) in touched.iter().enumerate().filter(|(_, t)| **t) {
            let b = &self.blocks[block];
            let to = bucket_of(b.valid, p);
            if b.closed && to != b.bucket as usize {
                let (block, die) = (block as u32, b.die as usize);
                self.unbucket(die, block);
                self.bucket(die, block, to);
            }
        }
        held
    }

    /// Takes logical page `lpn`'s map word, leaving it unmapped. An unmapped page's word is
    /// only read: the map is zeroed memory the kernel backs when first written, so a trim
    /// of a drive that holds little (a purge of a new 4 TB drive: 2 GB of map) costs no
    /// memory for the pages that held nothing.
    #[inline]
    fn take_word(&mut self, lpn: u64) -> u64 {
        match self.map.get_mut(lpn as usize) {
            Some(w) if *w != 0 => std::mem::take(w),
            _ => 0,
        }
    }

    /// Puts closed block `b` of `die` in bucket `k`.
    pub(super) fn bucket(&mut self, die: usize, b: u32, k: usize) {
        let list = &mut self.closed[die].buckets[k];
        self.blocks[b as usize].bucket = k as u32;
        self.blocks[b as usize].pos = list.len() as u32;
        list.push(b);
    }

    /// Takes closed block `b` of `die` out of its bucket.
    pub(super) fn unbucket(&mut self, die: usize, b: u32) {
        let (k, pos) = (
            self.blocks[b as usize].bucket as usize,
            self.blocks[b as usize].pos as usize,
        );
        let list = &mut self.closed[die].buckets[k];
        list.swap_remove(pos);
        if let Some(&moved) = list.get(pos) {
            self.blocks[moved as usize].pos = pos as u32;
        }
    }

    /// Appends a logical page to the open block of `die`, opening (and first collecting
    /// garbage for) a new block when it is full. Returns when the collection this caused is
    /// done, copies and erase (0 if there was none).
    /// Of a split page, `units` are what the bytes hold (see [`PageFtl::store`]).
    pub(super) fn append(
        &mut self,
        die: usize,
        lpn: u32,
        bytes: u64,
        units: Option<Units>,
        p: &Params,
        book: &mut Booking,
    ) -> Result<u64> {
        let mut done = 0;
        if !self.has_room(die, bytes, p) {
            if let Some(b) = self.open[die].take() {
                self.close(die, b, p);
            }
            if self.free[die].len() <= p.gc_free {
                done = self.collect(die, p, book, p.gc_free, usize::MAX)?;
            }
        }
        // GC leaves its copies in an open block, which may have no room left.
        self.open_with_room(die, bytes, p)?;
        self.store(die, lpn, bytes, units)?;
        // Near the watermark a die collecting in the background takes a victim when it has
        // none under way: its copies are booked into the die's blocks at once, so taking
        // more would fill the erased blocks the host's next pages need with copies that
        // are not made yet. On the controller, one victim after each write.
        if self.free[die].len() <= p.gc_free + BACKGROUND_GC_BLOCKS
            && (p.gc_foreground || !book.busy[die].collecting(book.at))
        {
            let floor = p.gc_free + BACKGROUND_GC_BLOCKS;
            let more = self.collect(die, p, book, floor, 1)?;
            done = done.max(more);
        }
        Ok(done)
    }

    /// Whether the open block of `die` can take `bytes` more.
    pub(super) fn has_room(&self, die: usize, bytes: u64, p: &Params) -> bool {
        self.open[die].is_some_and(|b| self.blocks[b as usize].used + bytes <= p.block_bytes())
    }

    /// Makes sure `die` has an open block with room for `bytes`: closes a full one and
    /// opens a free one (no garbage collection here).
    pub(super) fn open_with_room(&mut self, die: usize, bytes: u64, p: &Params) -> Result<()> {
        if self.has_room(die, bytes, p) {
            return Ok(());
        }
        if let Some(b) = self.open[die].take() {
            self.close(die, b, p);
        }
        let b = self.free[die]
            .pop_back()
            .ok_or_else(|| model("the simulated SSD ran out of free blocks"))?;
        self.open[die] = Some(b);
        Ok(())
    }

    /// Appends `bytes` of logical page `lpn`, written by the host, to the open block of `die`
    /// and maps it there: the whole page, or `units` of a page split by
    /// [`PageFtl::invalidate_units`] (each its share of the bytes).
    pub(super) fn store(
        &mut self,
        die: usize,
        lpn: u32,
        bytes: u64,
        units: Option<Units>,
    ) -> Result<()> {
        let vector = self.vectors.as_mut().map_or(NO_VECTOR, Vectors::next);
        let (block, entry) = self.store_entry(die, lpn, bytes, vector, units.is_none())?;
        if let Some(Units { first, count }) = units {
            let s = self.split_page(lpn as u64);
            let base = s * self.units as usize;
            for j in 0..count.min(self.units - first) {
                self.splits.words[base + (first + j) as usize] = Loc {
                    block,
                    entry,
                    bytes: share(bytes, j, count) as u32,
                }
                .pack();
            }
        }
        Ok(())
    }

    /// Appends `bytes` of logical page `lpn` (of write-combination vector `vector`) to the
    /// open block of `die`, counted as valid, and maps the page there if `mapped` (a kept
    /// stale copy is not); returns the block and entry it went to.
    fn store_entry(
        &mut self,
        die: usize,
        lpn: u32,
        bytes: u64,
        vector: u32,
        mapped: bool,
    ) -> Result<(u32, u32)> {
        let Some(b) = self.open[die] else {
            return Err(model("the simulated SSD has no open block"));
        };
        let blk = &mut self.blocks[b as usize];
        if blk.entries.len() >= 1 << Loc::ENTRY_BITS {
            return Err(model("too many entries in a simulated block"));
        }
        let loc = Loc {
            block: b,
            entry: blk.entries.len() as u32,
            bytes: bytes as u32,
        };
        if bytes == 0 || bytes >= 1 << Loc::BYTES_BITS {
            return Err(model(format!(
                "a simulated page stores 1 byte to {} bytes, not {bytes}",
                (1u64 << Loc::BYTES_BITS) - 1
            )));
        }
        blk.entries.push((lpn, loc.bytes));
        blk.used += bytes;
        blk.valid += bytes;
        if let Some(v) = &mut self.vectors {
            v.of_entry[b as usize].push(vector);
            if !mapped {
                v.kept_bytes[b as usize] += bytes;
            }
        }
        if mapped {
            self.map[lpn as usize] = loc.pack();
        }
        Ok((b, loc.entry))
    }

    pub(super) fn close(&mut self, die: usize, b: u32, p: &Params) {
        let blk = &mut self.blocks[b as usize];
        blk.closed = true;
        match p.policy {
            GcPolicy::Greedy => {
                let k = bucket_of(blk.valid, p);
                self.bucket(die, b, k);
            }
            GcPolicy::Fifo => self.closed[die].fifo.push_back(b),
        }
    }

    /// The closed block of `die` with the least data that is not stale (valid less the
    /// copies its vectors keep), taken out of the candidates: a scan of them all.
    fn least_live_victim(&mut self, die: usize, p: &Params) -> Option<u32> {
        let kept = self.vectors.as_ref().map(|v| &v.kept_bytes);
        let live = |b: u32| self.blocks[b as usize].valid - kept.map_or(0, |k| k[b as usize]);
        let v = &self.closed[die];
        // Greedy keeps its candidates in buckets, FIFO in order; the other is empty.
        let best = (v.buckets.iter().flatten().chain(v.fifo.iter()))
            .copied()
            .min_by_key(|&b| (live(b), b))?;
        match p.policy {
            GcPolicy::Greedy => self.unbucket(die, best),
            GcPolicy::Fifo => {
                let fifo = &mut self.closed[die].fifo;
                if let Some(at) = fifo.iter().position(|&b| b == best) {
                    fifo.remove(at);
                }
            }
        }
        Some(best)
    }

    /// The next victim of `die`, taken out of the candidates.
    pub(super) fn victim(&mut self, die: usize, p: &Params) -> Option<u32> {
        let v = &mut self.closed[die];
        match p.policy {
            GcPolicy::Greedy => v.buckets.iter_mut().find_map(|list| list.pop()),
            GcPolicy::Fifo => v.fifo.pop_front(),
        }
    }

    /// Garbage collection on `die` while it has no more than `floor` free blocks, at most
    /// `most` victims: their valid data is copied (read and program on the die) into the
    /// die's open block, and the victim erased. In the background, host operations on the
    /// die go between its steps, and a write into the erased block waits for the erase; in
    /// the foreground (`gc: foreground`) they all wait. Returns when the last victim is
    /// erased (0 if none was taken).
    pub(super) fn collect(
        &mut self,
        die: usize,
        p: &Params,
        book: &mut Booking,
        floor: usize,
        most: usize,
    ) -> Result<u64> {
        let Booking { busy, stats, at } = book;
        let at = *at;
        let mut taken = 0;
        let mut done = 0;
        // A pass over every closed block that frees none means the die's valid data fills
        // it: no victim can give back more than its copies take.
        let mut pass = None;
        while self.free[die].len() <= floor && taken < most {
            taken += 1;
            if taken > 64 {
                let pass = *pass.get_or_insert_with(|| taken + self.closed[die].len());
                if taken > pass {
                    return Err(self.cannot_free(die));
                }
            }
            // At the wall (64 victims have not freed a block) with vectors, the firmware
            // checks its blocks against the map: the victim is the block holding the least
            // data that is not stale, and its stale copies are dropped, not kept. Slow, but
            // a drive never stops while it has room for its data.
            let wall = taken > 64 && self.vectors.is_some();
            let victim = if wall {
                self.least_live_victim(die, p)
            } else {
                self.victim(die, p)
            };
            let Some(victim) = victim else {
                break;
            };
            let entries = std::mem::take(&mut self.blocks[victim as usize].entries);
            let vectors = (self.vectors.as_mut())
                .map(|v| std::mem::take(&mut v.of_entry[victim as usize]))
                .unwrap_or_default();
            let moved = self.copy_out(
                die,
                p,
                Victim {
                    block: victim,
                    wall,
                },
                &entries,
                &vectors,
            )?;
            let pages = moved.div_ceil(p.page);
            // Each page read on its own, programmed a page per plane at once; then the erase.
            let copies = pages * p.t_read + pages.div_ceil(p.planes) * p.t_prog;
            done = if !p.gc_foreground {
                let step = p.planes * p.t_read + p.t_prog;
                busy[die].background(at, copies, step);
                busy[die].background(at, p.t_erase, p.t_erase)
            } else {
                busy[die].block(at, copies + p.t_erase)
            };
            stats.gc_pages += pages;
            stats.nand_bytes += pages * p.page;
            stats.erases += 1;
            let v = &mut self.blocks[victim as usize];
            *v = Block {
                entries: {
                    let mut e = entries;
                    e.clear();
                    e
                },
                erased: done,
                die: v.die,
                ..Block::default()
            };
            if let Some(v) = &mut self.vectors {
                let mut g = vectors;
                g.clear();
                v.of_entry[victim as usize] = g;
                v.kept_bytes[victim as usize] = 0;
            }
            self.free[die].push_front(victim);
        }
        Ok(done)
    }

    /// Why die `die` cannot free a block: its valid data (and the stale copies vectors
    /// keep) fill every block garbage collection could take.
    fn cannot_free(&self, die: usize) -> Error {
        let why = if self.vectors.is_some() {
            "its valid data and the stale copies its write-combination vectors \
             keep (ssd.vector_pages) fill every block garbage collection could \
             take: the small writes used up the spare area (a sequential pass or \
             a trim over the drive gives it back)"
        } else {
            "its valid data fills every block garbage collection could take (too \
             little spare area: raise ssd.raw_capacity, or lower ssd.full)"
        };
        model(format!(
            "the simulated SSD's die {die} cannot free a block: {why}"
        ))
    }

    /// Copies what a victim block holds that must be kept (the pages the map points at,
    /// and the stale copies a vector keeps, unless the victim is taken at the wall) into
    /// the die's open block; returns the bytes moved.
    fn copy_out(
        &mut self,
        die: usize,
        p: &Params,
        victim: Victim,
        entries: &[(u32, u32)],
        vectors: &[u32],
    ) -> Result<u64> {
        let mut moved = 0u64;
        // Each entry's map word is a cache miss of its own (the victim's pages are scattered
        // over the map): ask for the next ones' while this one is checked.
        const AHEAD: usize = 8;
        for &(lpn, _) in entries.iter().take(AHEAD) {
            prefetch_line(&self.map[lpn as usize]);
        }
        for (i, &(lpn, bytes)) in entries.iter().enumerate() {
            if let Some(&(next, _)) = entries.get(i + AHEAD) {
                prefetch_line(&self.map[next as usize]);
            }
            let here = Loc {
                block: victim.block,
                entry: i as u32,
                bytes,
            };
            let word = self.map[lpn as usize];
            let mapped = word == here.pack();
            if let (false, Mapping::Split(s)) = (mapped, Mapping::of(word)) {
                moved += self.copy_units(die, p, s, lpn, here)?;
                continue;
            }
            // A stale copy its vector keeps is copied all the same.
            let vector = vectors.get(i).copied().unwrap_or(NO_VECTOR);
            let kept = !mapped
                && vector != NO_VECTOR
                && self
                    .vectors
                    .as_ref()
                    .is_some_and(|v| v.live[vector as usize] > 0);
            if kept && victim.wall {
                if let Some(v) = &mut self.vectors {
                    let list = &mut v.kept[vector as usize];
                    if let Some(at) = list.iter().position(|at| *at == (victim.block, i as u32)) {
                        list.swap_remove(at);
                    }
                }
                continue;
            }
            if !mapped && !kept {
                continue;
            }
            let bytes = bytes as u64;
            // Into the die's open block (a fresh one from the reserve when it is full).
            self.open_with_room(die, bytes, p)?;
            let to = self.store_entry(die, lpn, bytes, vector, mapped)?;
            if kept {
                if let Some(v) = &mut self.vectors {
                    if let Some(at) = v.kept[vector as usize]
                        .iter_mut()
                        .find(|at| **at == (victim.block, i as u32))
                    {
                        *at = to;
                    }
                }
            }
            moved += bytes;
        }
        Ok(moved)
    }

    /// Copies the units of split page `s` (logical page `lpn`) that victim entry `here`
    /// holds into one entry of the die's open block, and points them there; returns the
    /// bytes moved.
    fn copy_units(&mut self, die: usize, p: &Params, s: usize, lpn: u32, here: Loc) -> Result<u64> {
        let base = s * self.units as usize;
        let at_here =
            |w: u64| Loc::unpack(w).is_some_and(|l| (l.block, l.entry) == (here.block, here.entry));
        let words = &mut self.splits.words[base..base + self.units as usize];
        let live: u64 = words
            .iter()
            .filter(|&&w| at_here(w))
            .map(|&w| unit_bytes(w))
            .sum();
        if live == 0 {
            // None here, or units whose share of a few bytes rounded to none: dropped.
            words
                .iter_mut()
                .filter(|w| at_here(**w))
                .for_each(|w| *w = 0);
            return Ok(0);
        }
        self.open_with_room(die, live, p)?;
        let (block, entry) = self.store_entry(die, lpn, live, NO_VECTOR, false)?;
        for w in &mut self.splits.words[base..base + self.units as usize] {
            if at_here(*w) {
                let unit = unit_bytes(*w) as u32;
                *w = Loc {
                    block,
                    entry,
                    bytes: unit,
                }
                .pack();
            }
        }
        Ok(live)
    }
}

/// The bytes a unit word holds (0 for none).
fn unit_bytes(word: u64) -> u64 {
    Loc::unpack(word).map_or(0, |l| l.bytes as u64)
}

/// A block garbage collection takes, and whether it was taken at the wall (its stale
/// copies dropped, not kept).
#[derive(Clone, Copy)]
struct Victim {
    block: u32,
    wall: bool,
}

/// Where and when the FTL's work is booked: the dies' time, the drive's counters, and the
/// moment the work arrives (ns).
pub(super) struct Booking<'a> {
    pub busy: &'a mut [Die],
    pub stats: &'a mut SsdStats,
    pub at: u64,
}

/// The page FTL cannot go on: the model ran out of something.
fn model(message: impl Into<String>) -> Error {
    Error::Target(crate::target::TargetError::Model(message.into()))
}

#[cfg(test)]
mod tests {
    use super::huge_zeroed;

    #[test]
    fn a_map_larger_than_memory_is_refused_not_an_abort() {
        // Too large for a layout at all, and too large for any machine (2^60 bytes).
        assert!(huge_zeroed(usize::MAX / 4).is_none());
        assert!(huge_zeroed(1 << 57).is_none());
        let map = huge_zeroed(1 << 20).unwrap();
        assert_eq!(map.len(), 1 << 20);
        assert!(map.iter().all(|&w| w == 0));
        assert!(huge_zeroed(0).unwrap().is_empty());
    }
}
