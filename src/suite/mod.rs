//! Suites: named sets of tests as reviews define them (`suites/NAME.yaml`).
//!
//! The format is documented in docs/lab-format.md. Deserialization validates every field
//! as it is read, so that each error keeps the file, line, column and field it concerns.

use std::collections::BTreeSet;
use std::fmt;

use serde::{Deserialize, Deserializer, Serialize};

use crate::config::{
    checked_map, describe, scalar, scalar_or_map, Count, Duration, Fraction, Node, QueueDepth,
    Scalar, Size,
};
use crate::target::EngineChoice;
use crate::units::{size_token, SizeLabel};

/// A suite as written in `suites/NAME.yaml`.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Suite {
    /// Short name; must match the file name.
    pub name: Ident,
    /// Title shown on the site.
    pub title: String,
    /// Where the method comes from, shown under the title.
    #[serde(default)]
    pub description: Option<String>,
    /// Base seed of every random stream of the suite (offsets, sizes, data); default 0.
    #[serde(default)]
    pub seed: u64,
    /// The tests, in the order a review runs (and reads) them.
    pub tests: Vec<TestSpec>,
}

/// An identifier used in file names and URLs: lowercase letters, digits, `-`, `_`, `.`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Ident(pub String);

impl Ident {
    /// Checks `text` against the identifier rules.
    pub fn parse(text: &str) -> Result<Ident, String> {
        let ok = !text.is_empty()
            && text.len() <= 64
            && text
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "-_.".contains(c))
            && text
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphanumeric());
        if ok {
            Ok(Ident(text.to_string()))
        } else {
            Err(format!(
                "expected an identifier of lowercase letters, digits, '-', '_' and '.' (starting with a letter or digit, at most 64), found {text:?}"
            ))
        }
    }
}

impl<'de> Deserialize<'de> for Ident {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        scalar(d, "an identifier", |s| match s {
            Scalar::Str(t) => Ident::parse(t),
            other => Err(format!(
                "expected an identifier, found {}",
                other.describe()
            )),
        })
    }
}

impl fmt::Display for Ident {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// One test of a suite, before its variants are expanded.
#[derive(Debug, Clone, Serialize)]
pub struct TestSpec {
    /// Identifier, unique in the suite.
    pub id: Ident,
    /// Title as the review prints it.
    pub title: String,
    /// The workload of the base variant.
    pub workload: Workload,
    /// Repeats of every variant (bit-tech ran each test three times).
    pub repeats: u32,
    /// The headline figure of the test.
    pub metric: Metric,
    /// Whether a higher or a lower headline figure is better.
    pub better: Better,
    /// Dimensions that multiply the test.
    pub variants: Variants,
    /// The I/O engine for real targets, if the test names one.
    pub engine: Option<EngineChoice>,
}

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
    /// How offsets beyond the span are remapped.
    pub remap: Remap,
}

/// `trace: FILE`, `trace: {file: FILE, format: NAME}` or
/// `trace: {generate: {profile: NAME, seed: N}}`.
#[derive(Debug, Clone, PartialEq)]
struct TraceRef(TraceInput);

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
            data: DataKind::Incompressible,
            compressible_fraction: 0.25,
            precondition: Precondition::default(),
            steady_state: None,
            replay: None,
        }
    }

    /// Whether running this workload (preconditioning included) writes to the target.
    pub fn writes(&self) -> bool {
        // A trace is assumed to write (the safety checks run before it is read).
        self.operation.writes()
            || self.replay.is_some()
            || self.precondition.purge
            || self.precondition.fill > 0
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
}

