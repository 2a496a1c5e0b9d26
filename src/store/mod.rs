//! The store: raw samples as Parquet (zstd) and a JSON manifest per job, in a hive-style
//! layout under `results/`:
//!
//! `results/drive=D/firmware=F/suite=S/test=T/variant=V/repeat=N/{samples.parquet,manifest.json}`
//!
//! (`histogram.parquet` instead of, or beside, `samples.parquet` where the test keeps one.)
//!
//! Files are written under a temporary name and renamed when complete; the manifest is
//! written last, so a job is complete exactly when its manifest exists.

pub mod histogram;
mod manifest;
pub mod merge;
mod writer;

pub use histogram::{Histogram, Recorder, HISTOGRAM};
pub use manifest::{
    this_host, FileRef, HistogramRecord, Host, JobManifest, PreconditionRecord, MANIFEST_FORMAT,
    MANIFEST_FORMATS_READ,
};
pub use writer::{sample_schema, SampleWriter, ThreadSink, Written};

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// The name of the samples file in a job folder.
pub const SAMPLES: &str = "samples.parquet";
/// The name of the manifest in a job folder.
pub const MANIFEST: &str = "manifest.json";

/// Makes a firmware revision safe as a path component.
pub fn firmware_token(fw: &str) -> String {
    let t: String = fw
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    if t.is_empty() {
        "unknown".into()
    } else {
        t
    }
}

/// The folder of one job's results.
pub fn job_dir(
    results: &Path,
    drive: &str,
    firmware: &str,
    suite: &str,
    test: &str,
    variant: &str,
    repeat: u32,
) -> PathBuf {
    results
        .join(format!("drive={drive}"))
        .join(format!("firmware={}", firmware_token(firmware)))
        .join(format!("suite={suite}"))
        .join(format!("test={test}"))
        .join(format!("variant={variant}"))
        .join(format!("repeat={repeat}"))
}

impl JobManifest {
    /// The folder its job's results are filed in, relative to the results folder.
    pub fn folder(&self) -> PathBuf {
        job_dir(
            Path::new(""),
            &self.drive,
            &self.firmware,
            &self.suite,
            &self.test,
            &self.variant,
            self.repeat,
        )
    }
}

/// Writes `bytes` to `path` through a temporary file in the same folder, synced and renamed,
/// so that `path` never holds a partial file.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    write_renamed(path, bytes, true)
}

/// Writes `bytes` to `path` as [`write_atomic`] does, without waiting for the disk: for the
/// many files of a derived output (the site), which its writer flushes at once at the end
/// ([`sync_dir_fs`]). Never a partial file under the final name while the machine runs.
pub fn write_replaced(path: &Path, bytes: &[u8]) -> Result<()> {
    write_renamed(path, bytes, false)
}

fn write_renamed(path: &Path, bytes: &[u8], sync: bool) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let tmp = temp_name(path);
    let result = (|| {
        let mut f = fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        if sync {
            f.sync_all()?;
        }
        fs::rename(&tmp, path)
    })();
    if let Err(e) = result {
        let _ = fs::remove_file(&tmp);
        return Err(Error::io(path, e));
    }
    Ok(())
}

/// Flushes the file system holding `dir` to disk (`syncfs`): what [`write_replaced`] left
/// in memory, with one wait instead of one a file.
pub fn sync_dir_fs(dir: &Path) -> Result<()> {
    let f = fs::File::open(dir).map_err(|e| Error::io(dir, e))?;
    use std::os::fd::AsRawFd;
    // SAFETY: syncfs takes an open descriptor, valid while `f` lives.
    if unsafe { libc::syncfs(f.as_raw_fd()) } != 0 {
        return Err(Error::io(dir, std::io::Error::last_os_error()));
    }
    Ok(())
}

/// A column's values as `u64`s (cast first, if stored narrower): what the analysis and the
/// histogram reader copy out of a frame.
pub fn u64_values(s: &polars::prelude::Series) -> polars::prelude::PolarsResult<Vec<u64>> {
    let s = s.cast(&polars::prelude::DataType::UInt64)?;
    Ok(native_values(s.u64()?))
}

/// A numeric column's values (nulls as whatever the chunk holds there), copied chunk by
/// chunk into a vector of the right size (a flattened iterator has no length: the vector
/// would grow, copying tens of millions of values, as it was filled).
pub fn native_values<T: polars::prelude::PolarsNumericType>(
    ca: &polars::prelude::ChunkedArray<T>,
) -> Vec<T::Native> {
    let mut v = Vec::with_capacity(ca.len());
    for a in ca.downcast_iter() {
        v.extend_from_slice(a.values());
    }
    v
}

/// The temporary name used while `path` is being written (`.NAME.tmp-PID`).
pub fn temp_name(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    path.with_file_name(format!(".{name}.tmp-{}", std::process::id()))
}

