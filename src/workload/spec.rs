//! What a job does to a target, as a suite's test describes it: the operation and pattern,
//! block sizes, span, queue depth, length, data, preconditioning, steady state and, for a
//! replay, the trace. Each value is checked as it is read from YAML.

use serde::{Deserialize, Deserializer, Serialize};

use crate::config::{
    checked_map, describe, scalar, scalar_or_map, BlockSizes, Count, Node, Scalar,
};
use crate::units::SizeLabel;

/// What a job does to a target: everything the I/O generator needs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Workload {
    /// Read, write or a mix.
    pub operation: Operation,
    /// Random or sequential offsets.
    pub pattern: Pattern,
    /// One block size or a weighted mix.
    pub block_size: BlockSizes,
    /// Offsets are multiples of this many bytes.
    pub align: u64,
    /// How much of the target the offsets cover.
    pub span: Span,
    /// I/Os kept outstanding by each engine thread.
    pub queue_depth: u32,
    /// Engine threads, each with its own queue (CrystalDiskMark-style QD × threads).
    pub threads: u32,
    /// How long the measured part runs.
    pub length: Length,
    /// Run time before the measured part, excluded from the results (ns).
    pub warmup_ns: u64,
    /// Idle time before the test's first repeat (CrystalDiskMark's interval between
    /// tests), ns. Absent from the plan hash when 0.
    #[serde(skip_serializing_if = "is_zero")]
    pub interval_ns: u64,
    /// On a simulated drive: the review's host's own time per request, ns (its OS, driver
    /// and benchmark's): each request reaches the drive that long after it is issued, and
    /// its latency includes it. A real drive's runs have their host's own and ignore it.
    /// Absent from the plan hash when 0.
    #[serde(skip_serializing_if = "is_zero")]
    pub host_latency_ns: u64,
    /// What is written.
    pub data: DataKind,
    /// Random share of each block for `compressible` data.
    pub compressible_fraction: f64,
    /// What to do to the span before the first repeat of the test.
    pub precondition: Precondition,
    /// Rounds of `duration` until the SNIA steady-state criteria hold, if set.
    pub steady_state: Option<SteadyState>,
    /// For a `kind: replay` test: the trace played back instead of the synthetic requests.
    pub replay: Option<ReplaySpec>,
    /// An offered load: requests issued at this steady rate (the test's, shared by its
    /// threads), not as fast as the queue allows. Absent from the plan hash when unset.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rate: Option<RateLimit>,
    /// What the job keeps of its I/Os: a row each, a histogram, or both. Absent from the
    /// plan hash when `raw`.
    #[serde(skip_serializing_if = "SampleKeep::is_raw")]
    pub samples: SampleKeep,
    /// Bursts with idle time between them (AnandTech's burst test). Absent from the plan
    /// hash when unset.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub burst: Option<Burst>,
    /// How a real drive's engine sets up its rings and threads. Absent from the plan hash
    /// when all default.
    #[serde(skip_serializing_if = "IoOptions::is_default")]
    pub io: IoOptions,
}

/// How the engine of a real drive does its I/O (`io_uring:` and `cpus:` of a test), as
/// fio's `fixedbufs`, `registerfiles`, `hipri` and `cpus_allowed` (policy `split`) do. A
/// simulated drive has no rings: only the pinning applies to it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct IoOptions {
    /// The ring options (flat in a manifest: `fixed_buffers`, `fixed_files`, `hipri`).
    #[serde(flatten)]
    pub ring: RingOptions,
    /// CPUs the engine threads run on, one each in turn (thread `t` on `cpus[t % n]`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cpus: Vec<u32>,
}

impl IoOptions {
    /// Whether nothing is set: the engine's defaults.
    pub fn is_default(&self) -> bool {
        *self == IoOptions::default()
    }
}

/// A test's `io_uring:`: how each ring is set up, each option off unless set.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RingOptions {
    /// Each slot's buffer registered with the ring once (`READ_FIXED`/`WRITE_FIXED`: no
    /// page pinning per I/O).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fixed_buffers: bool,
    /// The file registered with the ring once (no file lookup per I/O).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fixed_files: bool,
    /// Completions polled on the device's poll queues (`IORING_SETUP_IOPOLL`), not
    /// interrupt-driven: needs a device with poll queues (NVMe's `poll_queues`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub hipri: bool,
}

