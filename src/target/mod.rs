//! Targets: what the engine drives. One [`Target`] trait for real drives (files and block
//! devices) and simulated ones; each opens an [`IoQueue`] per job, whose clock is real
//! (monotonic) or virtual.

mod buffer;
mod calendar;
mod deferred;
pub mod device;
pub mod diskstats;
mod file;
pub mod fio;
pub mod hdd;
mod remote;
pub mod sim;
pub mod ssd;
mod striped;
mod uring;
mod virtual_queue;

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

pub use crate::error::TargetError;
pub use buffer::AlignedBuf;
pub use file::{engine_refusal, no_poll_queues, FileTarget, PSYNC_MAX_SLOTS};
pub use remote::RemoteTarget;
pub use sim::SimpleSim;
pub use uring::RING_MAX_ENTRIES;

use crate::drive::{Bench, DriveSpec, TargetSpec};
use crate::error::Result;
use crate::io::EngineChoice;
use crate::io::{Command, IoRequest};
use crate::workload::IoOptions;

/// What kind of thing a target is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TargetKind {
    /// A regular file on a filesystem.
    File,
    /// A block device.
    BlockDevice,
    /// A simulated drive (virtual time).
    Simulated,
}

/// What a target reports about itself; recorded in every job manifest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TargetInfo {
    /// File, block device or simulated.
    pub kind: TargetKind,
    /// The path, for real targets.
    pub path: Option<String>,
    /// Usable bytes.
    pub capacity: u64,
    /// Smallest unit of direct I/O (offsets and sizes must be multiples).
    pub logical_block: u32,
    /// Physical block size, where known.
    pub physical_block: u32,
    /// Identity read from the device (model, serial, firmware, rotational, scheduler...).
    pub identity: BTreeMap<String, String>,
}

impl TargetInfo {
    /// What a simulated drive reports: the drive file's model and firmware, then `extra`
    /// identity keys; its capacity in whole logical blocks.
    pub(crate) fn simulated(
        drive: &DriveSpec,
        logical: u32,
        physical: u32,
        extra: &[(&str, &str)],
    ) -> TargetInfo {
        let mut identity = BTreeMap::new();
        identity.insert(
            "model".to_string(),
            format!("{} {}", drive.vendor, drive.model),
        );
        if let Some(fw) = &drive.firmware {
            identity.insert("firmware".to_string(), fw.clone());
        }
        for (k, v) in extra {
            identity.insert(k.to_string(), v.to_string());
        }
        TargetInfo {
            kind: TargetKind::Simulated,
            path: None,
            capacity: drive.capacity / logical as u64 * logical as u64,
            logical_block: logical,
            physical_block: physical,
            identity,
        }
    }
}

/// A finished I/O.
#[derive(Debug)]
pub struct Completion {
    /// The slot it was submitted on.
    pub slot: u32,
    /// The buffer, handed back.
    pub buf: AlignedBuf,
    /// Completion time on the queue's clock (ns).
    pub done_ns: u64,
    /// Failure, if any, as the operating system or model reported it.
    pub error: Option<String>,
}

/// A queue of in-flight I/Os for one job. The engine owns the loop; the queue only submits
/// and reaps.
pub trait IoQueue {
    /// Nanoseconds on this queue's clock since the job started.
    fn now(&self) -> u64;
    /// The engine serving the queue: `io_uring`, `psync` or the simulation model.
    fn engine(&self) -> &'static str;
    /// Starts `req` on `slot` with `buf` (its first `req.len` bytes are the data of a write);
    /// the buffer comes back with the completion.
    fn submit(&mut self, slot: u32, req: IoRequest, buf: AlignedBuf) -> Result<()>;
    /// Waits until at least one submitted I/O has completed and appends every completed one.
    fn reap(&mut self, out: &mut Vec<Completion>) -> Result<()>;
    /// Waits until an I/O completes (appending every completed one) or the clock reaches
    /// `until`, whichever comes first; with nothing in flight, until `until`.
    fn wait_until(&mut self, until: u64, out: &mut Vec<Completion>) -> Result<()>;
    /// A hint that `req` comes soon: a simulated drive starts fetching the state it will
    /// touch. Changes no result.
    fn prefetch(&self, _req: &IoRequest) {}
    /// Runs a trim or flush with nothing in flight and returns when it is done (a
    /// simulated queue's clock moves on by the time the drive takes).
    fn command(&mut self, cmd: Command) -> Result<()>;
}

