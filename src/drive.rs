//! Drives: one YAML file per drive under `drives/`, naming what it is and how to reach it.

use std::path::PathBuf;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize};

use crate::config::{Duration, Ident, Rate, Size};
use crate::io::EngineChoice;

/// A drive as written in `drives/ID.yaml`.
#[derive(Debug, Clone, Serialize)]
pub struct DriveSpec {
    /// Identifier; must match the file name.
    pub id: Ident,
    /// Maker, e.g. `Intel`.
    pub vendor: String,
    /// Model, e.g. `X25-M G2`.
    pub model: String,
    /// Marketed capacity (decimal units as on the box).
    pub capacity: u64,
    /// Controller, e.g. `Intel PC29AS21BA0`.
    pub controller: Option<String>,
    /// Firmware revision; for a real device it may be left out and is then read from it.
    pub firmware: Option<String>,
    /// Host interface, e.g. `SATA 3Gb/s`.
    pub interface: Option<String>,
    /// The NAND, e.g. `34 nm MLC`, as the explorer's filter shows it. Descriptive only: not
    /// part of what a job's results depend on (the plan hash).
    #[serde(skip_serializing)]
    pub nand: Option<String>,
    /// How roundup reaches the drive.
    pub target: TargetSpec,
}

impl DriveSpec {
    /// `Intel X25-M G2 160 GB`: how the site names the drive.
    pub fn display_name(&self) -> String {
        let gb = self.capacity as f64 / 1e9;
        // Capacities as sold: whole numbers where they are (160 GB, 1 TB), else one decimal.
        let short = |v: f64| {
            if (v - v.round()).abs() < 0.05 {
                format!("{}", v.round())
            } else {
                format!("{v:.1}")
            }
        };
        let cap = if gb >= 1000.0 {
            format!("{} TB", short(gb / 1000.0))
        } else if gb >= 1.0 {
            format!("{} GB", short(gb))
        } else {
            format!("{} MB", short(gb * 1000.0))
        };
        format!("{} {} {}", self.vendor, self.model, cap)
    }
}

/// How roundup reaches a drive.
#[derive(Debug, Clone, Serialize)]
pub enum TargetSpec {
    /// A file or a block device.
    Path(PathTarget),
    /// A simulated SSD (`ssd:`).
    Ssd(Box<SsdSpec>),
    /// A simulated hard disk (`hdd:`).
    Hdd(HddSpec),
    /// A simulated drive.
    Sim(SimSpec),
}

impl TargetSpec {
    /// A model in virtual time rather than a file or device.
    pub fn simulated(&self) -> bool {
        !matches!(self, TargetSpec::Path(_))
    }
}

/// A file or block device target.
#[derive(Debug, Clone, Serialize)]
pub struct PathTarget {
    /// The file or device.
    pub path: PathBuf,
    /// For a file that does not exist yet: its size (roundup creates and fills it).
    pub size: Option<u64>,
    /// Allow writes to an existing file that roundup did not create.
    pub overwrite: bool,
    /// For a block device: the serial (or, for devices without one, the kernel name such as
    /// `loop3`) of the device whose data may be destroyed by write tests.
    pub destroy_data: Option<String>,
    /// The I/O engine, unless a test names one.
    pub engine: Option<EngineChoice>,
    /// The bench the drive sits in, when it is not this machine: an fio server that runs
    /// its jobs (`fio --client`); `path` is then a path on the bench.
    pub bench: Option<Bench>,
}

/// A test bench: a machine running `fio --server`, as `HOST[:PORT]` (port 8765, fio's,
/// unless named; an IPv6 address in brackets).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(into = "String")]
pub struct Bench {
    /// Host name or address.
    pub host: String,
    /// TCP port of the fio server.
    pub port: u16,
}

impl Bench {
    /// fio's default server port.
    pub const DEFAULT_PORT: u16 = 8765;

    /// `host,port`, as `fio --client` takes it.
    pub fn fio_client(&self) -> String {
        format!("{},{}", self.host, self.port)
    }

    /// Whether the bench is this machine (a server on the loopback address).
    pub fn is_loopback(&self) -> bool {
        self.host == "localhost"
            || self
                .host
                .parse::<std::net::IpAddr>()
                .is_ok_and(|ip| ip.is_loopback())
    }
}