impl RingOptions {
    /// Whether any option is set.
    pub fn any(&self) -> bool {
        *self != RingOptions::default()
    }
    /// The options set, by name: `fixed_buffers, fixed_files`.
    pub fn words(&self) -> Vec<&'static str> {
        [
            (self.fixed_buffers, "fixed_buffers"),
            (self.fixed_files, "fixed_files"),
            (self.hipri, "hipri"),
        ]
        .into_iter()
        .filter_map(|(on, w)| on.then_some(w))
        .collect()
    }
}

/// Bursts of I/O with the drive idle between them: `bytes` issued, then, once they have
/// completed, idle for as long as makes the burst `duty_cycle` of the time (AnandTech's
/// burst test: 32 MB of QD1 4 KiB random reads at a 20% duty cycle). A test's figures are
/// then its throughput while busy (the bursts' time, not the idle time).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Burst {
    /// Bytes issued per burst.
    pub bytes: u64,
    /// The bursts' share of the time, above 0 and at most 1.
    pub duty_cycle: f64,
}

/// A `burst:` as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBurst {
    size: crate::config::Size,
    duty_cycle: DutyCycle,
}

/// A share of the time: `20%` or `0.2`, above 0 and at most 1.
struct DutyCycle(f64);

impl<'de> Deserialize<'de> for DutyCycle {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        crate::config::scalar_text(d, "a share of the time such as 20%", |t| {
            match crate::config::parse_fraction(t) {
                Ok(f) if f > 0.0 => Ok(DutyCycle(f)),
                _ => Err(format!(
                    "expected a share of the time above 0% and at most 100% (or above 0 and \
                     at most 1), found {t:?}"
                )),
            }
        })
    }
}

impl<'de> Deserialize<'de> for Burst {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        checked_map(d, "size and duty_cycle", |r: RawBurst| {
            Ok(Burst {
                bytes: r.size.0,
                duty_cycle: r.duty_cycle.0,
            })
        })
    }
}

impl Burst {
    /// `in 32 MiB bursts, 20% of the time`.
    pub fn label(&self) -> String {
        let percent = self.duty_cycle * 100.0;
        let percent = if (percent - libm::round(percent)).abs() < 1e-9 {
            format!("{percent:.0}")
        } else {
            crate::units::figure(percent)
        };
        format!(
            "in {} bursts, {percent}% of the time",
            SizeLabel(self.bytes)
        )
    }
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Which figure of a test's repeats its charts show (`of_repeats: mean | best`): the mean
/// (default), or the best run, as CrystalDiskMark reports.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum OfRepeats {
    /// The mean of the repeats.
    #[default]
    Mean,
    /// The best repeat (highest, or lowest where lower is better).
    Best,
}

impl OfRepeats {
    /// Whether it is the default, the mean.
    pub fn is_mean(&self) -> bool {
        *self == OfRepeats::Mean
    }
}

/// What a job keeps of its I/Os (`samples: raw | histogram | both`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SampleKeep {
    /// A row per I/O (`samples.parquet`): every figure exact, any query later.
    #[default]
    Raw,
    /// Latency and time buckets (`histogram.parquet`): counts, means and extremes exact,
    /// percentiles within 0.2%, a few thousand rows however long the job.
    Histogram,
    /// Both files; the figures come from the rows.
    Both,
}

impl SampleKeep {
    /// Whether it is the default, a row per I/O.
    pub fn is_raw(&self) -> bool {
        *self == SampleKeep::Raw
    }
    /// Whether a row per I/O is kept.
    pub fn rows(&self) -> bool {
        *self != SampleKeep::Histogram
    }
    /// Whether a histogram is kept.
    pub fn histogram(&self) -> bool {
        *self != SampleKeep::Raw
    }
}

/// The rate a synthetic test issues at (`rate: 50000 IOPS` or `rate: 200MB/s`), as fio's
/// `rate_iops` and `rate` do: the enterprise QoS curve plots latency against it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub enum RateLimit {
    /// Requests per second.
    Iops(f64),
    /// Bytes per second (decimal MB/s as written).
    BytesPerSecond(f64),
}

