//! A simulated SSD's drive file (`ssd:`): its controller, NAND and FTL, its firmwares and
//! a used drive's history, and the checks that refuse what the model cannot run.

use serde::{Deserialize, Serialize};

use crate::config::{Duration, Rate, Size};
use crate::units::DurationLabel;

/// A page read's bit errors and their correction (`ssd.ecc`): each read's errors are drawn
/// (Poisson, from the drive's own seeded stream), every codeword holding one costs the
/// controller `correct`, and a share of reads fail their first decode and are read again
/// (a read retry: the page sensed with shifted references, transferred and corrected again).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct EccSpec {
    /// Raw bit error rate of a page read.
    pub bit_error_rate: f64,
    /// Data bytes of one ECC codeword (default 512 B, the era's BCH sector).
    #[serde(default)]
    pub codeword: Option<Size>,
    /// Controller time to correct one codeword that holds bit errors.
    pub correct: Duration,
    /// Share of page reads that need a read retry (default 0).
    #[serde(default)]
    pub retry: Option<f64>,
    /// The rate of one decoder for every channel: each page read passes it, a codeword at a
    /// time as the page crosses its channel (default: no limit, as where each channel has
    /// its own engine). Absent from the plan hash when unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decode_rate: Option<Rate>,
    /// The rate of the controller's one path for every channel from its buffer to the NAND
    /// (its encoder: each page programmed passes it whole before it crosses its channel;
    /// default: no limit). Absent from the plan hash when unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encode_rate: Option<Rate>,
}

/// How a page read's sense time varies from one read of the same page to another
/// (`ssd.read_spread`): triangular, from `fastest` to `slowest` times the typical (most
/// common) read, scaled so that the mean stays the page type's time. Bates (PMC-Sierra,
/// 2014) gives an MLC read 60 µs at least, 80 typically and 120 at most, "in part
/// determined by the page index" (the page types) and the rest varying from read to read.
#[derive(Debug, Clone, Copy, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ReadSpreadSpec {
    /// The fastest read, as a share of the typical one (at most 1).
    pub fastest: f64,
    /// The slowest read, as a share of the typical one (at least 1).
    pub slowest: f64,
}

impl ReadSpreadSpec {
    /// The default: Bates's range (0.75 to 1.5 of the typical read) less what MLC's page
    /// types (0.8 and 1.2 of their mean) already span of it.
    pub const DEFAULT: ReadSpreadSpec = ReadSpreadSpec {
        fastest: 0.95,
        slowest: 1.25,
    };
}

/// Program and erase suspension (`ssd.suspend`): a read for a die that is programming or
/// erasing suspends the operation at its next break point (every `step` of it: the end of
/// a program pulse and its verify, a segment of an erase pulse), and the operation resumes
/// after the read, its remaining time lengthened by `resume`; `max` suspensions an
/// operation, then reads wait for its end.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SuspendSpec {
    /// Time between an operation's break points.
    pub step: Duration,
    /// What a resumption adds to the operation (its voltage ramped again).
    pub resume: Duration,
    /// Suspensions an operation allows.
    pub max: u32,
}

/// The most planes a die has: the NAND of the drives modelled has one or two (2009), four,
/// or six (232-layer TLC, 2023).
pub const MAX_PLANES: u32 = 6;

/// The SLC cache of a TLC or QLC drive (`ssd.slc_cache`): host writes are programmed one
/// bit a cell (fast) while the cache has room, then straight to the native cells; the
/// cache's data is folded into native cells while the drive idles, or, when the user area
/// runs out of room for the rest of the data, before a write (each folded byte frees the
/// `bits` − 1 it took beyond its native size). The static part has blocks of its own from
/// the spare area; the dynamic part takes user blocks in SLC mode (`bits` bytes of native
/// room a byte), so it shrinks as the drive fills.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SlcSpec {
    /// Bits a cell holds natively: 3 (TLC) or 4 (QLC).
    pub bits: u32,
    /// The static cache: host data it holds at most.
    #[serde(default)]
    pub r#static: Option<Size>,
    /// The dynamic cache: host data it holds at most, on an empty drive.
    #[serde(default)]
    pub dynamic: Option<Size>,
    /// Program time of a page on each plane in SLC mode (`program` is the native one).
    pub program: Duration,
    /// Whether the cache is folded while the drive idles (default true).
    #[serde(default)]
    pub fold_in_idle: Option<bool>,
    /// The controller's rate of host data into native programs (after the cache), where
    /// it binds before the dies (default: none). Folds are copied on the die and do not
    /// take it. Absent from the plan hash when unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub native_rate: Option<Rate>,
    /// Bytes of the dynamic cache flushed into native cells with each byte of host data
    /// programmed natively while the cache holds data, on the same die (default: none, the
    /// cache is folded only when room runs out or the drive idles). An emptied cache takes
    /// host writes again. Absent from the plan hash when unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flush: Option<f64>,
    /// Sense time of a page held in SLC mode (one bit a cell: one sense), where the
    /// controller reads the cache's pages so (default: none, they read as native pages).
    /// Absent from the plan hash when unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read: Option<Duration>,
}