impl std::fmt::Display for Bench {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.host.contains(':') {
            write!(f, "[{}]:{}", self.host, self.port)
        } else {
            write!(f, "{}:{}", self.host, self.port)
        }
    }
}

impl From<Bench> for String {
    fn from(b: Bench) -> String {
        b.to_string()
    }
}

impl std::str::FromStr for Bench {
    type Err = String;
    fn from_str(s: &str) -> Result<Bench, String> {
        let expected = || format!("expected HOST or HOST:PORT (an fio server), found {s:?}");
        let (host, port) = if let Some(rest) = s.strip_prefix('[') {
            let (host, after) = rest.split_once(']').ok_or_else(expected)?;
            match after {
                "" => (host, None),
                p => (host, Some(p.strip_prefix(':').ok_or_else(expected)?)),
            }
        } else {
            match s.split_once(':') {
                Some((h, p)) => (h, Some(p)),
                None => (s, None),
            }
        };
        let bad_host = host.is_empty()
            || host
                .chars()
                .any(|c| !(c.is_ascii_alphanumeric() || "-._:".contains(c)));
        if bad_host {
            return Err(expected());
        }
        let port = match port {
            None => Bench::DEFAULT_PORT,
            Some(p) => p
                .parse::<u16>()
                .ok()
                .filter(|&p| p > 0)
                .ok_or_else(expected)?,
        };
        Ok(Bench {
            host: host.to_string(),
            port,
        })
    }
}

impl<'de> Deserialize<'de> for Bench {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(D::Error::custom)
    }
}

/// Parameters of a simulated drive.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SimSpec {
    /// The model: `simple` (parallel units with service times).
    pub model: SimModel,
    /// Parallel units (dies or channels) serving requests concurrently.
    pub units: u32,
    /// Bytes placed on one unit before moving to the next.
    pub stripe: Size,
    /// Fixed cost of a read on a unit.
    pub read_latency: Duration,
    /// Fixed cost of a write on a unit.
    pub write_latency: Duration,
    /// Streaming rate of one unit for reads.
    pub read_rate: Rate,
    /// Streaming rate of one unit for writes.
    pub write_rate: Rate,
    /// Extra cost when a unit's access does not continue its previous one (seek, page open).
    #[serde(default)]
    pub reposition: Option<Duration>,
    /// Host link rate (SATA 3 Gbps ≈ 280MB/s usable).
    pub link_rate: Rate,
    /// Per-command cost on the host link.
    #[serde(default)]
    pub command_overhead: Option<Duration>,
    /// Logical block size the drive reports (default 512 B).
    #[serde(default)]
    pub logical_block: Option<Size>,
}

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
}

/// Parameters of a simulated SSD (`ssd:` in a drive file): its host link, controller,
/// NAND array and FTL. Figures come from modelling each request against these resources.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SsdSpec {
    /// Usable host link rate (SATA 3 Gbps ≈ 280MB/s, 6 Gbps ≈ 550MB/s).
    pub link_rate: Rate,
    /// Per-command cost on the link and in the controller.
    pub command_overhead: Duration,
    /// Controller time per write command (bookkeeping), one at a time: with
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
    /// after the command's `write_overhead`: what a large write costs the controller beyond
    /// a small one.
    #[serde(default)]
    pub page_overhead: Option<Duration>,
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

/// Parameters of a simulated hard disk (`hdd:` in a drive file).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct HddSpec {
    /// Spindle speed, revolutions per minute.
    pub rpm: u32,
    /// Usable host link rate.
    pub link_rate: Rate,
    /// Per-command cost on the link and in the controller.
    pub command_overhead: Duration,
    /// Seek to the next track.
    pub seek_track_to_track: Duration,
    /// Average seek (a third of the stroke).
    pub seek_average: Duration,
    /// Full-stroke seek.
    pub seek_full_stroke: Duration,
    /// Media rate on the outer tracks (the start of the disk).
    pub outer_rate: Rate,
    /// Media rate on the inner tracks (the end).
    pub inner_rate: Rate,
    /// Cache: write-back for writes, read-ahead for reads.
    pub cache: Size,
    /// How far the head reads ahead after a read.
    pub read_ahead: Size,
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