impl RateLimit {
    /// `50000 IOPS`, `200 MB/s`: how a chart's subtitle says it.
    pub fn label(&self) -> String {
        match self {
            RateLimit::Iops(r) => format!("{} IOPS", crate::units::figure(*r)),
            RateLimit::BytesPerSecond(b) => format!("{} MB/s", crate::units::figure(b / 1e6)),
        }
    }

    /// The value in a variant id: `50000iops`, `200mbps` (a decimal point as `p`).
    pub fn token(&self) -> String {
        let (v, unit) = match self {
            RateLimit::Iops(r) => (*r, "iops"),
            RateLimit::BytesPerSecond(b) => (b / 1e6, "mbps"),
        };
        let n = crate::units::trim_float(v);
        format!("{}{unit}", n.replace('.', "p"))
    }

    /// Reads `50000 IOPS` (any case) or a rate such as `200MB/s`; above zero.
    pub fn parse(text: &str) -> Result<RateLimit, String> {
        let t = text.trim();
        let expected = || format!("expected a rate such as 50000 IOPS or 200MB/s, found {t:?}");
        let lower = t.to_ascii_lowercase();
        let r = match lower.strip_suffix("iops") {
            Some(n) => RateLimit::Iops(n.trim().parse::<f64>().map_err(|_| expected())?),
            None => RateLimit::BytesPerSecond(crate::units::parse_rate(t).map_err(|_| expected())?),
        };
        match r {
            RateLimit::Iops(v) | RateLimit::BytesPerSecond(v) if v.is_finite() && v > 0.0 => Ok(r),
            _ => Err(format!("expected a rate above zero, found {t:?}")),
        }
    }
}

impl<'de> Deserialize<'de> for RateLimit {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        crate::config::scalar_text(d, "a rate such as 50000 IOPS or 200MB/s", RateLimit::parse)
    }
}

/// What a test issues: synthetic requests, or a recorded trace.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TestKind {
    /// Requests from the workload's generator.
    #[default]
    Synthetic,
    /// Requests from a trace (storage-bench playback).
    Replay,
}

/// How a trace is played back.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ReplayMode {
    /// In the trace's order, each request as soon as the queue depth allows (the storage
    /// bench way, which isolates the drive).
    #[default]
    AsFastAsPossible,
    /// At the recorded issue times (scaled); how late each issue is gets recorded.
    Timed,
}

/// How offsets beyond the span are brought into it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Remap {
    /// Offset modulo the span.
    #[default]
    Modulo,
    /// Offsets scaled by span / the trace's highest offset.
    Scale,
}

/// Where a replay's trace comes from.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum TraceInput {
    /// A trace file (relative to the lab) in a format, or detected.
    File {
        /// The file.
        path: std::path::PathBuf,
        /// Its format, or detect it.
        format: Option<crate::trace::Format>,
    },
    /// Generated from a profile (`suites/profiles/NAME.yaml`) and a seed.
    Generate {
        /// Profile name or path.
        profile: String,
        /// Seed.
        seed: u64,
    },
}

impl TraceInput {
    /// How charts name the trace: the file name, or `the light profile (seed 1)`.
    pub fn label(&self) -> String {
        match self {
            TraceInput::File { path, .. } => path
                .file_name()
                .map(|n| n.to_string_lossy().to_string())
                .unwrap_or_default(),
            TraceInput::Generate { profile, seed } => {
                format!("the {profile} profile (seed {seed})")
            }
        }
    }
}

/// A trace played back by a `kind: replay` test.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReplaySpec {
    /// The trace.
    pub trace: TraceInput,

    /// As fast as possible, or timed.
    pub mode: ReplayMode,
    /// Timed mode: 2.0 plays twice as fast as recorded.
    pub time_scale: f64,
    /// Timed mode: idle gaps longer than this (ns of the trace) are cut to it, as
    /// AnandTech's Storage Bench caps them at 25 ms. Absent from the plan hash when unset.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_idle: Option<u64>,
    /// How offsets beyond the span are remapped.
    pub remap: Remap,
}

