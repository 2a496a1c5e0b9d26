//! The drive file's SSD section resolved into the fixed parameters the model runs on.

use crate::drive::{FtlKind, GcMode, GcPolicy, PlaneReads, SsdSpec};

use super::die;
use super::ecc::Ecc;

/// Fixed parameters, resolved from the drive file and its firmware.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Params {
    /// One transfer at a time on the host link (`half_duplex`).
    pub(super) half_duplex: bool,
    /// One direction's data at a time on the host link, commands apart
    /// (`data_half_duplex`).
    pub(super) data_half_duplex: bool,
    /// Each SATA frame's time on the link beside its data (`frame_overhead`; 0: none).
    pub(super) frame: u64,
    pub(super) link_ns_per_byte: f64,
    pub(super) command: u64,
    /// Controller time per write command, the part spent as the write comes in (the rest
    /// is `write_deferred`).
    pub(super) write_overhead: u64,
    pub(super) read_overhead: u64,
    /// Controller time per page of data a write carries, the part spent as the write comes
    /// in (the rest is `page_deferred`).
    pub(super) page_overhead: u64,
    /// The data `page_overhead` is spent on: the page, or the controller's smaller unit.
    pub(super) overhead_unit: u64,
    /// Units whose per-unit work the controller does at once (1: each write's own).
    pub(super) combine: u64,
    /// Writes wait in the buffer until it is full, then it is written out whole.
    pub(super) flush_buffer: bool,
    /// Whether the controller writes in stripes (`write_stripes`, whose count bounds
    /// `buffer`); else each page goes to a free die.
    pub(super) striped: bool,
    /// A write's pipelined time before it is reported done.
    pub(super) write_latency: u64,
    pub(super) channels: usize,
    pub(super) dies: usize,
    pub(super) chan_ns_per_byte: f64,
    pub(super) page: u64,
    /// Planes programmed at once: a program writes `planes` pages.
    pub(super) planes: u64,
    /// How planes read (one page a die at a time if not set).
    pub(super) plane_reads: Option<PlaneReads>,
    /// Whether a die senses its next page while the last crosses the channel from its
    /// plane's cache register.
    pub(super) cache_reads: bool,
    /// Pages of the FTL's block: one erase block on each plane.
    pub(super) pages_per_block: u64,
    pub(super) blocks_per_die: u64,
    pub(super) t_read: u64,
    /// A page read's time on each page type of a wordline, in the order they are written
    /// (lower and upper: both `t_read` without page types).
    pub(super) t_read_types: [u64; 4],
    /// Page types a wordline: 2 (lower, upper) unless `read_senses` says otherwise.
    pub(super) page_types: u64,
    /// Pages on each plane a native program writes: a wordline's `page_types` with
    /// one-shot programming, else 1.
    pub(super) program_pages: u64,
    /// Mean program time (garbage collection's copies take it).
    pub(super) t_prog: u64,
    /// A host program's time on a lower and on an upper page (both `t_prog` without
    /// paired pages).
    pub(super) t_prog_pair: [u64; 2],
    pub(super) t_erase: u64,
    /// Each host program's time × (1 ± up to this).
    pub(super) program_spread: f64,
    /// How a page read's sense time varies from read to read (none where it does not).
    pub(super) read_spread: Option<ReadSpread>,
    /// The parts of the drive file's `write_overhead` and `page_overhead` spent when a
    /// write's program ends (`completion_share`).
    pub(super) write_deferred: u64,
    pub(super) page_deferred: u64,
    /// Page reads' bit errors and their correction, if modelled.
    pub(super) ecc: Option<Ecc>,
    /// Program and erase suspension for reads, where the drive has it.
    pub(super) suspension: Option<die::Suspension>,
    /// The write buffer's room (`buffer`; with `write_stripes`, at most that many stripes).
    pub(super) buffer: u64,
    pub(super) remap: bool,
    /// The 4 KiB units of a page the map tracks apart ([`MAP_UNIT`]): a write of some of
    /// them leaves the others where they are (1: the map's unit is the page).
    pub(super) map_units: u64,
    pub(super) remap_cost: u64,
    pub(super) gc_free: usize,
    pub(super) policy: GcPolicy,
    /// Collection holds the controller (no host command until it is done).
    pub(super) gc_foreground: bool,
    /// Host pages to a write-combination vector by which stale data is tracked (0 or 1:
    /// page by page).
    pub(super) vector_pages: u32,
    /// Minimum spacing of small writes (a firmware's random-write limiter), ns.
    pub(super) small_write_gap: u64,
    pub(super) compression: bool,
    pub(super) ftl: FtlKind,
    pub(super) log_blocks: usize,
    /// Commands the drive holds at once (0: as many as sent).
    pub(super) queue_slots: usize,
}