/// Parameters of a simulated SSD (`ssd:` in a drive file): its host link, controller,
/// NAND array and FTL. Figures come from modelling each request against these resources.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SsdSpec {
    /// Usable host link rate (SATA 3 Gbps ≈ 280MB/s, 6 Gbps ≈ 550MB/s; the line's 600MB/s
    /// where `frame_overhead` counts the frames apart).
    pub link_rate: Rate,
    /// Per-command cost on the link and in the controller.
    pub command_overhead: Duration,
    /// The host link carries one transfer at a time, commands and data of either direction
    /// (SATA's frames take turns; default false: a read's data comes back while commands
    /// go out, as on PCIe). Absent from the plan hash when unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub half_duplex: Option<bool>,
    /// The host link carries the data of one direction at a time, while a command's time
    /// (`command_overhead`, on such a file the controller's taking it) is off the wire: a
    /// SATA link whose files were fitted with commands apart (the classic drives). A
    /// write's data waits for the reads' coming back, and theirs for it. Not with
    /// `half_duplex`, which puts the commands on the wire too. Absent from the plan hash
    /// when unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data_half_duplex: Option<bool>,
    /// Each frame of a command's exchange on a half-duplex SATA link, beside its data's
    /// bytes (SATA's NCQ): a read's command, the drive's acceptance, its DMA setup, each
    /// data frame (8 KiB at most) and its completion; a write's the same, and the drive's
    /// request for each data frame (DMA Activate) before it. Only with `half_duplex`;
    /// absent from the plan hash when unset (no frames: `command_overhead` alone).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame_overhead: Option<Duration>,
    /// Controller time per write command (bookkeeping), one at a time, from when the
    /// command is in (its data may still be crossing the link): with
    /// [`page_overhead`](Self::page_overhead), what bounds small random writes on the
    /// controllers of the era.
    #[serde(default)]
    pub write_overhead: Option<Duration>,
    /// Controller time per read command, one at a time (its map lookup, the decoder's
    /// setup): what bounds a drive's random reads where its dies would read faster
    /// (default 0). Absent from the plan hash when unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_overhead: Option<Duration>,
    /// Time a write spends in the controller's pipeline before it is reported done (its
    /// map update, the DMA's setup, the completion), held by no shared resource: many are
    /// under way at once, so it lengthens each write without lowering the drive's rate
    /// (default 0). NVMe controllers' several cores work this way.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_latency: Option<Duration>,
    /// Controller time per page of data a write carries (each page's map entry and ECC),
    /// after the command's `write_overhead`, as the data comes in (the last page's after
    /// its data is in): what a large write costs the controller beyond a small one.
    #[serde(default)]
    pub page_overhead: Option<Duration>,
    /// The data `page_overhead` is spent on (default: the page). A controller whose work is
    /// per unit of its map and ECC rather than per NAND page sets 4 KiB where its NAND's
    /// pages are larger (the Marvell 88SS9174's time, fitted on the C300's 4 KiB pages,
    /// carried to the m4's 8 KiB ones). A divisor of the page. Absent from the plan hash
    /// when unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_overhead_unit: Option<Size>,
    /// The controller combines small writes into a stripe (a page for every die and plane)
    /// and does their per-page work (`page_overhead`) for the whole stripe when its last
    /// page arrives, holding the commands behind it; default false (each write's pages as
    /// it arrives). Absent from the plan hash when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub combine_writes: bool,
    /// The controller takes writes into its buffer (`buffer`) until the next one does not
    /// fit, then writes the whole buffer out, every die programming its share at once, and
    /// takes no command or data until that is on NAND; default false (a page is programmed
    /// as soon as it fills, while writes keep coming). Page-mapped FTL only. Absent from
    /// the plan hash when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub flush_buffer: bool,
    /// The controller writes in stripes (a program on every die, strictly in turn) and its
    /// buffer (`buffer`) holds at most this many: it fills one while the ones before it
    /// program, and a stripe's room frees when its slowest program ends (1 to 8; default:
    /// no stripes, a page to the next free die as it fills). Page-mapped FTL only, not
    /// with `flush_buffer`. Absent from the plan hash when unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_stripes: Option<u32>,
    /// Flash channels.
    pub channels: u32,
    /// Dies on each channel (each an independent unit with its own busy time).
    pub dies_per_channel: u32,
    /// Transfer rate of one channel's bus.
    pub channel_rate: Rate,
    /// NAND page size.
    pub page: Size,
    /// Pages per erase block.
    pub pages_per_block: u32,
    /// Planes per die the controller programs and erases at once (multi-plane
    /// operations; default 1): a program writes one page on each plane in one program
    /// time, and the FTL's block is one block on each plane, erased together.
    #[serde(default)]
    pub planes: Option<u32>,
    /// How a die's planes read (default: one page a die at a time). Absent from the plan
    /// hash when unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plane_reads: Option<PlaneReads>,
    /// Cache reads (ONFI's read cache, NAND's since ONFI 1.0): a sensed page moves to its
    /// plane's cache register and crosses the channel from there while the die senses its
    /// next page; a plane's next page waits in the die for its register. Default false:
    /// the die is held until its page has crossed the channel. Absent from the plan hash
    /// when unset.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cache_reads: bool,
    /// Page read time (tR).
    pub read: Duration,
    /// Page program time (tPROG).
    pub program: Duration,
    /// Block erase time (tBERS).
    pub erase: Duration,
    /// MLC's paired pages: an upper page's program time over a lower page's (default 1:
    /// every page takes `program`). `program` stays their mean, so a die's sustained rate
    /// is unchanged; each die's programs alternate lower, upper. The era's MLC: 2.7 (850 µs
    /// against 2.3 ms, shared/reference/drives-and-nand.md). Absent from the plan hash
    /// when unset, as `ecc` is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upper_page_program: Option<f64>,
    /// MLC, TLC and QLC page types: an upper page's read time over a lower page's (an upper
    /// page's bit needs more sensing steps: two against one in MLC); `read` is their mean.
    /// Absent from the plan hash when unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upper_page_read: Option<f64>,
    /// TLC and QLC page types: the sensing steps a read of each of a wordline's pages
    /// takes, in the order the pages are written (a Gray code: they add up to 2^bits − 1,
    /// each read level belonging to one page; TLC's balanced code is `[2, 3, 2]`). A page's
    /// read takes `read` × (1 + its senses) over the pages' mean of that (the fixed part one
    /// sense's worth, as MLC's 1.5 says of senses 1 and 2). Instead of `upper_page_read`.
    /// Absent from the plan hash when unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_senses: Option<Vec<u32>>,
    /// 3D NAND's one-shot (full-sequence) programming: a native program writes all of a
    /// wordline's pages (as many as `read_senses` has, on each plane) at once, in that many
    /// times `program`, so no page type programs faster than another. Default false.
    /// Absent from the plan hash when unset.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub one_shot: bool,
    /// Programs' spread (incremental step-pulse programming: a page takes as many
    /// program-and-verify pulses as its slowest cell needs, so no two take the same time):
    /// each host program takes its page type's time × (1 ± up to this), drawn for each
    /// (default 0.2; the shape assumed, docs/simulated-drives.md). Absent from the plan
    /// hash when unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub program_spread: Option<f64>,
    /// Reads' spread from one read of a page to the next (default
    /// [`ReadSpreadSpec::DEFAULT`]; `{fastest: 1, slowest: 1}` for none). Absent from the
    /// plan hash when unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_spread: Option<ReadSpreadSpec>,
    /// The share of a write's controller time (`write_overhead` and `page_overhead`) spent
    /// when the program that holds its last page ends on its die (its map entries pointed at
    /// the page, its buffer released), whatever command the controller is serving then,
    /// which waits that long; the rest as the write comes in (default 0: all of it then).
    /// Page-mapped FTL that programs as pages fill (not `flush_buffer`). Absent from the plan
    /// hash when unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completion_share: Option<f64>,
    /// Bit errors in page reads and the controller's correction of them (default none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecc: Option<EccSpec>,
    /// Program and erase suspension for reads (default none: a read waits for the program
    /// or erase under way on its die). Absent from the plan hash when unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suspend: Option<SuspendSpec>,
    /// An SLC cache in front of TLC or QLC cells (default none). Absent from the plan hash
    /// when unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slc_cache: Option<SlcSpec>,
    /// The part of the logical-to-physical map the controller holds, where it holds less
    /// than all of it (a DRAM-less drive: its SRAM and the host memory buffer): a read whose
    /// map entry is not held reads the map's page from NAND first. Default: all of it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub map_cache: Option<Size>,
    /// Commands the drive holds at once (SATA's NCQ: 32); more wait in the host until one
    /// completes. Default: as many as the host sends (NVMe's deep submission queues).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue_slots: Option<u32>,
    /// Bytes of NAND on board; what exceeds the user capacity is spare area.
    pub raw_capacity: Size,
    /// Write buffer (DRAM or SRAM) in front of the NAND.
    pub buffer: Size,
    /// The FTL: `page` (page-mapped, greedy garbage collection) or `block` (block-mapped
    /// with a small log area, merged when it runs out).
    pub ftl: FtlKind,
    /// Block FTL: log blocks.
    #[serde(default)]
    pub log_blocks: Option<u32>,
    /// Page FTL: garbage collection starts when a die has this many free blocks left.
    #[serde(default)]
    pub gc_free_blocks: Option<u32>,
    /// Page FTL: the victim policy, `greedy` (fewest valid pages) or `fifo` (oldest
    /// written, as early firmware did).
    #[serde(default)]
    pub gc_policy: Option<GcPolicy>,
    /// Page FTL: where garbage collection runs. `background` (default): on the collecting
    /// die while host writes go to the others; `foreground`: on the controller, which takes
    /// no host command until the victim's copies and erase are done.
    #[serde(default)]
    pub gc: Option<GcMode>,
    /// Page FTL: how stale data is tracked. Absent or 1: page by page. N: by
    /// write-combination vector, the N host pages the controller combined into one write
    /// (one a channel); a page overwritten or trimmed while others of its vector still hold
    /// data stays counted as valid, garbage collection copies it, and it is given back
    /// only when the last page of its vector goes stale (Intel's original X25-M firmware:
    /// "sub-block fragmentation").
    #[serde(default)]
    pub vector_pages: Option<u32>,
    /// Whether writes not aligned to the page are remapped (at `remap_cost` each); if not,
    /// the controller reads the partly written pages first (read-modify-write).
    pub remap: bool,
    /// Controller time to remap a write not aligned to the page.
    #[serde(default)]
    pub remap_cost: Option<Duration>,
    /// Inline compression of the data written (SandForce DuraWrite): NAND receives the
    /// LZ4-compressed size of each write's actual data.
    #[serde(default)]
    pub compression: bool,
    /// Start the drive used, as a reviewer's drive was: every logical page written. On a
    /// page-mapped FTL the stale copies are spread over the blocks as long random use with
    /// greedy garbage collection leaves them; on a block-mapped one every merge then copies
    /// whole blocks. Built directly, deterministically.
    #[serde(default)]
    pub aged: bool,
    /// With `aged`: the share of the logical pages that hold data (above 0, at most 1;
    /// default 1, every page). The pages without data are spread over the whole capacity
    /// and stay free, so a used drive that is not full has more room to collect into.
    #[serde(default)]
    pub full: Option<f64>,
    /// A used drive's past beyond what `aged` lays out: random writes played through the
    /// model when the drive is built, before any test, under the drive's firmware.
    #[serde(default)]
    pub history: Option<SsdHistory>,
    /// Controllers in RAID 0 behind the one host link (the G.Skill Titan's two JMF602B);
    /// the parameters above are then each controller's, and each holds an equal share of
    /// the capacity.
    #[serde(default = "one_controller")]
    pub controllers: u32,
    /// With several controllers: the RAID 0 stripe, the run of bytes on one controller
    /// before the next.
    #[serde(default)]
    pub stripe: Option<Size>,
    /// With several controllers: the host side's rate, where it is not `link_rate` (a host
    /// RAID 0 of drives has a link per drive, so its host side carries their sum).
    #[serde(default)]
    pub host_link_rate: Option<Rate>,
    /// With several controllers: the host side's cost per command, where it is not
    /// `command_overhead` (a host RAID 0 has no bridge: its driver's few µs, the commands
    /// themselves crossing each drive's link).
    #[serde(default)]
    pub host_command_overhead: Option<Duration>,
    /// Parameter sets by firmware revision: the drive's `firmware:` picks one, whose keys
    /// replace those above.
    #[serde(default)]
    pub firmwares: std::collections::BTreeMap<String, SsdFirmware>,
}