impl<'de> Deserialize<'de> for SteadyState {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        checked_map(d, "max_rounds and window", SteadyState::from_raw)
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

/// One block size or a weighted mix, sorted by size.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BlockSizes(pub Vec<(u64, u32)>);

impl BlockSizes {
    /// The smallest size of the mix.
    pub fn min(&self) -> u64 {
        self.0.iter().map(|(s, _)| *s).min().unwrap_or(0)
    }
    /// The largest size of the mix.
    pub fn max(&self) -> u64 {
        self.0.iter().map(|(s, _)| *s).max().unwrap_or(0)
    }
    /// Label such as `4 KiB` or `4 KiB 30%, 16 KiB 11%`.
    pub fn label(&self) -> String {
        if self.0.len() == 1 {
            return SizeLabel(self.0[0].0).to_string();
        }
        let total: u32 = self.0.iter().map(|(_, w)| w).sum();
        self.0
            .iter()
            .map(|(s, w)| {
                format!(
                    "{} {}%",
                    SizeLabel(*s),
                    (*w as f64 * 100.0 / total as f64).round()
                )
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

fn block_size(text: &str) -> Result<u64, String> {
    match crate::units::parse_size(text)? {
        0 => Err("expected a block size above zero, found 0".into()),
        b if b > u32::MAX as u64 => {
            Err(format!("expected a block size below 4 GiB, found {text:?}"))
        }
        b => Ok(b),
    }
}

impl<'de> Deserialize<'de> for BlockSizes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        scalar_or_map(
            d,
            "a block size such as 4KiB, or a weighted mix such as {4KiB: 30, 16KiB: 11}",
            |node| {
                let mut sizes = match node {
                    Node::Map(m) => {
                        if m.is_empty() {
                            return Err("expected at least one block size in the mix".into());
                        }
                        let mut out = Vec::new();
                        for (k, w) in &m {
                            let text = match k {
                                serde_yaml::Value::String(s) => s.clone(),
                                serde_yaml::Value::Number(n) => n.to_string(),
                                other => {
                                    return Err(format!(
                                        "expected a block size such as 4KiB, found {}",
                                        describe(other)
                                    ))
                                }
                            };
                            let weight = w
                                .as_u64()
                                .filter(|w| (1..=1_000_000).contains(w))
                                .ok_or_else(|| {
                                    format!(
                                        "expected a weight from 1 to 1000000 for {text}, found {}",
                                        describe(w)
                                    )
                                })?;
                            out.push((block_size(&text)?, weight as u32));
                        }
                        out
                    }
                    Node::Scalar(s) => match s.text() {
                        Some(t) => vec![(block_size(&t)?, 1)],
                        None => {
                            return Err(format!(
                                "expected a block size such as 4KiB, found {}",
                                s.describe()
                            ))
                        }
                    },
                };
                sizes.sort();
                if sizes.windows(2).any(|w| w[0].0 == w[1].0) {
                    return Err("expected each block size once in the mix".into());
                }
                Ok(BlockSizes(sizes))
            },
        )
    }
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
}

impl Length {
    /// Label such as `3 min` or `100000 I/Os`.
    pub fn label(&self) -> String {
        match self {
            Length::Duration(ns) => crate::units::DurationLabel(*ns).to_string(),
            Length::Count(u64::MAX) => "the whole trace".into(),
            Length::Count(n) => format!("{n} I/Os"),
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

/// The dimensions that multiply a test; each combination is a variant, stored and charted
/// on its own. Dimensions combine in this order: data, align, queue_depth, block_size.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Variants {
    /// Data patterns.
    #[serde(default)]
    pub data: Vec<DataKind>,
    /// Alignments.
    #[serde(default)]
    pub align: Vec<Size>,
    /// Queue depths.
    #[serde(default)]
    pub queue_depth: Vec<QueueDepth>,
    /// Single block sizes.
    #[serde(default)]
    pub block_size: Vec<Size>,
}

/// One combination of variant values, with its id and label.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Variant {
    /// Path-safe id: `base`, or `data-compressible_align-512b`.
    pub id: String,
    /// Label for people: `compressible, 512 B aligned`.
    pub label: String,
    /// `dimension=value` pairs in combination order.
    pub settings: Vec<(String, String)>,
}

/// One value of one variant dimension.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Setting {
    Data(DataKind),
    Align(u64),
    QueueDepth(u32),
    BlockSize(u64),
}

impl Setting {
    /// The dimension's short name in variant ids.
    fn dimension(&self) -> &'static str {
        match self {
            Setting::Data(_) => "data",
            Setting::Align(_) => "align",
            Setting::QueueDepth(_) => "qd",
            Setting::BlockSize(_) => "bs",
        }
    }
    /// The value in variant ids: `compressible`, `512b`, `32`, `128k`.
    fn token(&self) -> String {
        match self {
            Setting::Data(d) => d.word().to_string(),
            Setting::Align(a) | Setting::BlockSize(a) => size_token(*a),
            Setting::QueueDepth(q) => q.to_string(),
        }
    }
    /// The value for people: `compressible`, `512 B aligned`, `QD32`, `128 KiB`.
    fn label(&self) -> String {
        match self {
            Setting::Data(d) => d.word().to_string(),
            Setting::Align(a) => format!("{} aligned", SizeLabel(*a)),
            Setting::QueueDepth(q) => format!("QD{q}"),
            Setting::BlockSize(b) => SizeLabel(*b).to_string(),
        }
    }
    fn apply(&self, w: &mut Workload) {
        match *self {
            Setting::Data(d) => w.data = d,
            Setting::Align(a) => w.align = a,
            Setting::QueueDepth(q) => w.queue_depth = q,
            Setting::BlockSize(b) => w.block_size = BlockSizes(vec![(b, 1)]),
        }
    }
}

impl TestSpec {
    /// Expands the variants into (variant, workload) pairs in a stable order: dimensions
    /// in the order data, align, queue_depth, block_size, values as written.
    pub fn expand(&self) -> Vec<(Variant, Workload)> {
        let v = &self.variants;
        let dimensions: Vec<Vec<Setting>> = [
            v.data.iter().map(|d| Setting::Data(*d)).collect::<Vec<_>>(),
            v.align.iter().map(|a| Setting::Align(a.0)).collect(),
            v.queue_depth
                .iter()
                .map(|q| Setting::QueueDepth(q.0))
                .collect(),
            v.block_size
                .iter()
                .map(|b| Setting::BlockSize(b.0))
                .collect(),
        ]
        .into_iter()
        .filter(|d| !d.is_empty())
        .collect();
        let mut combos: Vec<Vec<Setting>> = vec![vec![]];
        for dim in &dimensions {
            combos = combos
                .iter()
                .flat_map(|c| dim.iter().map(move |s| [c.as_slice(), &[*s]].concat()))
                .collect();
        }
        combos
            .into_iter()
            .map(|settings| {
                let mut w = self.workload.clone();
                settings.iter().for_each(|s| s.apply(&mut w));
                let variant = if settings.is_empty() {
                    Variant {
                        id: "base".into(),
                        label: String::new(),
                        settings: vec![],
                    }
                } else {
                    Variant {
                        id: settings
                            .iter()
                            .map(|s| format!("{}-{}", s.dimension(), s.token()))
                            .collect::<Vec<_>>()
                            .join("_"),
                        label: settings
                            .iter()
                            .map(Setting::label)
                            .collect::<Vec<_>>()
                            .join(", "),
                        settings: settings
                            .iter()
                            .map(|s| (s.dimension().to_string(), s.token()))
                            .collect(),
                    }
                };
                (variant, w)
            })
            .collect()
    }
}

impl Workload {
    /// The workload as a chart subtitle: `4 KiB random write, QD3, 8 GiB span, 3 min`.
    pub fn describe(&self) -> String {
        if let Some(r) = &self.replay {
            let name = r.trace.label();
            return match r.mode {
                ReplayMode::AsFastAsPossible => format!(
                    "replay of {name}, as fast as possible, up to QD{}, {}",
                    self.queue_depth,
                    self.span.label()
                ),
                ReplayMode::Timed => format!(
                    "replay of {name} at its recorded times (×{}), {}",
                    r.time_scale,
                    self.span.label()
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
        if self.operation.writes() {
            s.push_str(&format!(", {} data", self.data.word()));
        }
        s
    }
}

fn threads<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
    crate::config::whole_number(d, 1, 256).map(|n| Some(n as u32))
}

/// The test as written; validated into [`TestSpec`].
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTest {
    id: Ident,
    title: String,
    #[serde(default)]
    kind: TestKind,
    #[serde(default)]
    operation: Option<Operation>,
    #[serde(default)]
    pattern: Option<Pattern>,
    #[serde(default)]
    block_size: Option<BlockSizes>,
    #[serde(default)]
    trace: Option<TraceRef>,
    #[serde(default)]
    mode: Option<ReplayMode>,
    #[serde(default)]
    time_scale: Option<f64>,
    #[serde(default)]
    remap: Option<Remap>,
    #[serde(default)]
    align: Option<Size>,
    span: Span,
    queue_depth: QueueDepth,
    #[serde(default, deserialize_with = "threads")]
    threads: Option<u32>,
    #[serde(default)]
    engine: Option<EngineChoice>,
    #[serde(default)]
    duration: Option<Duration>,
    #[serde(default)]
    count: Option<Count>,
    #[serde(default)]
    warmup: Option<Duration>,
    #[serde(default)]
    repeats: Option<Count>,
    metric: Metric,
    #[serde(default)]
    better: Option<Better>,
    #[serde(default)]
    data: Option<DataKind>,
    #[serde(default)]
    compressible_fraction: Option<Fraction>,
    #[serde(default)]
    precondition: Precondition,
    #[serde(default)]
    steady_state: Option<SteadyState>,
    #[serde(default)]
    variants: Variants,
}

impl<'de> Deserialize<'de> for TestSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        checked_map(d, "a test (a mapping of its keys)", TestSpec::from_raw)
    }
}

impl TestSpec {
    /// Checks a test's keys against each other; an error names the key at its head.
    fn from_raw(raw: RawTest) -> Result<TestSpec, String> {
        let replay = match raw.kind {
            TestKind::Synthetic => {
                for (name, given) in [
                    ("trace", raw.trace.is_some()),
                    ("mode", raw.mode.is_some()),
                    ("time_scale", raw.time_scale.is_some()),
                    ("remap", raw.remap.is_some()),
                ] {
                    if given {
                        return Err(format!("{name}: applies to `kind: replay` tests"));
                    }
                }
                for (name, missing) in [
                    ("operation", raw.operation.is_none()),
                    ("pattern", raw.pattern.is_none()),
                    ("block_size", raw.block_size.is_none()),
                ] {
                    if missing {
                        return Err(format!("missing field `{name}` (a synthetic test needs operation, pattern and block_size)"));
                    }
                }
                None
            }
            TestKind::Replay => {
                for (name, given) in [
                    ("operation", raw.operation.is_some()),
                    ("pattern", raw.pattern.is_some()),
                    ("block_size", raw.block_size.is_some()),
                    ("duration", raw.duration.is_some()),
                    ("count", raw.count.is_some()),
                    ("steady_state", raw.steady_state.is_some()),
                ] {
                    if given {
                        return Err(format!(
                            "{name}: a replay test plays its trace, whole; leave `{name}` out"
                        ));
                    }
                }
                let Some(t) = raw.trace.clone() else {
                    return Err("missing field `trace` (a replay test needs the trace file)".into());
                };
                let scale = raw.time_scale.unwrap_or(1.0);
                if !(scale > 0.0 && scale.is_finite()) {
                    return Err(format!(
                        "time_scale: expected a number above zero, found {scale}"
                    ));
                }
                Some(ReplaySpec {
                    trace: t.0,
                    mode: raw.mode.unwrap_or_default(),

                    time_scale: scale,
                    remap: raw.remap.unwrap_or_default(),
                })
            }
        };
        let length = match (raw.duration, raw.count) {
            _ if replay.is_some() => Length::Count(u64::MAX),

            (Some(dur), None) if dur.0 > 0 => Length::Duration(dur.0),
            (Some(_), None) => return Err("duration: expected a duration above zero".into()),
            (None, Some(c)) => Length::Count(c.0),
            (Some(_), Some(_)) => {
                return Err("count: expected either `duration` or `count`, found both".into())
            }
            (None, None) => {
                return Err(
                    "expected a length: `duration` (e.g. 3m) or `count` (a number of I/Os)".into(),
                )
            }
        };
        if raw.steady_state.is_some() && !matches!(length, Length::Duration(_)) {
            return Err(
                "steady_state: rounds are `duration` long; give a duration, not a count".into(),
            );
        }
        if raw.repeats.is_some_and(|r| r.0 > 10_000) {
            return Err("repeats: expected a whole number from 1 to 10000".into());
        }
        let align = raw
            .align
            .map(|a| a.0)
            .unwrap_or_else(|| raw.block_size.as_ref().map(|b| b.min()).unwrap_or(512));
        // Without `align`, a test aligns its offsets to its smallest block.
        let key = if raw.align.is_some() {
            "align"
        } else {
            "block_size"
        };
        for (key, a) in std::iter::once((key, align))
            .chain(raw.variants.align.iter().map(|a| ("variants.align", a.0)))
        {
            if a % 512 != 0 {
                return Err(format!(
                    "{key}: expected a multiple of 512 bytes (O_DIRECT needs sector alignment; \
                     offsets are aligned to `align`, else to the smallest block), found {a} B"
                ));
            }
        }
        let dims = [
            ("data", raw.variants.data.len()),
            ("align", raw.variants.align.len()),
            ("queue_depth", raw.variants.queue_depth.len()),
            ("block_size", raw.variants.block_size.len()),
        ];
        for (name, n) in dims {
            let unique = match name {
                "data" => raw.variants.data.iter().collect::<BTreeSet<_>>().len(),
                "align" => raw
                    .variants
                    .align
                    .iter()
                    .map(|a| a.0)
                    .collect::<BTreeSet<_>>()
                    .len(),
                "queue_depth" => raw
                    .variants
                    .queue_depth
                    .iter()
                    .collect::<BTreeSet<_>>()
                    .len(),
                _ => raw
                    .variants
                    .block_size
                    .iter()
                    .map(|b| b.0)
                    .collect::<BTreeSet<_>>()
                    .len(),
            };
            if unique != n {
                return Err(format!("variants.{name}: expected each value once"));
            }
        }
        Ok(TestSpec {
            id: raw.id,
            title: raw.title,
            workload: Workload {
                operation: raw.operation.unwrap_or(Operation { read_percent: 100 }),
                pattern: raw.pattern.unwrap_or(Pattern::Random),
                block_size: raw.block_size.unwrap_or(BlockSizes(vec![(4096, 1)])),
                align,
                span: raw.span,
                queue_depth: raw.queue_depth.0,
                threads: raw.threads.unwrap_or(1),
                length,
                warmup_ns: raw.warmup.map(|w| w.0).unwrap_or(0),
                data: raw.data.unwrap_or(DataKind::Incompressible),
                compressible_fraction: raw.compressible_fraction.map(|f| f.0).unwrap_or(0.25),
                replay,
                precondition: raw.precondition,

                steady_state: raw.steady_state.map(|s| SteadyState {
                    track: match raw.metric {
                        Metric::Iops | Metric::MbPerS => raw.metric,
                        _ => Metric::LatMeanUs,
                    },
                    ..s
                }),
            },
            repeats: raw.repeats.map(|r| r.0 as u32).unwrap_or(1),
            better: raw.better.unwrap_or(raw.metric.default_better()),
            metric: raw.metric,
            variants: raw.variants,
            engine: raw.engine,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::from_yaml;
    use std::path::Path;

    const SUITE: &str = "name: t\ntitle: T\ntests:\n  - id: rw\n    title: RW\n    operation: write\n    pattern: random\n    block_size: 4KiB\n    span: 8GiB\n    queue_depth: 3\n    duration: 3m\n    metric: mb_per_s\n    variants:\n      data: [compressible, incompressible]\n      align: [512B, 4KiB]\n";

    #[test]
    fn a_subtitle_says_what_was_done_to_the_span_first() {
        let with = |pre: &str| {
            let text = SUITE.replace(
                "    metric: mb_per_s\n",
                &format!("    metric: mb_per_s\n    precondition: {pre}\n"),
            );
            let s: Suite = from_yaml(Path::new("t.yaml"), &text).unwrap();
            s.tests[0].expand()[0].1.describe()
        };
        assert_eq!(
            with("{}"),
            "4 KiB random write, QD3, 8 GiB span, 3 min, compressible data"
        );
        assert_eq!(
            with("{purge: true}"),
            "4 KiB random write, QD3, 8 GiB span, trimmed first, 3 min, compressible data"
        );
        assert_eq!(
            with("{fill: 1}"),
            "4 KiB random write, QD3, 8 GiB span, written once first, 3 min, compressible data"
        );
        assert_eq!(
            with("{purge: true, fill: 2}"),
            "4 KiB random write, QD3, 8 GiB span, trimmed and written twice first, 3 min, compressible data"
        );
    }

    #[test]
    fn variants_multiply_in_a_stable_order() {
        let s: Suite = from_yaml(Path::new("t.yaml"), SUITE).unwrap();
        let v = s.tests[0].expand();
        let ids: Vec<_> = v.iter().map(|(v, _)| v.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "data-compressible_align-512b",
                "data-compressible_align-4k",
                "data-incompressible_align-512b",
                "data-incompressible_align-4k"
            ]
        );
        assert_eq!(v[0].1.align, 512);
        assert_eq!(v[0].1.data, DataKind::Compressible);
        assert_eq!(v[3].1.align, 4096);
        assert_eq!(v[0].0.label, "compressible, 512 B aligned");
        assert_eq!(s.tests[0].better, Better::Higher);
    }

    #[test]
    fn operation_mix_and_block_mix() {
        let text = SUITE
            .replace("operation: write", "operation: {read: 70, write: 30}")
            .replace("block_size: 4KiB", "block_size: {16KiB: 11, 4KiB: 30}");
        let s: Suite = from_yaml(Path::new("t.yaml"), &text).unwrap();
        assert_eq!(s.tests[0].workload.operation.read_percent, 70);
        assert_eq!(
            s.tests[0].workload.block_size.0,
            vec![(4096, 30), (16384, 11)]
        );
        assert_eq!(s.tests[0].workload.align, 4096);
    }

    #[test]
    fn bad_values_name_the_field() {
        let text = SUITE.replace("queue_depth: 3", "queue_depth: 0");
        let e = from_yaml::<Suite>(Path::new("t.yaml"), &text).unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.yaml:10:18: tests[0].queue_depth: expected a whole number from 1 to 65535, found 0"
        );
        let text = SUITE.replace("pattern: random", "pattern: randm");
        let e = from_yaml::<Suite>(Path::new("t.yaml"), &text).unwrap_err();
        assert_eq!(e.field, "tests[0].pattern");
        assert_eq!(
            e.message,
            "unknown variant `randm` (did you mean `random`?), expected `random` or `sequential`"
        );
        let text = SUITE.replace("duration: 3m", "count: 100\n    duration: 3m");
        let e = from_yaml::<Suite>(Path::new("t.yaml"), &text).unwrap_err();
        assert!(e.message.contains("either `duration` or `count`"), "{e}");
        assert!(e.line >= 4, "{e}");
    }
}