/// `n / d`: a shift where `d` is a power of two, as the sizes of a drive file are (pages,
/// map units). A 64-bit division takes this machine's CPU tens of cycles: those on a
/// write's path were a tenth of the simulator's time (docs/performance.md, "Divisions").
#[inline]
pub(super) fn div(n: u64, d: u64) -> u64 {
    if d.is_power_of_two() {
        n >> d.trailing_zeros()
    } else {
        n / d
    }
}

/// `n` times `x` (ns a byte, a factor), truncated: `(n as f64 * x) as u64`, the same value
/// for every product from 0 to 2^63 (292 years of ns), but through i64, which converts in
/// one instruction each way where u64 takes a test and several; a negative product is 0
/// as before. On every I/O's path (docs/performance.md).
#[inline]
pub(super) fn scaled(n: u64, x: f64) -> u64 {
    let y = n as i64 as f64 * x;
    if y > 0.0 {
        y as i64 as u64
    } else {
        0
    }
}

/// `n / d` rounded up, as [`div`] does it.
#[inline]
pub(super) fn div_ceil(n: u64, d: u64) -> u64 {
    if d.is_power_of_two() {
        (n >> d.trailing_zeros()) + (n & (d - 1) != 0) as u64
    } else {
        n.div_ceil(d)
    }
}

/// `n % d`, as [`div`] does it.
#[inline]
pub(super) fn rem(n: u64, d: u64) -> u64 {
    if d.is_power_of_two() {
        n & (d - 1)
    } else {
        n % d
    }
}

/// Lower and upper page times whose mean is `mean`, the upper `ratio` times the lower.
pub(super) fn pair(mean: u64, ratio: Option<f64>) -> [u64; 2] {
    let lower = (2.0 * mean as f64 / (1.0 + ratio.unwrap_or(1.0))).round() as u64;
    [lower, 2 * mean - lower]
}

/// Read times of a wordline's page types whose mean is `mean`, each in proportion to one
/// plus its sensing steps (the last takes what rounding left, so the mean is exact).
pub(super) fn by_senses(mean: u64, senses: &[u32]) -> [u64; 4] {
    let n = senses.len() as u64;
    let weights: u64 = senses.iter().map(|&k| 1 + k as u64).sum();
    let mut t = [0u64; 4];
    let mut given = 0;
    for (i, &k) in senses.iter().enumerate() {
        t[i] = if i + 1 == senses.len() {
            n * mean - given
        } else {
            ((n * mean * (1 + k as u64)) as f64 / weights as f64).round() as u64
        };
        given += t[i];
    }
    t
}

/// The part of a controller time spent when the write's program ends
/// (`completion_share`): none where the buffer is written out whole.
fn deferred(s: &SsdSpec, ns: u64) -> u64 {
    let share = match s.ftl {
        FtlKind::Page if !s.flush_buffer => s.completion_share.unwrap_or(0.0),
        _ => 0.0,
    };
    (ns as f64 * share).round() as u64
}

impl Params {
    /// The logical page byte `b` is in.
    #[inline]
    pub(super) fn page_of(&self, b: u64) -> u64 {
        div(b, self.page)
    }

    /// Whether byte `b` starts a page.
    #[inline]
    pub(super) fn starts_page(&self, b: u64) -> bool {
        rem(b, self.page) == 0
    }