/// `trace: FILE`, `trace: {file: FILE, format: NAME}` or
/// `trace: {generate: {profile: NAME, seed: N}}`.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceRef(pub TraceInput);

impl<'de> Deserialize<'de> for TraceRef {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        const EXPECTED: &str =
            "a trace file, {file: FILE, format: NAME} or {generate: {profile: NAME, seed: N}}";
        scalar_or_map(d, EXPECTED, |node| match node {
            Node::Scalar(Scalar::Str(s)) if !s.is_empty() => Ok(TraceRef(TraceInput::File {
                path: s.into(),
                format: None,
            })),
            Node::Map(m) => {
                let (mut file, mut format, mut generate) = (None, None, None);
                for (k, v) in &m {
                    match k.as_str() {
                        Some("file") => {
                            file = Some(std::path::PathBuf::from(
                                v.as_str().ok_or("trace.file: expected a path")?,
                            ))
                        }
                        Some("format") => {
                            format = Some(
                                v.as_str()
                                    .ok_or("trace.format: expected a name")?
                                    .parse::<crate::trace::Format>()?,
                            )
                        }
                        Some("generate") => {
                            let g = v
                                .as_mapping()
                                .ok_or("trace.generate: expected {profile: NAME, seed: N}")?;
                            let mut profile = None;
                            let mut seed = 0;
                            for (gk, gv) in g {
                                match gk.as_str() {
                                    Some("profile") => profile = Some(gv.as_str().ok_or("trace.generate.profile: expected a name")?.to_string()),
                                    Some("seed") => seed = gv.as_u64().ok_or_else(|| format!("trace.generate.seed: expected a whole number, found {}", describe(gv)))?,
                                    _ => return Err(format!("trace.generate: unknown field {}, expected `profile` or `seed`", describe(gk))),
                                }
                            }
                            generate = Some(TraceInput::Generate {
                                profile: profile.ok_or("trace.generate: expected a `profile`")?,
                                seed,
                            });
                        }
                        _ => {
                            return Err(format!(
                                "trace: unknown field {}, expected `file`, `format` or `generate`",
                                describe(k)
                            ))
                        }
                    }
                }
                match (file, generate) {
                    (Some(path), None) => Ok(TraceRef(TraceInput::File { path, format })),
                    (None, Some(g)) if format.is_none() => Ok(TraceRef(g)),
                    _ => Err(format!("expected {EXPECTED}")),
                }
            }
            Node::Scalar(other) => Err(format!("expected {EXPECTED}, found {}", other.describe())),
        })
    }
}

impl Workload {
    /// A plain workload: one block size aligned to itself, incompressible data, one thread,
    /// no warm-up, preconditioning, steady state or replay.
    pub fn simple(
        read_percent: u8,
        pattern: Pattern,
        block: u64,
        span: Span,
        queue_depth: u32,
        length: Length,
    ) -> Workload {
        Workload {
            operation: Operation { read_percent },
            pattern,
            block_size: BlockSizes(vec![(block, 1)]),
            align: block,
            span,
            queue_depth,
            threads: 1,
            length,
            warmup_ns: 0,
            interval_ns: 0,
            host_latency_ns: 0,
            data: DataKind::Incompressible,
            compressible_fraction: 0.25,
            precondition: Precondition::default(),
            steady_state: None,
            replay: None,
            rate: None,
            samples: SampleKeep::Raw,
            burst: None,
            io: IoOptions::default(),
        }
    }

    /// Whether the job's own I/O writes: its operation, or a replay (a trace's writes are
    /// not in its operation, which is its reads' default), so its `data` is what it writes.
    pub fn issues_writes(&self) -> bool {
        self.operation.writes() || self.replay.is_some()
    }

    /// Whether running this workload (preconditioning included) writes to the target.
    pub fn writes(&self) -> bool {
        // A trace is assumed to write (the safety checks run before it is read).
        self.issues_writes() || self.precondition.purge || self.precondition.fill > 0
    }
}