/// Writes a used drive went through before the lab got it (`ssd.history`): `writes` bytes
/// of random writes of `block_size`, aligned to it, uniform over the first `span` bytes,
/// one at a time. They go through the same FTL and garbage collection as a test's writes,
/// so what they leave (stale data, and the copies a write-combining firmware keeps) is the
/// model's, not a number in the file; the drive then idles until its buffer is on NAND. A
/// compressing controller stores them whole (as incompressible data).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SsdHistory {
    /// Bytes written in all.
    pub writes: Size,
    /// Each write's size and alignment (default: the page).
    #[serde(default)]
    pub block_size: Option<Size>,
    /// The writes fall in the first `span` bytes of the drive (default: all of it).
    #[serde(default)]
    pub span: Option<Size>,
    /// The seed of the offsets' random stream (ChaCha8), recorded with the drive file.
    pub seed: u64,
}

/// What a firmware revision changes in an SSD's parameters.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SsdFirmware {
    /// See [`SsdSpec::gc_policy`].
    #[serde(default)]
    pub gc_policy: Option<GcPolicy>,
    /// See [`SsdSpec::gc`].
    #[serde(default)]
    pub gc: Option<GcMode>,
    /// See [`SsdSpec::gc_free_blocks`].
    #[serde(default)]
    pub gc_free_blocks: Option<u32>,
    /// See [`SsdSpec::vector_pages`].
    #[serde(default)]
    pub vector_pages: Option<u32>,
    /// See [`SsdSpec::command_overhead`].
    #[serde(default)]
    pub command_overhead: Option<Duration>,
    /// Sustained random-write limiter: at most this many small (< 16 KiB) writes a second
    /// (the SF-1200 mass-production firmware's cap).
    #[serde(default)]
    pub small_write_iops: Option<u32>,
    /// See [`SsdSpec::remap_cost`].
    #[serde(default)]
    pub remap_cost: Option<Duration>,
    /// See [`SsdSpec::write_overhead`].
    #[serde(default)]
    pub write_overhead: Option<Duration>,
    /// See [`SsdSpec::page_overhead`].
    #[serde(default)]
    pub page_overhead: Option<Duration>,
}