    /// The process's one copy of these parameters, shared by every drive built with the
    /// same ones and kept for the life of the process (a few hundred bytes for each set).
    /// The model's methods copy the reference and borrow it while they change the drive,
    /// where an `Arc` cost an atomic increment and decrement on every write (3% of the
    /// simulator's time, `perf`: docs/performance.md) and a copy of the whole 5% in
    /// `memcpy`.
    pub(super) fn interned(self) -> &'static Params {
        static ALL: std::sync::Mutex<Vec<&'static Params>> = std::sync::Mutex::new(Vec::new());
        let mut all = ALL
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(p) = all.iter().find(|p| ***p == self) {
            return p;
        }
        let p: &'static Params = Box::leak(Box::new(self));
        all.push(p);
        p
    }

    pub(super) fn of(s: &SsdSpec, firmware: Option<&str>) -> Params {
        let fw = firmware
            .and_then(|f| s.firmwares.get(f))
            .cloned()
            .unwrap_or_default();
        let dies = (s.channels * s.dies_per_channel) as usize;
        let planes = s.planes.unwrap_or(1).max(1) as u64;
        let pages_per_block = s.pages_per_block as u64 * planes;
        let block = s.page.0 * pages_per_block;
        let write_overhead = fw.write_overhead.or(s.write_overhead).map_or(0, |d| d.0);
        let page_overhead = fw.page_overhead.or(s.page_overhead).map_or(0, |d| d.0);
        let overhead_unit = s.page_overhead_unit.map_or(s.page.0, |u| u.0);
        let (write_deferred, page_deferred) =
            (deferred(s, write_overhead), deferred(s, page_overhead));
        let program_pages = match &s.read_senses {
            Some(senses) if s.one_shot => senses.len() as u64,
            _ => 1,
        };
        // With `write_stripes`, the buffer holds at most that many stripes (a program on
        // every die).
        let stripe = dies as u64 * s.page.0 * planes * program_pages;
        let buffer = s
            .write_stripes
            .map_or(s.buffer.0, |n| s.buffer.0.min(n as u64 * stripe));
        Params {
            half_duplex: s.half_duplex.unwrap_or(false),
            data_half_duplex: s.data_half_duplex.unwrap_or(false),
            frame: s.frame_overhead.map_or(0, |d| d.0),
            link_ns_per_byte: 1e9 / s.link_rate.0,
            command: fw.command_overhead.unwrap_or(s.command_overhead).0,
            write_overhead: write_overhead - write_deferred,
            read_overhead: s.read_overhead.map_or(0, |d| d.0),
            page_overhead: page_overhead - page_deferred,
            overhead_unit,
            combine: if s.combine_writes {
                dies as u64 * planes * (s.page.0 / overhead_unit)
            } else {
                1
            },
            flush_buffer: s.flush_buffer,
            striped: s.write_stripes.is_some(),
            write_latency: s.write_latency.map_or(0, |d| d.0),
            channels: s.channels as usize,
            dies,
            chan_ns_per_byte: 1e9 / s.channel_rate.0,
            page: s.page.0,
            planes,
            plane_reads: s.plane_reads,
            cache_reads: s.cache_reads,
            pages_per_block,
            blocks_per_die: s.raw_capacity.0 / block / dies as u64,
            t_read: s.read.0,
            t_read_types: match &s.read_senses {
                Some(senses) => by_senses(s.read.0, senses),
                None => {
                    let [lower, upper] = pair(s.read.0, s.upper_page_read);
                    [lower, upper, 0, 0]
                }
            },
            page_types: s.read_senses.as_ref().map_or(2, |k| k.len() as u64),
            program_pages,
            t_prog: s.program.0,
            t_prog_pair: pair(s.program.0, s.upper_page_program),
            ecc: s.ecc.as_ref().map(|e| Ecc::of(e, s.page.0)),
            suspension: s.suspend.as_ref().map(|u| die::Suspension {
                step: u.step.0,
                resume: u.resume.0,
                max: u.max,
            }),
            t_erase: s.erase.0,
            program_spread: s.program_spread.unwrap_or(0.2),
            read_spread: ReadSpread::of(
                s.read_spread
                    .unwrap_or(crate::drive::ReadSpreadSpec::DEFAULT),
            ),
            write_deferred,
            page_deferred,
            buffer,
            remap: s.remap,
            map_units: map_units(s, fw.vector_pages.or(s.vector_pages).unwrap_or(1)),
            remap_cost: fw.remap_cost.or(s.remap_cost).map_or(0, |d| d.0),
            gc_free: fw.gc_free_blocks.or(s.gc_free_blocks).unwrap_or(2).max(2) as usize,
            policy: fw.gc_policy.or(s.gc_policy).unwrap_or(GcPolicy::Greedy),
            gc_foreground: fw.gc.or(s.gc) == Some(GcMode::Foreground),
            vector_pages: fw.vector_pages.or(s.vector_pages).unwrap_or(1),
            small_write_gap: fw
                .small_write_iops
                .map_or(0, |n| 1_000_000_000 / n.max(1) as u64),
            compression: s.compression,
            ftl: s.ftl,
            log_blocks: s.log_blocks.unwrap_or(0) as usize,
            queue_slots: s.queue_slots.unwrap_or(0) as usize,
        }
    }
    pub(super) fn block_bytes(&self) -> u64 {
        self.page * self.pages_per_block
    }

    /// The frames (`frame_overhead`) a command sends and takes back with it, in ns: a
    /// command and its acceptance; a write's `bytes` besides, each data frame asked for
    /// (DMA setup, then DMA Activate and the data frame for each 8 KiB), and its completion.
    /// A read's data frames go back with its data ([`Params::read_frames`]).
    pub(super) fn command_frames(&self, write_bytes: Option<u64>) -> u64 {
        let frames = match write_bytes {
            Some(b) => 4 + 2 * b.div_ceil(DATA_FRAME),
            None => 2,
        };
        frames * self.frame
    }

    /// The frames of a read's data on the link up to its first `bytes`, in ns: its DMA
    /// setup and a data frame each 8 KiB begun, which the drive sends unasked, back to
    /// back (its completion, a frame of its own, follows the data).
    pub(super) fn read_frames(&self, bytes: u64) -> u64 {
        if bytes == 0 {
            return 0;
        }
        (1 + bytes.div_ceil(DATA_FRAME)) * self.frame
    }
}