/// The simulation models roundup knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SimModel {
    /// Parallel units with per-operation service times and a shared host link.
    Simple,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDrive {
    id: Ident,
    vendor: String,
    model: String,
    capacity: Size,
    #[serde(default)]
    controller: Option<String>,
    #[serde(default)]
    firmware: Option<String>,
    #[serde(default)]
    interface: Option<String>,
    #[serde(default)]
    nand: Option<String>,
    #[serde(default)]
    path: Option<PathBuf>,
    #[serde(default)]
    size: Option<Size>,
    #[serde(default)]
    overwrite: bool,
    #[serde(default)]
    destroy_data: Option<String>,
    #[serde(default)]
    engine: Option<EngineChoice>,
    #[serde(default)]
    bench: Option<Bench>,
    #[serde(default)]
    sim: Option<SimSpec>,
    #[serde(default)]
    ssd: Option<SsdSpec>,
    #[serde(default)]
    hdd: Option<HddSpec>,
}

impl<'de> Deserialize<'de> for DriveSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut raw = RawDrive::deserialize(d)?;
        if let Some(fw) = &raw.firmware {
            if fw.is_empty() || fw.contains(['/', '\\', '=']) || fw.chars().any(char::is_control) {
                return Err(D::Error::custom(format!(
                    "firmware: expected a revision without '/', '\\', '=' or control characters, found {fw:?}"
                )));
            }
        }
        if raw.bench.is_some() && (raw.ssd.is_some() || raw.hdd.is_some() || raw.sim.is_some()) {
            return Err(D::Error::custom(
                "bench: expected only with a `path:` target (a simulated drive runs here)",
            ));
        }
        if let Some(hdd) = raw.hdd.take() {
            if raw.path.is_some() || raw.sim.is_some() || raw.ssd.is_some() {
                return Err(D::Error::custom(
                    "expected one target: `path:`, `sim:`, `ssd:` or `hdd:`, found several",
                ));
            }
            let d = &hdd;
            if d.rpm < 1000 || d.rpm > 20000 {
                return Err(D::Error::custom(format!(
                    "hdd.rpm: expected 1000 to 20000, found {}",
                    d.rpm
                )));
            }
            // The seek curve is fitted through the three: they must rise.
            if d.seek_track_to_track.0 > d.seek_average.0 {
                return Err(D::Error::custom(format!(
                    "hdd.seek_track_to_track: expected at most seek_average ({}), found {}",
                    d.seek_average, d.seek_track_to_track
                )));
            }
            if d.seek_average.0 >= d.seek_full_stroke.0 {
                return Err(D::Error::custom(format!(
                    "hdd.seek_average: expected below seek_full_stroke ({}), found {}",
                    d.seek_full_stroke, d.seek_average
                )));
            }
            if d.inner_rate.0 > d.outer_rate.0 || d.inner_rate.0 <= 0.0 {
                return Err(D::Error::custom(
                    "hdd.inner_rate: expected above zero and at most outer_rate",
                ));
            }
            return Ok(raw.into_spec(TargetSpec::Hdd(hdd)));
        }
        if let Some(ssd) = raw.ssd.take() {
            if raw.path.is_some() || raw.sim.is_some() {
                return Err(D::Error::custom(
                    "expected one target: `path:`, `sim:` or `ssd:`, found several",
                ));
            }
            validate_ssd(&ssd, raw.capacity.0).map_err(D::Error::custom)?;
            if let Some(fw) = &raw.firmware {
                if !ssd.firmwares.is_empty() && !ssd.firmwares.contains_key(fw) {
                    return Err(D::Error::custom(format!(
                        "firmware: expected one of the revisions under ssd.firmwares ({}), found {fw:?}",
                        ssd.firmwares.keys().cloned().collect::<Vec<_>>().join(", ")
                    )));
                }
            }
            return Ok(raw.into_spec(TargetSpec::Ssd(Box::new(ssd))));
        }
        let target = match (raw.path.take(), raw.sim.take()) {
            (Some(path), None) => {
                let p = PathTarget {
                    path,
                    size: raw.size.map(|s| s.0),
                    overwrite: raw.overwrite,
                    destroy_data: raw.destroy_data.take(),
                    engine: raw.engine,
                    bench: raw.bench.take(),
                };
                check_remote(&p).map_err(D::Error::custom)?;
                TargetSpec::Path(p)
            }
            (None, Some(sim)) => {
                if raw.size.is_some()
                    || raw.overwrite
                    || raw.destroy_data.is_some()
                    || raw.engine.is_some()
                {
                    return Err(D::Error::custom(
                        "size, overwrite, destroy_data and engine apply to `path:` targets, not to `sim:` drives",
                    ));
                }
                if sim.units == 0 || sim.units > 4096 {
                    return Err(D::Error::custom(format!(
                        "sim.units: expected a whole number from 1 to 4096, found {}",
                        sim.units
                    )));
                }
                TargetSpec::Sim(sim)
            }
            (Some(_), Some(_)) => {
                return Err(D::Error::custom(
                    "expected either `path:` or `sim:`, found both",
                ))
            }
            (None, None) => return Err(D::Error::custom(
                "expected a target: `path:` (a file or block device) or `sim:` (a simulated drive)",
            )),
        };
        Ok(raw.into_spec(target))
    }
}