/// The FTL of a simulated SSD.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FtlKind {
    /// Page-mapped, with garbage collection.
    Page,
    /// Block-mapped with a log area (JMicron JMF602 class).
    Block,
}

/// How a die's planes read pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PlaneReads {
    /// Multi-plane reads (ONFI's, and every NAND of the 2010s): one sense reads the pages
    /// at the same place in each plane, those the controller has been asked for when it
    /// starts the sense, as a multi-plane program wrote them (a sequential stream's).
    Multi,
    /// Synchronous multi-plane reads whose planes' page addresses may differ: one sense
    /// reads a page on each plane, any page, of those the controller has been asked for when
    /// it starts; the planes start and end together.
    Synchronous,
    /// Independent plane reads (the 3D NAND of about 2020 on): each plane senses its own
    /// page on its own, so a die reads as many pages at once as it has planes, at random
    /// as in order. Programs and erases still take the whole die.
    Independent,
}

/// Garbage-collection victim policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum GcPolicy {
    /// The block with the fewest valid pages.
    Greedy,
    /// The oldest written block.
    Fifo,
}

/// Where a page-mapped FTL collects garbage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum GcMode {
    /// On the collecting die, while host writes go to the other dies.
    Background,
    /// On the controller, holding host commands until the victim is collected.
    Foreground,
}