/// A simulated target's queues behind a host that takes `latency` ns of its own a request
/// (a test's `host_latency`); a real target's as they are (its host is the machine's).
pub fn behind_host<'a>(
    kind: TargetKind,
    queues: Vec<Box<dyn IoQueue + Send + 'a>>,
    latency: u64,
) -> Vec<Box<dyn IoQueue + Send + 'a>> {
    if latency == 0 || kind != TargetKind::Simulated {
        return queues;
    }
    queues
        .into_iter()
        .map(|q| Box::new(virtual_queue::HostDelayed::new(q, latency)) as Box<dyn IoQueue + Send>)
        .collect()
}

/// A drive roundup can run jobs on.
pub trait Target: Send {
    /// What the target reports about itself.
    fn info(&self) -> &TargetInfo;
    /// Whether the target looks at write data (a compressing controller or a real device
    /// does; a model that ignores data lets the engine skip generating it).
    fn needs_data(&self) -> bool {
        true
    }
    /// Whether the target takes a buffer marked as fresh random bytes
    /// ([`AlignedBuf::mark_random`]) in place of the bytes: a model that looks only at how
    /// data compresses, for which the engine then skips generating incompressible data.
    fn random_as_mark(&self) -> bool {
        false
    }
    /// Whether the target serves several queues at once (one per engine thread). A target
    /// that does not (a simulation, whose state one queue owns) runs `threads × depth` in
    /// one queue instead.
    fn parallel(&self) -> bool {
        false
    }
    /// Discards `len` bytes from `offset` (TRIM): what a purge does before a test.
    fn trim(&mut self, offset: u64, len: u64) -> Result<()>;
    /// Leaves the drive idle for `ns` (a benchmark's interval between tests): a real drive
    /// is given the time (returning early once `stop` is set), a simulated one's clock moves
    /// on by it, its background work done meanwhile.
    fn idle(&mut self, ns: u64, stop: &std::sync::atomic::AtomicBool) {
        let end = std::time::Instant::now() + std::time::Duration::from_nanos(ns);
        while !stop.load(std::sync::atomic::Ordering::Relaxed) {
            let left = end.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                break;
            }
            std::thread::sleep(left.min(std::time::Duration::from_millis(100)));
        }
    }
    /// Opens `threads` queues of `depth` slots for a job, sharing one clock.
    fn queues(
        &mut self,
        threads: u32,
        depth: u32,
        engine: EngineChoice,
        io: &IoOptions,
    ) -> Result<Vec<Box<dyn IoQueue + Send + '_>>>;
    /// The block device under a real target, whose counters give the depth the device saw
    /// (none for a simulated drive, or a file with no block device under it).
    fn block_stat(&self) -> Option<diskstats::BlockStat> {
        None
    }
    /// The target as fio addresses it, for `engine: fio`: a file or device, here or on a
    /// bench. None for a simulated drive (its model is its own engine).
    fn fio_file(&self) -> Option<FioFile> {
        None
    }
}

/// A file or block device as fio reaches it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FioFile {
    /// The path, on this machine or on the bench.
    pub filename: String,
    /// The bench that runs fio on it; none for this machine.
    pub bench: Option<Bench>,
    /// File or block device.
    pub kind: TargetKind,
}

impl FioFile {
    /// The path as a job file's `filename=` takes it (fio splits file names at `:`).
    pub fn escaped(&self) -> String {
        self.filename.replace(':', "\\:")
    }

