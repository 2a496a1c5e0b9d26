//! What can go wrong with a target, one variant per failure a caller may tell apart: a
//! target refused before anything is written, one that is busy, one that cannot do direct
//! I/O, an operating-system error on a running job, a simulated drive's bad parameters or
//! exhausted model, a fault of roundup itself.

use std::path::PathBuf;

/// A target (file, block device or simulated drive) refused or failed a job.
#[derive(Debug, thiserror::Error)]
pub enum TargetError {
    /// The file system refuses O_DIRECT.
    #[error("{}: the filesystem refuses O_DIRECT (direct I/O); put the target on a filesystem that supports it, such as ext4 or xfs", path.display())]
    NoDirectIo {
        /// The file.
        path: PathBuf,
    },
    /// This user may not write the target.
    #[error("{}: not writable by this user: {error}", path.display())]
    NotWritable {
        /// The file or device.
        path: PathBuf,
        /// What the system said.
        error: std::io::Error,
    },
    /// A file target that does not exist and has no `size:` to create it with.
    #[error("drive {drive}: {} does not exist; give `size:` in drives/{drive}.yaml to let roundup create it", path.display())]
    Missing {
        /// The drive id.
        drive: String,
        /// The file.
        path: PathBuf,
    },
    /// An existing file roundup did not create, without `overwrite: true`.
    #[error("drive {drive}: refusing to write to {}: roundup did not create it; set `overwrite: true` in drives/{drive}.yaml to allow it", path.display())]
    NotCreatedByRoundup {
        /// The drive id.
        drive: String,
        /// The file.
        path: PathBuf,
    },
    /// A scratch file roundup made at another size than the drive file now says.
    #[error("drive {drive}: {} is {found} bytes but the drive file says size {expected}; remove it (and its .roundup marker) to recreate it", path.display())]
    SizeChanged {
        /// The drive id.
        drive: String,
        /// The file.
        path: PathBuf,
        /// Its size.
        found: u64,
        /// The drive file's `size:`.
        expected: u64,
    },
    /// A path that is neither a regular file nor a block device.
    #[error("drive {drive}: {} is neither a regular file nor a block device", path.display())]
    NotFileOrDevice {
        /// The drive id.
        drive: String,
        /// The path.
        path: PathBuf,
    },
    /// Another run holds the target.
    #[error("drive {drive}: {} is in use by another roundup run (or a program holding its lock); wait for it to end: two runs on one drive measure each other", path.display())]
    Locked {
        /// The drive id.
        drive: String,
        /// The file or device.
        path: PathBuf,
    },
    /// A file size that is not whole 4 KiB blocks.
    #[error("{}: size must be a multiple of 4 KiB, found {size}", path.display())]
    BadSize {
        /// The file.
        path: PathBuf,
        /// The size asked for.
        size: u64,
    },
    /// A block device the destruction guard protects (mounted, in use, or holding data
    /// not named in `destroy_data`).
    #[error("refusing to write to {}: {why}", path.display())]
    HoldsData {
        /// The device.
        path: PathBuf,
        /// Why it is protected, and how to allow it.
        why: String,
    },
    /// The drive file's firmware is not the one the device reports.
    #[error("drive {drive}: the drive file names firmware {named:?} but the device reports {reported:?}; update drives/{drive}.yaml (or leave firmware out to use the device's)")]
    FirmwareMismatch {
        /// The drive id.
        drive: String,
        /// The drive file's `firmware:`.
        named: String,
        /// The device's.
        reported: String,
    },
    /// `engine: io_uring` where the kernel does not offer it.
    #[error("{target}: io_uring is not available here ({error}); use `engine: psync` or `auto`")]
    NoUring {
        /// The file or device.
        target: String,
        /// What the kernel said.
        error: std::io::Error,
    },
    /// An operating-system error while working on a target.
    #[error("{target}: {action}: {error}")]
    Os {
        /// The file or device.
        target: String,
        /// What roundup was doing (`cannot trim 4096 bytes at 0`).
        action: String,
        /// What the system said.
        error: std::io::Error,
    },
    /// An I/O that completed with an error.
    #[error("{0}")]
    Failed(String),
    /// A simulated drive's parameters that the model cannot run.
    #[error("drive {drive}: {message}")]
    Config {
        /// The drive id.
        drive: String,
        /// What is wrong.
        message: String,
    },
    /// A simulated drive that cannot go on (its model ran out of a resource).
    #[error("{0}")]
    Model(String),
    /// fio is missing, too old, or answers with something roundup cannot use.
    #[error("{where_}: {message}")]
    Fio {
        /// `fio on this machine` or `bench HOST:PORT`.
        where_: String,
        /// What went wrong, with fio's own words where it said any.
        message: String,
    },
    /// A bench (an fio server) that does not answer, or stopped answering mid-job.
    #[error("bench {bench}: {message}")]
    Bench {
        /// `HOST:PORT`.
        bench: String,
        /// What fio's client said.
        message: String,
    },
    /// A job's engine options this machine or target cannot honour (a CPU it does not
    /// have, ring options on the psync engine).
    #[error("{0}")]
    Unsupported(String),
    /// A fault of roundup's own (an engine or queue in a state it should never reach).
    #[error("{0}")]
    Internal(&'static str),
}