fn one_controller() -> u32 {
    1
}

/// Checks a used drive's history against its drive (`capacity` is a controller's share).
fn validate_history(h: &SsdHistory, s: &SsdSpec, capacity: u64) -> std::result::Result<(), String> {
    if s.controllers > 1 {
        return Err(
            "ssd.history: expected only on a drive of one controller (a RAID 0's members \
             would each need their own)"
                .into(),
        );
    }
    let block = h.block_size.map_or(s.page.0, |b| b.0);
    if block == 0 || block % 512 != 0 || block > 1 << 24 {
        return Err(format!(
            "ssd.history.block_size: expected a multiple of 512 B up to 16 MiB, found {block} B"
        ));
    }
    let span = h.span.map_or(capacity, |b| b.0);
    if span < block || span > capacity {
        return Err(format!(
            "ssd.history.span: expected from the block size ({block} B) to the drive's \
             capacity ({capacity} B), found {span} B"
        ));
    }
    if h.writes.0 < block || h.writes.0 > 16 * capacity {
        return Err(format!(
            "ssd.history.writes: expected from one block ({block} B) to 16 times the drive's \
             capacity ({} B), found {} B",
            16 * capacity,
            h.writes.0
        ));
    }
    Ok(())
}

/// Checks an SSD's parameters against each other and the capacity.
pub(super) fn validate_ssd(s: &SsdSpec, capacity: u64) -> std::result::Result<(), String> {
    validate_nand(s)?;
    validate_controllers(s)?;
    let planes = s.planes.unwrap_or(1);
    // Each controller holds its share of the capacity.
    let capacity = capacity / s.controllers as u64;
    validate_room(s, capacity)?;
    validate_ftl(s, planes)?;
    if s.half_duplex == Some(true) && s.data_half_duplex == Some(true) {
        return Err(
            "ssd.data_half_duplex: expected without half_duplex: true (which puts the \
                    commands on the wire with the data)"
                .into(),
        );
    }
    if s.frame_overhead.is_some() && s.half_duplex != Some(true) {
        return Err(
            "ssd.frame_overhead: expected only with half_duplex: true (a SATA link's frames)"
                .into(),
        );
    }
    if let Some(full) = s.full {
        if !s.aged {
            return Err("ssd.full: expected only on a used drive (aged: true)".into());
        }
        if !(full > 0.0 && full <= 1.0) {
            return Err(format!(
                "ssd.full: expected the share of the logical pages holding data, above 0 and \
                 at most 1, found {full}"
            ));
        }
    }
    if let Some(h) = &s.history {
        validate_history(h, s, capacity)?;
    }
    if s.buffer.0 < s.page.0 * planes as u64 {
        return Err("ssd.buffer: expected at least one page for each plane".into());
    }
    Ok(())
}

/// `read_senses` and `one_shot`: a Gray code of 2 to 4 bits, and nothing that contradicts it.
fn validate_page_types(s: &SsdSpec) -> std::result::Result<(), String> {
    if let Some(senses) = &s.read_senses {
        let bits = senses.len() as u32;
        let levels = 1u64 << bits.min(8);
        let total: u64 = senses.iter().map(|&n| n as u64).sum();
        if !(2..=4).contains(&bits) || senses.contains(&0) || total != levels - 1 {
            return Err(format!(
                "ssd.read_senses: expected the sensing steps of each page of a wordline, 2 to \
                 4 pages of at least 1 adding up to 2^pages − 1 (MLC [1, 2], TLC [2, 3, 2], \
                 QLC [4, 4, 4, 3]), found {senses:?}"
            ));
        }
        if s.upper_page_read.is_some() {
            return Err(
                "ssd.read_senses: give either read_senses or upper_page_read, not both".into(),
            );
        }
        if let Some(c) = s.slc_cache.as_ref().filter(|c| c.bits != bits) {
            return Err(format!(
                "ssd.read_senses: {bits} page types a wordline, but slc_cache.bits says {} \
                 bits a cell",
                c.bits
            ));
        }
    }
    if s.one_shot {
        if s.read_senses.is_none() {
            return Err(
                "ssd.one_shot: needs read_senses, whose pages a program writes at once \
                 (their number is the bits a cell)"
                    .into(),
            );
        }
        if s.ftl != FtlKind::Page {
            return Err(
                "ssd.one_shot: only a page-mapped FTL (ftl: page) programs wordlines \
                 whole here"
                    .into(),
            );
        }
        if s.upper_page_program.is_some() {
            return Err(
                "ssd.one_shot: a wordline's pages program together, so no page type \
                 has a program time of its own: drop upper_page_program"
                    .into(),
            );
        }
    }
    Ok(())
}

