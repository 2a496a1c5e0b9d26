//! The words every stage shares about one I/O: what to do ([`Op`], [`IoRequest`], a
//! [`Command`] between requests) and which engine does it ([`EngineChoice`]). Suites and
//! drives name them, workloads make them, targets serve them, the store records them.

use serde::{Deserialize, Serialize};

/// Read or write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Op {
    /// Read from the target.
    Read,
    /// Write to the target.
    Write,
}

impl Op {
    /// `read` / `write`, as stored in the samples.
    pub fn word(&self) -> &'static str {
        match self {
            Op::Read => "read",
            Op::Write => "write",
        }
    }
}

/// A write's data as a simulated drive sees it: its bytes, or word that they are fresh
/// random bytes, not generated (for a model that looks only at how data compresses: LZ4,
/// like any compressor, cannot shrink random bytes, whose only repeats are chance ones of
/// a few bytes, worth less than the framing it adds).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteData<'a> {
    /// The bytes written.
    Bytes(&'a [u8]),
    /// Fresh random bytes.
    Random,
}

impl<'a> WriteData<'a> {
    /// The part from byte `from`, `len` long.
    pub fn slice(self, from: usize, len: usize) -> WriteData<'a> {
        match self {
            WriteData::Bytes(b) => WriteData::Bytes(&b[from..from + len]),
            WriteData::Random => WriteData::Random,
        }
    }
}

/// One I/O to issue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IoRequest {
    /// Position in the job's sequence, from 0, warm-up included.
    pub seq: u64,
    /// Read or write.
    pub op: Op,
    /// Byte offset on the target.
    pub offset: u64,
    /// Length in bytes.
    pub len: u32,
}

/// A command a trace plays between its requests. The engine issues it with nothing else in
/// flight, as SATA drives of the era took them: TRIM (DATA SET MANAGEMENT) and FLUSH CACHE
/// are not queued commands, so the host drains the queue first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    /// Discard `len` bytes from `offset`.
    Trim {
        /// Byte offset on the target.
        offset: u64,
        /// Length in bytes.
        len: u64,
    },
    /// Write everything the drive has accepted to stable media.
    Flush,
}

/// Which I/O engine serves a real target.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EngineChoice {
    /// io_uring where the kernel offers it, otherwise psync.
    #[default]
    Auto,
    /// io_uring only.
    IoUring,
    /// A thread per slot doing pread/pwrite.
    Psync,
    /// fio runs the job (its job file written from the workload) and its per-I/O latency
    /// logs become the samples: on this machine, or on the drive's bench (`fio --client`).
    Fio,
}

impl EngineChoice {
    /// The word used in files and on the command line.
    pub fn word(&self) -> &'static str {
        match self {
            EngineChoice::Auto => "auto",
            EngineChoice::IoUring => "io_uring",
            EngineChoice::Psync => "psync",
            EngineChoice::Fio => "fio",
        }
    }
}

impl std::str::FromStr for EngineChoice {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s {
            "auto" => Ok(EngineChoice::Auto),
            "io_uring" => Ok(EngineChoice::IoUring),
            "psync" => Ok(EngineChoice::Psync),
            "fio" => Ok(EngineChoice::Fio),
            other => Err(format!(
                "expected auto, io_uring, psync or fio, found {other:?}"
            )),
        }
    }
}