/// Preconditioning before a test (before its first repeat, so that degradation across
/// repeats stays visible).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Precondition {
    /// Discard the whole span first (BLKDISCARD on a device, a punched hole in a file).
    #[serde(default)]
    pub purge: bool,
    /// Then write the span sequentially with 128 KiB incompressible writes this many times
    /// (SNIA's workload-independent preconditioning writes twice the capacity).
    #[serde(default)]
    pub fill: u32,
}

impl Precondition {
    /// What was done to the span before the test, for labels: `, trimmed first`,
    /// `, written twice first`; empty when nothing was.
    pub fn label(&self) -> String {
        let fill = match self.fill {
            0 => String::new(),
            1 => "written once".into(),
            2 => "written twice".into(),
            n => format!("written {n} times"),
        };
        match (self.purge, fill.is_empty()) {
            (false, true) => String::new(),
            (true, true) => ", trimmed first".into(),
            (false, false) => format!(", {fill} first"),
            (true, false) => format!(", trimmed and {fill} first"),
        }
    }
}

/// SNIA PTS steady state: rounds of the test until, over the last `window` rounds, the
/// tracked figure's range is within 20% of its average and the best-fit line's excursion
/// within 10%, or `max_rounds` have run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SteadyState {
    /// The most rounds to run.
    pub max_rounds: u32,
    /// Rounds in the measurement window (SNIA: 5).
    pub window: u32,
    /// The figure tracked: the test's metric (mean latency for the latency metrics).
    pub track: Metric,
}

/// A `steady_state:` as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSteadyState {
    max_rounds: Count,
    #[serde(default)]
    window: Option<Count>,
    #[serde(default)]
    round_major: Option<String>,
}

/// A test's `steady_state:`: the criteria, and for a round-major test (SNIA PTS: each round
/// runs every variant in turn) the variant whose figure decides.
#[derive(Debug, Clone, PartialEq)]
pub struct SteadyStateKey {
    /// Rounds, window and tracked figure.
    pub spec: SteadyState,
    /// The variant id tracked across rounds of every variant (`bs-4k_wr-100`).
    pub round_major: Option<String>,
}

impl<'de> Deserialize<'de> for SteadyStateKey {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        checked_map(
            d,
            "max_rounds, window and round_major",
            |r: RawSteadyState| {
                let round_major = r.round_major.clone();
                Ok(SteadyStateKey {
                    spec: SteadyState::from_raw(r)?,
                    round_major,
                })
            },
        )
    }
}

impl SteadyState {
    fn from_raw(r: RawSteadyState) -> Result<SteadyState, String> {
        let window = r.window.map(|w| w.0).unwrap_or(5);
        if !(2..=100).contains(&window) {
            return Err(format!(
                "window: expected a whole number from 2 to 100, found {window}"
            ));
        }
        if r.max_rounds.0 < window || r.max_rounds.0 > 10_000 {
            return Err(format!(
                "max_rounds: expected a whole number from the window ({window}) to 10000, found {}",
                r.max_rounds.0
            ));
        }
        // The tracked figure is set from the test's metric once the test is read.
        Ok(SteadyState {
            max_rounds: r.max_rounds.0 as u32,
            window: window as u32,
            track: Metric::Iops,
        })
    }
}

/// The mix of reads and writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Operation {
    /// Percentage of reads, 0 to 100 (0 = all writes).
    pub read_percent: u8,
}

impl Operation {
    /// A short word for labels: `read`, `write`, `70/30 read/write`.
    pub fn label(&self) -> String {
        match self.read_percent {
            100 => "read".into(),
            0 => "write".into(),
            r => format!("{r}/{} read/write", 100 - r),
        }
    }
    /// Whether any I/O of this workload writes.
    pub fn writes(&self) -> bool {
        self.read_percent < 100
    }
}

