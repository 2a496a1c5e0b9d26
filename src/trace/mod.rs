//! Block I/O traces: one model for every source format, importers, statistics and exports.
//!
//! A trace is a list of requests in issue order: issue time, operation, offset, length, and,
//! where the source records them, the completion time, the queue depth at issue and the
//! process. Importers read blkparse text, MSR Cambridge / SNIA CSV, UMass / SPC, DiskSim
//! and MQSim ASCII, blkreplay `.load` (gzip or not), fio iolog v2 and v3, and roundup's own
//! Parquet trace file; each is chosen by name or detected from the content.

mod generate;
mod import;
mod stats;

pub use generate::{find_profile, generate, load_profile, profile_hint, Profile};

pub use import::{detect, import, import_text_bytes, import_text_file, Format, ImportOptions};
pub use stats::{stats, SizeShare, TraceStats};

use serde::{Deserialize, Serialize};

/// What a traced request does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TraceOp {
    /// Read.
    Read,
    /// Write.
    Write,
    /// Discard (TRIM).
    Trim,
    /// Cache flush.
    Flush,
}

impl TraceOp {
    /// `read`, `write`, `trim`, `flush`.
    pub fn word(&self) -> &'static str {
        match self {
            TraceOp::Read => "read",
            TraceOp::Write => "write",
            TraceOp::Trim => "trim",
            TraceOp::Flush => "flush",
        }
    }

    /// The operation for a word of [`word`](Self::word).
    pub fn from_word(w: &str) -> Option<TraceOp> {
        match w {
            "read" => Some(TraceOp::Read),
            "write" => Some(TraceOp::Write),
            "trim" => Some(TraceOp::Trim),
            "flush" => Some(TraceOp::Flush),
            _ => None,
        }
    }
}

/// One traced request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct TraceRequest {
    /// Issue time since the first request (ns).
    pub time_ns: u64,
    /// What it does.
    pub op: TraceOp,
    /// Byte offset.
    pub offset: u64,
    /// Length in bytes (0 for a flush).
    pub len: u32,
    /// Completion time since the first request (ns), where the source records it.
    pub complete_ns: Option<u64>,
    /// Queue depth at issue, where the source records it.
    pub qd: Option<u32>,
    /// Issuing process, where the source records it.
    pub process: Option<u32>,
}

impl TraceRequest {
    /// Why this request cannot be played after one issued at `previous_ns`, if it cannot:
    /// a read, write or trim of no bytes, one that ends past 2^64 bytes, or one issued
    /// before the request before it. Every importer checks each request with it.
    pub fn check(&self, previous_ns: u64) -> std::result::Result<(), String> {
        if self.len == 0 && self.op != TraceOp::Flush {
            return Err("expected a request size above zero, found 0".into());
        }
        if self.offset.checked_add(self.len as u64).is_none() {
            return Err(format!(
                "expected a request that ends below 2^64 bytes, found {} bytes at offset {}",
                self.len, self.offset
            ));
        }
        if self.time_ns < previous_ns {
            return Err(format!(
                "time goes backwards: {} ns after {previous_ns} ns (a trace must be in issue order)",
                self.time_ns
            ));
        }
        Ok(())
    }
}

/// A trace: requests in issue order.
#[derive(Debug, Clone, PartialEq)]
pub struct Trace {
    /// The requests.
    pub requests: Vec<TraceRequest>,
    /// The format it was read from.
    pub format: Format,
    /// Malformed lines skipped (with `--skip-bad`).
    pub skipped: usize,
    /// The devices of a trace recorded on several (disks, ASUs, files), each laid out after
    /// the one before in one address space; empty for a trace of one device.
    pub devices: Vec<TraceDevice>,
}

/// One device of a multi-device trace and where its requests were placed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceDevice {
    /// The device as the trace names it (`3`, `8,16`, `/dev/sdb`).
    pub name: String,
    /// Where its byte 0 is in the trace's address space.
    pub base: u64,
    /// The bytes it spans there: its highest byte touched, rounded up to a MiB.
    pub extent: u64,
}

impl Trace {
    /// The trace in fio's iolog version 3 format, replaying on `device`: times in
    /// microseconds (as fio writes and reads them); trims become `trim`, flushes `sync 0 0`.
    pub fn to_fio_iolog(&self, device: &str) -> String {
        let mut out = String::with_capacity(self.requests.len() * 40 + 64);
        out.push_str("fio version 3 iolog\n");
        out.push_str(&format!("0 {device} add\n0 {device} open\n"));
        let mut last = 0;
        for r in &self.requests {
            let us = r.time_ns / 1_000;
            last = last.max(us);
            let action = match r.op {
                TraceOp::Read => "read",
                TraceOp::Write => "write",
                TraceOp::Trim => "trim",
                TraceOp::Flush => "sync",
            };
            // fio reads a line of three fields as a file's action (add, open, close): a sync
            // carries an offset and a length, of 0, as fio writes it.
            let (offset, len) = match r.op {
                TraceOp::Flush => (0, 0),
                _ => (r.offset, r.len),
            };
            out.push_str(&format!("{us} {device} {action} {offset} {len}\n"));
        }
        out.push_str(&format!("{last} {device} close\n"));
        out
    }
}