/// The NAND's geometry: dies, page, block, planes, and the write-combination vectors.
fn validate_nand(s: &SsdSpec) -> std::result::Result<(), String> {
    let units = s.channels as u64 * s.dies_per_channel as u64;
    if s.channels == 0 || s.dies_per_channel == 0 || units > 4096 {
        return Err(format!(
            "ssd.dies_per_channel: expected 1 to 4096 dies in all (channels × dies_per_channel), found {units}"
        ));
    }
    if !s.page.0.is_power_of_two() || !(512..=65536).contains(&s.page.0) {
        return Err(format!(
            "ssd.page: expected a power of two from 512 B to 64 KiB, found {} B",
            s.page.0
        ));
    }
    if !(8..=4096).contains(&s.pages_per_block) {
        return Err(format!(
            "ssd.pages_per_block: expected 8 to 4096, found {}",
            s.pages_per_block
        ));
    }
    let vector_pages = s
        .firmwares
        .iter()
        .map(|(fw, f)| (format!("firmwares.{fw}."), f.vector_pages));
    for (at, n) in std::iter::once((String::new(), s.vector_pages)).chain(vector_pages) {
        if let Some(n) = n.filter(|n| !(1..=4096).contains(n)) {
            return Err(format!(
                "ssd.{at}vector_pages: expected 1 (page by page) to 4096 host pages to a \
                 write-combination vector, found {n}"
            ));
        }
    }
    let planes = s.planes.unwrap_or(1);
    if !matches!(planes, 1 | 2 | 4 | MAX_PLANES) {
        return Err(format!(
            "ssd.planes: expected 1, 2, 4 or {MAX_PLANES}, found {planes}"
        ));
    }
    if s.plane_reads.is_some() && planes == 1 {
        return Err(
            "ssd.plane_reads: a die of one plane has no planes to read apart (set planes: 2 \
             or 4)"
                .into(),
        );
    }
    if let Some(r) = s.program_spread.filter(|r| !(0.0..1.0).contains(r)) {
        return Err(format!(
            "ssd.program_spread: expected a share of the program time, at least 0 and below \
             1, found {r}"
        ));
    }
    if let Some(r) = s
        .read_spread
        .filter(|r| !(0.5..=1.0).contains(&r.fastest) || !(1.0..=3.0).contains(&r.slowest))
    {
        return Err(format!(
            "ssd.read_spread: expected the fastest read 0.5 to 1 and the slowest 1 to 3 times \
             the typical one, found {} and {}",
            r.fastest, r.slowest
        ));
    }
    if let Some(r) = s.completion_share.filter(|r| !(0.0..=1.0).contains(r)) {
        return Err(format!(
            "ssd.completion_share: expected a share of a write's controller time, 0 to 1, \
             found {r}"
        ));
    }
    if let Some(r) = s.upper_page_program.filter(|r| !(1.0..=10.0).contains(r)) {
        return Err(format!(
            "ssd.upper_page_program: expected an upper page's program time over a lower \
             page's, 1 to 10, found {r}"
        ));
    }
    if let Some(r) = s.upper_page_read.filter(|r| !(1.0..=4.0).contains(r)) {
        return Err(format!(
            "ssd.upper_page_read: expected an upper page's read time over a lower page's, 1 \
             to 4, found {r}"
        ));
    }
    validate_page_types(s)?;
    if let Some(c) = &s.slc_cache {
        if !matches!(c.bits, 2..=4) {
            return Err(format!(
                "ssd.slc_cache.bits: expected the native bits a cell, 2 (MLC), 3 (TLC) or 4 \
                 (QLC), found {}",
                c.bits
            ));
        }
        if c.program.0 == 0 || c.program.0 > s.program.0 {
            return Err(format!(
                "ssd.slc_cache.program: expected an SLC program time above zero and at most \
                 the native `program` ({}), found {}",
                DurationLabel(s.program.0),
                DurationLabel(c.program.0)
            ));
        }
        if s.ftl != FtlKind::Page {
            return Err("ssd.slc_cache: expected with `ftl: page`".into());
        }
        if let Some(f) = c
            .flush
            .filter(|f| !(f.is_finite() && *f > 0.0 && *f <= 16.0))
        {
            return Err(format!(
                "ssd.slc_cache.flush: expected the bytes of cache flushed with each byte \
                 written natively, above 0 and at most 16, found {f}"
            ));
        }
        if let Some(r) = c.read.filter(|r| r.0 == 0 || r.0 > s.read.0) {
            return Err(format!(
                "ssd.slc_cache.read: expected an SLC-mode sense time above zero and at most \
                 the native `read` ({}), found {}",
                DurationLabel(s.read.0),
                DurationLabel(r.0)
            ));
        }
    }
    if s.map_cache.is_some_and(|m| m.0 < s.page.0) {
        return Err(format!(
            "ssd.map_cache: expected at least one map page ({} B)",
            s.page.0
        ));
    }
    if s.queue_slots == Some(0) {
        return Err("ssd.queue_slots: expected 1 or more commands".into());
    }
    if s.flush_buffer && s.ftl != FtlKind::Page {
        return Err(
            "ssd.flush_buffer: expected with `ftl: page` (a block-mapped FTL writes its cache \
             out whole already)"
                .into(),
        );
    }
    if let Some(n) = s.write_stripes {
        if !(1..=8).contains(&n) {
            return Err(format!(
                "ssd.write_stripes: expected the stripes the buffer holds, 1 to 8, found {n}"
            ));
        }
        if s.ftl != FtlKind::Page || s.flush_buffer {
            return Err(
                "ssd.write_stripes: expected with `ftl: page` and without `flush_buffer` \
                 (a buffer written out whole, or a block-mapped FTL's cache, has no stripes)"
                    .into(),
            );
        }
    }
    if let Some(u) = s.page_overhead_unit {
        if u.0 < 512 || s.page.0 % u.0 != 0 {
            return Err(format!(
                "ssd.page_overhead_unit: expected a divisor of the page ({} B) of 512 B or more, \
                 found {} B",
                s.page.0, u.0
            ));
        }
    }
    if let Some(u) = &s.suspend {
        if u.step.0 == 0 {
            return Err("ssd.suspend.step: expected a time between break points above 0".into());
        }
        if !(1..=100).contains(&u.max) {
            return Err(format!(
                "ssd.suspend.max: expected 1 to 100 suspensions an operation, found {}",
                u.max
            ));
        }
    }
    if let Some(e) = &s.ecc {
        if !(0.0..0.01).contains(&e.bit_error_rate) {
            return Err(format!(
                "ssd.ecc.bit_error_rate: expected a raw bit error rate from 0 to 0.01, found {}",
                e.bit_error_rate
            ));
        }
        if let Some(r) = e.retry.filter(|r| !(0.0..=0.5).contains(r)) {
            return Err(format!(
                "ssd.ecc.retry: expected the share of reads retried, 0 to 0.5, found {r}"
            ));
        }
        if e.decode_rate.is_some_and(|r| r.0.is_nan() || r.0 < 1e6) {
            return Err("ssd.ecc.decode_rate: expected a rate of 1 MB/s or more".into());
        }
        if e.encode_rate.is_some_and(|r| r.0.is_nan() || r.0 < 1e6) {
            return Err("ssd.ecc.encode_rate: expected a rate of 1 MB/s or more".into());
        }
        let codeword = e.codeword.map_or(512, |c| c.0);
        if codeword == 0 || s.page.0 % codeword != 0 || s.page.0 / codeword > 128 {
            return Err(format!(
                "ssd.ecc.codeword: expected a divisor of the page ({} B), at most 128 to a \
                 page, found {codeword} B",
                s.page.0
            ));
        }
    }
    Ok(())
}