/// Whether `name` is a temporary file's (`.NAME.tmp-PID`, `temp_name`) of a process no
/// longer alive: one killed before it could clean up (power loss, `kill -9`).
pub fn is_stale_temp(name: &str) -> bool {
    name.strip_prefix('.')
        .and_then(|n| n.rsplit_once(".tmp-"))
        .and_then(|(_, pid)| pid.parse::<u32>().ok())
        .is_some_and(|pid| {
            pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists()
        })
}

/// Removes the temporary files that killed runs left in `dir` (`is_stale_temp`): a real
/// drive's spill of raw samples can be gigabytes. Returns how many were removed.
pub fn remove_stale_temps(dir: &Path) -> usize {
    let Ok(entries) = fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .filter(|e| is_stale_temp(&e.file_name().to_string_lossy()))
        .filter(|e| fs::remove_file(e.path()).is_ok())
        .count()
}

/// A job found in the results: its manifest and where its samples are.
#[derive(Debug, Clone)]
pub struct StoredJob {
    /// The job folder.
    pub dir: PathBuf,
    /// Its manifest.
    pub manifest: JobManifest,
}

impl StoredJob {
    /// The samples file.
    pub fn samples(&self) -> PathBuf {
        self.dir.join(SAMPLES)
    }

    /// The histogram file.
    pub fn histogram(&self) -> PathBuf {
        self.dir.join(HISTOGRAM)
    }

    /// The files the job kept, each with the SHA-256 its manifest records.
    pub fn files(&self) -> Vec<(PathBuf, &str)> {
        let m = &self.manifest;
        let mut files = Vec::new();
        if m.samples.rows() {
            files.push((self.samples(), m.samples_sha256.as_str()));
        }
        if let Some(h) = &m.histogram {
            files.push((self.histogram(), h.sha256.as_str()));
        }
        files
    }

    /// Whether the job's files are the bytes its manifest hashed: a problem naming each
    /// one that is not (truncated, damaged or changed since the run wrote it) or cannot be
    /// read. A damaged file can still parse, and its figures would be published as the
    /// run's.
    pub fn check_files(&self) -> Vec<String> {
        let mut problems = Vec::new();
        for (file, sha) in self.files() {
            match crate::config::sha256_file(&file) {
                Ok(h) if h == sha => {}
                Ok(_) => problems.push(format!(
                    "{}: not the file its manifest hashed (truncated or changed)",
                    file.display()
                )),
                Err(e) => problems.push(format!("{}: {e}", file.display())),
            }
        }
        problems
    }
}

/// Every complete job under `results`, sorted by folder; unreadable manifests, a manifest in
/// another job's folder (a copy would count its job twice) and missing samples are returned
/// as problems (file and reason) instead of stopping the scan.
pub fn scan(results: &Path) -> (Vec<StoredJob>, Vec<String>) {
    let mut jobs = Vec::new();
    let mut problems = Vec::new();
    let mut stack = vec![results.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        let mut has_manifest = false;
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.file_name().is_some_and(|n| n == MANIFEST) {
                has_manifest = true;
            }
        }
        if !has_manifest {
            continue;
        }
        let mpath = dir.join(MANIFEST);
        match fs::read(&mpath)
            .map_err(|e| e.to_string())
            .and_then(|b| serde_json::from_slice::<JobManifest>(&b).map_err(|e| e.to_string()))
        {
            Ok(m) if !MANIFEST_FORMATS_READ.contains(&m.format) => problems.push(format!(
                "{}: manifest format {} (this roundup reads {} to {}); skipped",
                mpath.display(),
                m.format,
                MANIFEST_FORMATS_READ.start(),
                MANIFEST_FORMATS_READ.end()
            )),
            Ok(m) if dir != results.join(m.folder()) => problems.push(format!(
                "{}: the manifest of {}, in another job's folder (moved or copied there); skipped",
                mpath.display(),
                m.folder().display()
            )),
            Ok(manifest) => {
                let job = StoredJob { dir, manifest };
                let files = job.files();
                match files.iter().find(|(f, _)| !f.is_file()) {
                    None if !files.is_empty() => jobs.push(job),
                    missing => problems.push(format!(
                        "{}: the manifest has no {} beside it; skipped",
                        mpath.display(),
                        missing
                            .and_then(|(f, _)| f.file_name())
                            .map_or(HISTOGRAM.into(), |n| n.to_string_lossy())
                    )),
                }
            }
            Err(e) => problems.push(format!(
                "{}: unreadable manifest ({e}); skipped",
                mpath.display()
            )),
        }
    }
    jobs.sort_by(|a, b| a.dir.cmp(&b.dir));
    problems.sort();
    (jobs, problems)
}

/// Removes a job's manifest (marking it incomplete) before its results are replaced.
pub fn invalidate(dir: &Path) -> Result<()> {
    let m = dir.join(MANIFEST);
    match fs::remove_file(&m) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Error::io(&m, e)),
    }
}

mod trace_file;
pub use trace_file::{import_trace, read_trace, write_trace};