impl<'de> Deserialize<'de> for Operation {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        const EXPECTED: &str = "read, write, or a mix such as {read: 70, write: 30}";
        scalar_or_map(d, EXPECTED, |node| match node {
            Node::Scalar(Scalar::Str("read")) => Ok(Operation { read_percent: 100 }),
            Node::Scalar(Scalar::Str("write")) => Ok(Operation { read_percent: 0 }),
            Node::Map(m) => {
                let mut read = None;
                let mut write = None;
                for (k, val) in &m {
                    let pct = val.as_u64().filter(|p| *p <= 100).ok_or_else(|| {
                        format!(
                            "expected a percentage from 0 to 100, found {}",
                            describe(val)
                        )
                    })?;
                    match k.as_str() {
                        Some("read") => read = Some(pct),
                        Some("write") => write = Some(pct),
                        _ => return Err(format!("expected {EXPECTED}, found key {}", describe(k))),
                    }
                }
                let (r, w) = match (read, write) {
                    (Some(r), Some(w)) => (r, w),
                    (Some(r), None) => (r, 100 - r),
                    (None, Some(w)) => (100 - w, w),
                    (None, None) => return Err(format!("expected {EXPECTED}")),
                };
                if r + w != 100 {
                    return Err(format!(
                        "expected read and write percentages adding up to 100, found {r} + {w}"
                    ));
                }
                Ok(Operation {
                    read_percent: r as u8,
                })
            }
            Node::Scalar(other) => Err(format!("expected {EXPECTED}, found {}", other.describe())),
        })
    }
}

/// Where offsets come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Pattern {
    /// Uniformly random aligned offsets within the span.
    Random,
    /// Each I/O starts where the previous one ended, wrapping at the end of the span.
    Sequential,
}

/// How much of the target the offsets cover.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Span {
    /// The first this-many bytes.
    Bytes(u64),
    /// The whole target.
    Full,
}

impl Span {
    /// The span in bytes on a target of `capacity` bytes.
    pub fn resolve(&self, capacity: u64) -> u64 {
        match self {
            Span::Bytes(b) => *b,
            Span::Full => capacity,
        }
    }
    /// Label such as `8 GiB span` or `whole drive`.
    pub fn label(&self) -> String {
        match self {
            Span::Bytes(b) => format!("{} span", SizeLabel(*b)),
            Span::Full => "whole drive".into(),
        }
    }
}

impl<'de> Deserialize<'de> for Span {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        scalar(d, "a size such as 8GiB, or `full`", |s| match s {
            Scalar::Str("full") => Ok(Span::Full),
            other => match other.text().map(|t| crate::units::parse_size(&t)) {
                Some(Ok(0)) => Err("expected a span above zero or `full`, found 0".into()),
                Some(Ok(b)) => Ok(Span::Bytes(b)),
                Some(Err(e)) => Err(format!("{e} (or `full`)")),
                None => Err(format!(
                    "expected a size such as 8GiB or `full`, found {}",
                    other.describe()
                )),
            },
        })
    }
}

/// How long the measured part of a job runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Length {
    /// For this many nanoseconds (of the target's clock: real or simulated).
    Duration(u64),
    /// For this many I/Os.
    Count(u64),
    /// Until the span has been written (or read) this many times over, sequentially: a
    /// whole-drive fill. The engine runs it as the count of I/Os it takes
    /// ([`Length::for_span`]).
    Passes(u32),
}

impl Length {
    /// Label such as `3 min`, `100000 I/Os` or `the span once`.
    pub fn label(&self) -> String {
        match self {
            Length::Duration(ns) => crate::units::DurationLabel(*ns).to_string(),
            Length::Count(u64::MAX) => "the whole trace".into(),
            Length::Count(n) => format!("{n} I/Os"),
            Length::Passes(1) => "the span once".into(),
            Length::Passes(n) => format!("the span {n} times"),
        }
    }

    /// The length on a span of `span` bytes in blocks of `block` bytes: passes become the
    /// count of I/Os they take (at least one); the others are as they are.
    pub fn for_span(self, span: u64, block: u64) -> Length {
        match self {
            Length::Passes(n) => Length::Count((span / block.max(1)).max(1) * n as u64),
            other => other,
        }
    }
}

/// The data that writes carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DataKind {
    /// Fresh random bytes for every write.
    Incompressible,
    /// A fraction of each block random, the rest a fixed repeating pattern.
    Compressible,
    /// All zeros.
    Zeros,
}