/// One controller, or several in RAID 0 with a stripe and a host link.
fn validate_controllers(s: &SsdSpec) -> std::result::Result<(), String> {
    if !(1..=16).contains(&s.controllers) {
        return Err(format!(
            "ssd.controllers: expected 1 to 16, found {}",
            s.controllers
        ));
    }
    match (s.controllers, s.stripe) {
        (1, Some(_)) => {
            return Err("ssd.stripe: expected only with two or more `controllers`".into());
        }
        (2.., None) => {
            return Err(
                "ssd.stripe: expected a stripe size (e.g. 64KiB) with two or more `controllers`"
                    .into(),
            );
        }
        (1, None) if s.host_link_rate.is_some() => {
            return Err("ssd.host_link_rate: expected only with two or more `controllers`".into());
        }
        (1, None) if s.host_command_overhead.is_some() => {
            return Err(
                "ssd.host_command_overhead: expected only with two or more `controllers`".into(),
            );
        }
        (2.., Some(st)) if st.0 == 0 || st.0 % s.page.0 != 0 => {
            return Err(format!(
                "ssd.stripe: expected a whole number of pages ({} B each), found {} B",
                s.page.0, st.0
            ));
        }
        _ => {}
    }
    Ok(())
}

/// Room on every die for a controller's share of the capacity (`capacity`), the blocks
/// kept free for garbage collection, and within what the simulator's map can number.
fn validate_room(s: &SsdSpec, capacity: u64) -> std::result::Result<(), String> {
    let units = s.channels as u64 * s.dies_per_channel as u64;
    let planes = s.planes.unwrap_or(1);
    let on_each = if s.controllers > 1 {
        " on each controller"
    } else {
        ""
    };
    let block = s.page.0 * s.pages_per_block as u64 * planes as u64;
    let blocks_per_die = s.raw_capacity.0 / block / units;
    if blocks_per_die < 8 {
        return Err(format!(
            "ssd.raw_capacity: expected at least 8 erase blocks per die ({} B{on_each}: \
             {units} dies of {block} B blocks), found {} B ({blocks_per_die} blocks per die)",
            8 * units * block,
            s.raw_capacity.0
        ));
    }
    // Room for the user data in whole blocks on every die, plus the blocks each die keeps
    // free for garbage collection (`gc_free_blocks`, at least 2, under any firmware), one
    // open for writes and one being collected.
    let gc_free = s
        .firmwares
        .values()
        .filter_map(|f| f.gc_free_blocks)
        .chain(s.gc_free_blocks)
        .fold(2, u32::max) as u64;
    let reserve = gc_free + 2;
    let data_blocks = capacity.div_ceil(units * block);
    if blocks_per_die < data_blocks + reserve {
        return Err(format!(
            "ssd.raw_capacity: expected at least {} B (the capacity{on_each} in whole {block} B \
             blocks on each of {units} dies, plus {reserve} blocks per die kept for garbage \
             collection), found {} B",
            (data_blocks + reserve) * units * block,
            s.raw_capacity.0
        ));
    }
    if let Some(c) = &s.slc_cache {
        let spare = (blocks_per_die - data_blocks - reserve) * units * block;
        validate_slc_room(c, capacity, spare, on_each)?;
    }
    // The simulator's map packs a page number in 32 bits and a block number in 24.
    let pages = capacity.div_ceil(s.page.0);
    if pages >= 1 << 32 || blocks_per_die * units >= 1 << 24 {
        return Err(format!(
            "ssd.page: expected fewer pages to simulate: {pages} pages of {} B and {} blocks\
             {on_each} (at most 2^32 pages and 2^24 blocks); a larger page or block keeps a \
             large drive within them",
            s.page.0,
            blocks_per_die * units
        ));
    }
    Ok(())
}