    /// A job file that creates the file with at least `size` bytes (allocated, nothing
    /// written) where it is missing or shorter, and does nothing else (`create_only`): what
    /// a bench's file needs before a replay, which fio opens without creating it.
    pub fn create_job(&self, size: u64) -> String {
        format!(
            "[create]\nfilename={}\nrw=write\nsize={size}\nallow_file_create=1\ncreate_only=1\n",
            self.escaped()
        )
    }

    /// A job file that discards `len` bytes from `offset`: a punched hole in a file (fio's
    /// `falloc` engine), a discard on a block device.
    pub fn trim_job(&self, offset: u64, len: u64) -> String {
        let engine = match self.kind {
            TargetKind::BlockDevice => "psync",
            _ => "falloc",
        };
        let bs = len.clamp(4096, 64 << 20);
        format!(
            "[purge]\nfilename={}\nioengine={engine}\nrw=trim\noffset={offset}\nsize={len}\nbs={bs}\n",
            self.escaped()
        )
    }
}

/// Opens the target of a drive. `writes` says whether the planned jobs write, so that the
/// safety checks run before anything is touched; `destroy` adds device names (from the
/// command line) whose data may be destroyed, beside the drive file's `destroy_data`.
pub fn open(
    spec: &DriveSpec,
    lab_root: &Path,
    writes: bool,
    destroy: &[String],
) -> Result<Box<dyn Target>> {
    match &spec.target {
        TargetSpec::Path(p) => match &p.bench {
            Some(bench) => Ok(Box::new(RemoteTarget::new(spec, p, bench, writes)?)),
            None => Ok(Box::new(FileTarget::open(
                &spec.id.0,
                &target_path(p, lab_root),
                p,
                writes,
                destroy,
            )?)),
        },
        TargetSpec::Ssd(_) => Ok(Box::new(deferred::Deferred::new(spec)?)),
        _ => build(spec),
    }
}

/// Builds a simulated drive, in full, now.
fn build(spec: &DriveSpec) -> Result<Box<dyn Target>> {
    match &spec.target {
        TargetSpec::Sim(sim) => Ok(Box::new(SimpleSim::new(spec, sim)?)),
        TargetSpec::Ssd(ssd) if ssd.controllers > 1 => {
            Ok(Box::new(striped::StripedSsd::new(spec, ssd)?))
        }
        TargetSpec::Ssd(ssd) => Ok(Box::new(ssd::SsdSim::new(spec, ssd)?)),
        TargetSpec::Hdd(hdd) => Ok(Box::new(hdd::HddSim::new(spec, hdd)?)),
        TargetSpec::Path(_) => {
            Err(TargetError::Internal("a file or device is opened, not built").into())
        }
    }
}

/// A file or device target's path: relative ones are in the lab.
fn target_path(p: &crate::drive::PathTarget, lab_root: &Path) -> std::path::PathBuf {
    if p.path.is_absolute() {
        p.path.clone()
    } else {
        lab_root.join(&p.path)
    }
}

/// What [`open`] would report about a drive's target, and the refusals it would make, with
/// nothing created or written: a run's preflight. A file or block device is opened
/// read-only and only its report returned; a simulated drive touches nothing outside the
/// process, so it is built and returned too, for the run to use.
pub fn probe(
    spec: &DriveSpec,
    lab_root: &Path,
    writes: bool,
    destroy: &[String],
) -> Result<(TargetInfo, Option<Box<dyn Target>>)> {
    match &spec.target {
        TargetSpec::Path(p) => match &p.bench {
            Some(bench) => {
                let target = RemoteTarget::new(spec, p, bench, writes)?;
                fio::bench_version(bench)?;
                Ok((target.info().clone(), None))
            }
            None => FileTarget::probe(&spec.id.0, &target_path(p, lab_root), p, writes, destroy)
                .map(|info| (info, None)),
        },
        _ => open(spec, lab_root, writes, destroy).map(|t| (t.info().clone(), Some(t))),
    }
}

/// A simulated drive's parameters that its model cannot run.
pub(crate) fn config_error(drive: &DriveSpec, message: &str) -> crate::error::Error {
    TargetError::Config {
        drive: drive.id.0.clone(),
        message: message.into(),
    }
    .into()
}
