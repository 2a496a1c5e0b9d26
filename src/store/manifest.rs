//! The job manifest: the provenance of one job's samples.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::engine::Outcome;
use crate::workload::{IoOptions, OfRepeats, SampleKeep};

/// The manifest format this roundup writes.
pub const MANIFEST_FORMAT: u32 = 2;

/// The manifest formats this roundup reads: 1 recorded the wall clock and host of every
/// job; 2 leaves them out of a simulated drive's (null), whose results do not depend on
/// when or where they were computed.
pub const MANIFEST_FORMATS_READ: std::ops::RangeInclusive<u32> = 1..=MANIFEST_FORMAT;

/// An input file and the hash of its bytes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileRef {
    /// Path relative to the lab.
    pub path: String,
    /// SHA-256 of its content, hex.
    pub sha256: String,
}

/// What preconditioning did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PreconditionRecord {
    /// The span was discarded.
    pub purged: bool,
    /// Sequential 128 KiB incompressible passes over the span.
    pub fill_passes: u32,
    /// Bytes written by the passes.
    pub fill_bytes: u64,
    /// Target-clock seconds the passes took.
    pub fill_seconds: f64,
}

/// The machine a job ran on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Host {
    /// `uname -sr`.
    pub kernel: String,
    /// CPU model name.
    pub cpu: String,
    /// Logical CPUs.
    pub cpus: u32,
}

/// Everything needed to know where a job's samples came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobManifest {
    /// Manifest format version.
    pub format: u32,
    /// Job id (`drive/suite/test/variant/rN`).
    pub job: String,
    /// Drive id.
    pub drive: String,
    /// Drive as the site names it.
    pub drive_name: String,
    /// Firmware the results are filed under.
    pub firmware: String,
    /// Where the firmware came from: `drive file`, `device` or `unknown`.
    pub firmware_source: String,
    /// Suite name.
    pub suite: String,
    /// Suite title.
    pub suite_title: String,
    /// Test id.
    pub test: String,
    /// Test title.
    pub title: String,
    /// Variant id.
    pub variant: String,
    /// Variant label.
    pub variant_label: String,
    /// Repeat number, from 1.
    pub repeat: u32,
    /// The workload in words (chart subtitle).
    pub workload: String,
    /// Headline metric key.
    pub metric: String,
    /// `higher` or `lower`.
    pub better: String,
    /// Which figure of the test's repeats its charts show (absent: their mean).
    #[serde(default, skip_serializing_if = "OfRepeats::is_mean")]
    pub of_repeats: OfRepeats,
    /// The engine that served the job (`io_uring`, `psync`, `sim-simple`).
    pub engine: String,
    /// The engine asked for (`auto`, `io_uring`, `psync`).
    pub engine_requested: String,
    /// The test's engine options (registered buffers and files, polling, pinned CPUs);
    /// absent when none is set.
    #[serde(default, skip_serializing_if = "IoOptions::is_default")]
    pub engine_options: IoOptions,
    /// Seed of the job's random streams.
    pub seed: u64,
    /// The suite's base seed.
    pub suite_seed: u64,
    /// SHA-256 of what the job's results depend on (`run::plan_hash`): the planned job,
    /// the drive file, a replay's trace file and, on a simulated drive, the jobs of its
    /// suite before it. What `--resume` compares.
    pub plan_hash: String,
    /// roundup's version.
    pub roundup_version: String,
    /// roundup's git revision at build time.
    pub git_revision: String,
    /// The suite file.
    pub suite_file: FileRef,
    /// The drive file.
    pub drive_file: FileRef,
    /// For a replay, the file its trace comes from: the trace, or the profile a generated
    /// one follows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace_file: Option<FileRef>,
    /// The machine; none for a simulated drive.
    pub host: Option<Host>,
    /// The target as it reported itself.
    pub target: crate::target::TargetInfo,
    /// `monotonic` (real time) or `virtual` (simulated time).
    pub clock: String,
    /// Wall-clock start (RFC 3339, UTC); none for a simulated drive.
    pub started_at: Option<String>,
    /// Wall-clock end (RFC 3339, UTC); none for a simulated drive.
    pub finished_at: Option<String>,
    /// Warm-up excluded from the samples (ns of the target clock).
    pub warmup_ns: u64,
    /// Passes over the span, where the test ran for them (`passes:`): a sequential write
    /// of this kind is a whole-drive fill, charted against the bytes written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub passes: Option<u32>,
    /// Preconditioning done before this job, if any.
    #[serde(default)]
    pub precondition: Option<PreconditionRecord>,
    /// What the engine measured.
    pub outcome: Outcome,
    /// What the job kept of its I/Os (absent: `raw`, a row each).
    #[serde(default, skip_serializing_if = "SampleKeep::is_raw")]
    pub samples: SampleKeep,
    /// Rows in the samples file (0, with no file, when only a histogram is kept).
    pub samples_rows: u64,
    /// Of those rows, writes (absent from manifests written before roundup counted them):
    /// a job all of one kind needs no `op` column read to be analysed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub samples_writes: Option<u64>,
    /// SHA-256 of the samples file (empty when only a histogram is kept).
    pub samples_sha256: String,
    /// The histogram file, when the job kept one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub histogram: Option<HistogramRecord>,
    /// Anything else worth keeping (e.g. measured compressibility).
    #[serde(default)]
    pub extra: BTreeMap<String, String>,
}

/// A job's `histogram.parquet`: its rows, SHA-256 and resolution.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HistogramRecord {
    /// Rows (buckets) in the file.
    pub rows: u64,
    /// SHA-256 of the file.
    pub sha256: String,
    /// Latency sub-buckets per power of two, as a power of two.
    pub sub_bucket_bits: u32,
    /// Time buckets at most.
    pub time_buckets: u64,
}

/// The machine this process runs on (read once).
pub fn this_host() -> Host {
    static HOST: std::sync::OnceLock<Host> = std::sync::OnceLock::new();
    HOST.get_or_init(read_host).clone()
}

fn read_host() -> Host {
    let kernel = {
        // SAFETY: uname fills a zeroed struct we own.
        let mut u: libc::utsname = unsafe { std::mem::zeroed() };
        if unsafe { libc::uname(&mut u) } == 0 {
            let s = |f: &[libc::c_char]| {
                // SAFETY: uname NUL-terminates every field.
                unsafe { std::ffi::CStr::from_ptr(f.as_ptr()) }
                    .to_string_lossy()
                    .to_string()
            };
            format!("{} {}", s(&u.sysname), s(&u.release))
        } else {
            "unknown".into()
        }
    };
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|c| {
            c.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_string());
    let cpus = std::thread::available_parallelism()
        .map(|n| n.get() as u32)
        .unwrap_or(1);
    Host { kernel, cpu, cpus }
}