/// An SLC cache that fits its drive: in SLC mode a byte of host data takes `bits` bytes of
/// native room, the static cache's from the spare area (`spare`: the raw capacity beyond
/// the user data's blocks and those kept for garbage collection), the dynamic cache's from
/// the user area. A larger cache than that would be one the model never fills (the
/// dynamic) or room the drive does not have (the static). With several controllers each
/// has its share of the capacity, its own NAND and its own cache (`on_each` says so).
fn validate_slc_room(
    c: &SlcSpec,
    capacity: u64,
    spare: u64,
    on_each: &str,
) -> std::result::Result<(), String> {
    let bits = c.bits as u64;
    // In the decimal units drive files give caches in, to one decimal.
    let size = |b: u64| match b {
        1_000_000_000.. => format!("{:.1} GB", b as f64 / 1e9),
        1_000_000.. => format!("{:.1} MB", b as f64 / 1e6),
        _ => format!("{b} B"),
    };
    if let Some(s) = c.r#static.filter(|s| s.0.saturating_mul(bits) > spare) {
        return Err(format!(
            "ssd.slc_cache.static: expected at most {} (in SLC mode a byte of cache takes \
             {bits} bytes of native room, the static cache's from the spare area: {} of raw \
             capacity{on_each} beyond the user data's blocks and those kept for garbage \
             collection), found {}",
            size(spare / bits),
            size(spare),
            size(s.0)
        ));
    }
    if let Some(d) = c.dynamic.filter(|d| d.0.saturating_mul(bits) > capacity) {
        return Err(format!(
            "ssd.slc_cache.dynamic: expected at most {} (in SLC mode a byte of cache takes \
             {bits} bytes of native room, the dynamic cache's from the user area: {}{on_each}), \
             found {}",
            size(capacity / bits),
            size(capacity),
            size(d.0)
        ));
    }
    Ok(())
}

/// What a block-mapped FTL takes and leaves out.
fn validate_ftl(s: &SsdSpec, planes: u32) -> std::result::Result<(), String> {
    if s.ftl == FtlKind::Block && s.log_blocks.unwrap_or(0) == 0 {
        return Err("ssd.log_blocks: expected at least 1 for a block-mapped FTL".into());
    }
    if s.ftl == FtlKind::Block {
        let page_only = [
            ("gc", s.gc.is_some()),
            ("gc_policy", s.gc_policy.is_some()),
            ("gc_free_blocks", s.gc_free_blocks.is_some()),
            (
                "vector_pages",
                s.vector_pages.is_some() || s.firmwares.values().any(|f| f.vector_pages.is_some()),
            ),
        ];
        if let Some((key, _)) = page_only.iter().find(|(_, set)| *set) {
            return Err(format!(
                "ssd.{key}: garbage collection is a page-mapped FTL's (ftl: page); a \
                 block-mapped one merges its log blocks instead"
            ));
        }
    }
    if s.ftl == FtlKind::Block && planes > 1 {
        return Err(
            "ssd.planes: multi-plane programs are modelled for a page-mapped FTL (ftl: page); \
             a block-mapped one writes a page at a time"
                .into(),
        );
    }
    Ok(())
}