/// SATA's largest data frame (a Data FIS of 8 KiB): a transfer crosses the link in frames
/// of this much at most.
const DATA_FRAME: u64 = 8192;

/// The map's unit on a remapping controller: the host's 4 KiB (a logical block of every
/// file system since, and the unit these controllers' maps and ECC work on).
pub(super) const MAP_UNIT: u64 = 4096;

/// How many [`MAP_UNIT`]s of a page the map tracks apart: those of a page larger than
/// the unit on a remapping drive, unless it tracks stale data by write-combination vector
/// or writes its buffer out whole (whose buffer holds whole pages).
fn map_units(s: &SsdSpec, vector_pages: u32) -> u64 {
    let page = s.page.0;
    if s.remap && !s.flush_buffer && vector_pages <= 1 && page > MAP_UNIT && page % MAP_UNIT == 0 {
        page / MAP_UNIT
    } else {
        1
    }
}

/// A read's sense time as a multiple of its page type's mean: triangular from `fastest` to
/// `slowest` with its mode at 1 (the typical read), divided by the triangle's mean.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct ReadSpread {
    fastest: f64,
    slowest: f64,
    mean: f64,
}

impl ReadSpread {
    /// None where every read of a page takes the same time.
    fn of(r: crate::drive::ReadSpreadSpec) -> Option<ReadSpread> {
        (r.slowest > r.fastest).then(|| ReadSpread {
            fastest: r.fastest,
            slowest: r.slowest,
            mean: (r.fastest + 1.0 + r.slowest) / 3.0,
        })
    }

    /// The multiple for a uniform draw `u` in [0, 1), by inverting the triangle's
    /// cumulative share (`libm`'s square root: the same on every platform).
    pub(super) fn factor(&self, u: f64) -> f64 {
        let (a, b) = (self.fastest, self.slowest);
        let below = (1.0 - a) / (b - a);
        let x = if u < below {
            a + libm::sqrt(u * (b - a) * (1.0 - a))
        } else {
            b - libm::sqrt((1.0 - u) * (b - a) * (b - 1.0))
        };
        x / self.mean
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scaled_is_the_u64_product_it_replaces() {
        let mut rng = crate::rng::stream(1, "scaled");
        let mut cases: Vec<(u64, f64)> = vec![
            (0, 0.0),
            (0, 3.5),
            (4096, 0.0),
            (4096, 1e9 / 280e6),
            (1, 0.999_999),
            (900_000, 0.8),
            (2_430_000, 1.2),
            (u64::from(u32::MAX), 1e9 / 40e6),
            (4096, -1.0),
            (4096, f64::NAN),
        ];
        for _ in 0..100_000 {
            let bits = 1 + crate::rng::below(&mut rng, 44);
            let n = crate::rng::below(&mut rng, 1 << bits);
            let x = crate::rng::fraction(&mut rng) * [1.0, 50.0, 1e4][(n % 3) as usize];
            cases.push((n, x));
        }
        for (n, x) in cases {
            assert_eq!(scaled(n, x), (n as f64 * x) as u64, "{n} × {x}");
        }
    }
}