impl DataKind {
    /// The word used in YAML, ids and labels.
    pub fn word(&self) -> &'static str {
        match self {
            DataKind::Incompressible => "incompressible",
            DataKind::Compressible => "compressible",
            DataKind::Zeros => "zeros",
        }
    }
}

/// The headline figure of a test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    /// I/O operations per second.
    Iops,
    /// Decimal megabytes per second.
    MbPerS,
    /// Mean latency in microseconds.
    LatMeanUs,
    /// 99th-percentile latency in microseconds.
    LatP99Us,
    /// Maximum latency in microseconds.
    LatMaxUs,
}

impl Metric {
    /// The key of this figure in summaries (`iops`, `mb_per_s`, ...).
    pub fn key(&self) -> &'static str {
        match self {
            Metric::Iops => "iops",
            Metric::MbPerS => "mb_per_s",
            Metric::LatMeanUs => "lat_mean_us",
            Metric::LatP99Us => "lat_p99_us",
            Metric::LatMaxUs => "lat_max_us",
        }
    }
    /// Which way is better when the suite does not say.
    pub fn default_better(&self) -> Better {
        match self {
            Metric::Iops | Metric::MbPerS => Better::Higher,
            _ => Better::Lower,
        }
    }
}

/// Whether a higher or a lower figure is better.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Better {
    /// Higher is better (throughput).
    Higher,
    /// Lower is better (latency).
    Lower,
}

impl Better {
    /// `higher is better` / `lower is better`.
    pub fn phrase(&self) -> &'static str {
        match self {
            Better::Higher => "higher is better",
            Better::Lower => "lower is better",
        }
    }
}

impl Workload {
    /// The workload as a chart subtitle: `4 KiB random write, QD3, 8 GiB span, 3 min`.
    pub fn describe(&self) -> String {
        if let Some(r) = &self.replay {
            let name = r.trace.label();
            return match r.mode {
                ReplayMode::AsFastAsPossible => format!(
                    "replay of {name}, as fast as possible, up to QD{}, {}, {} data",
                    self.queue_depth,
                    self.span.label(),
                    self.data.word()
                ),
                ReplayMode::Timed => format!(
                    "replay of {name} at its recorded times (×{}){}, {}, {} data",
                    r.time_scale,
                    r.max_idle.map_or(String::new(), |c| format!(
                        ", idle gaps cut to {}",
                        crate::units::DurationLabel(c)
                    )),
                    self.span.label(),
                    self.data.word()
                ),
            };
        }
        let pattern = match self.pattern {
            Pattern::Random => "random",
            Pattern::Sequential => "sequential",
        };
        let threads = if self.threads > 1 {
            format!(" × {} threads", self.threads)
        } else {
            String::new()
        };
        let mut s = format!(
            "{} {} {}, QD{}{threads}, {}{}, {}",
            self.block_size.label(),
            pattern,
            self.operation.label(),
            self.queue_depth,
            self.span.label(),
            self.precondition.label(),
            self.length.label()
        );
        if self.issues_writes() {
            s.push_str(&format!(", {} data", self.data.word()));
        }
        if let Some(r) = &self.rate {
            s.push_str(&format!(", offered at {}", r.label()));
        }
        if let Some(b) = &self.burst {
            s.push_str(&format!(", {}", b.label()));
        }
        if self.host_latency_ns > 0 {
            s.push_str(&format!(
                ", a simulated host's {} a request",
                crate::units::DurationLabel(self.host_latency_ns)
            ));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::RateLimit;

    #[test]
    fn offered_loads_are_read_in_iops_or_mb_per_s() {
        assert_eq!(RateLimit::parse("50000 IOPS"), Ok(RateLimit::Iops(50000.0)));
        assert_eq!(RateLimit::parse("2000iops"), Ok(RateLimit::Iops(2000.0)));
        assert_eq!(
            RateLimit::parse("200MB/s"),
            Ok(RateLimit::BytesPerSecond(200e6))
        );
        assert_eq!(RateLimit::Iops(50000.0).label(), "50000 IOPS");
        for bad in ["0 IOPS", "-5 IOPS", "fast", "NaN IOPS"] {
            assert!(RateLimit::parse(bad).is_err(), "{bad}");
        }
    }
}