/// A drive on a bench: its path is the bench's (absolute), its size stated (roundup cannot
/// look at the bench's files), and fio runs its jobs.
fn check_remote(p: &PathTarget) -> Result<(), String> {
    let Some(bench) = &p.bench else {
        return Ok(());
    };
    if !p.path.is_absolute() {
        return Err(format!(
            "path: expected an absolute path on bench {bench}, found {:?}",
            p.path.display().to_string()
        ));
    }
    if p.size.is_none() {
        return Err(format!(
            "size: expected the size of {} on bench {bench} (roundup cannot look at a \
             bench's files or devices)",
            p.path.display()
        ));
    }
    if p.engine.is_some_and(|e| e != EngineChoice::Fio) {
        return Err(format!(
            "engine: expected fio (or nothing) for a drive on bench {bench}: fio runs its jobs"
        ));
    }
    Ok(())
}

impl RawDrive {
    /// The drive, with its target.
    fn into_spec(self, target: TargetSpec) -> DriveSpec {
        DriveSpec {
            id: self.id,
            vendor: self.vendor,
            model: self.model,
            capacity: self.capacity.0,
            controller: self.controller,
            firmware: self.firmware,
            interface: self.interface,
            nand: self.nand,
            target,
        }
    }
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
fn validate_ssd(s: &SsdSpec, capacity: u64) -> std::result::Result<(), String> {
    validate_nand(s)?;
    validate_controllers(s)?;
    let planes = s.planes.unwrap_or(1);
    // Each controller holds its share of the capacity.
    let capacity = capacity / s.controllers as u64;
    validate_room(s, capacity)?;
    validate_ftl(s, planes)?;
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
    if !matches!(planes, 1 | 2 | 4) {
        return Err(format!("ssd.planes: expected 1, 2 or 4, found {planes}"));
    }
    if s.plane_reads.is_some() && planes == 1 {
        return Err(
            "ssd.plane_reads: a die of one plane has no planes to read apart (set planes: 2 \
             or 4)"
                .into(),
        );
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
                 the native `program` ({} µs), found {} µs",
                s.program.0 / 1000,
                c.program.0 / 1000
            ));
        }
        if s.ftl != FtlKind::Page {
            return Err("ssd.slc_cache: expected with `ftl: page`".into());
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

#[cfg(test)]
mod tests {
    use super::Bench;

    #[test]
    fn benches_are_read_as_host_and_port() {
        let b: Bench = "nvme-bench.lab".parse().unwrap();
        assert_eq!((b.host.as_str(), b.port), ("nvme-bench.lab", 8765));
        let b: Bench = "127.0.0.1:9000".parse().unwrap();
        assert_eq!(
            (b.to_string(), b.fio_client()),
            ("127.0.0.1:9000".into(), "127.0.0.1,9000".into())
        );
        assert!(b.is_loopback());
        let b: Bench = "[::1]:9000".parse().unwrap();
        assert_eq!(
            (b.host.as_str(), b.port, b.is_loopback()),
            ("::1", 9000, true)
        );
        assert!(!"10.0.0.2".parse::<Bench>().unwrap().is_loopback());
        for bad in ["", ":80", "host:0", "host:x", "a b", "[::1"] {
            assert!(bad.parse::<Bench>().is_err(), "{bad:?}");
        }
    }
}
