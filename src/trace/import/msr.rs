//! MSR Cambridge / SNIA IOTTA CSV: `Timestamp,Hostname,DiskNumber,Type,Offset,Size,
//! ResponseTime`, times in Windows filetime (100 ns); a disk is its host's.

use crate::error::Result;
use crate::trace::TraceOp;

use super::fields::{req, whole};
use super::{Collector, TextFormat};

/// MSR Cambridge / SNIA CSV.
pub(super) struct Msr;

impl TextFormat for Msr {
    fn read(&self, c: &mut Collector, text: &str) -> Result<()> {
        for (i, l) in text.lines().enumerate() {
            let l = l.trim();
            if l.is_empty() || (i == 0 && l.starts_with("Timestamp")) {
                continue;
            }
            let f: Vec<&str> = l.split(',').collect();
            let parsed = (|| {
                if f.len() != 7 {
                    return Err(format!("expected 7 fields (Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime), found {}", f.len()));
                }
                let t = whole::<u64>(f[0], "timestamp (Windows filetime)")?
                    .checked_mul(100)
                    .ok_or("timestamp out of range")?;
                let op = match f[3].trim().to_ascii_lowercase().as_str() {
                    "read" => TraceOp::Read,
                    "write" => TraceOp::Write,
                    _ => return Err(format!("expected Read or Write, found {:?}", f[3].trim())),
                };
                let mut r = req(t, op, whole(f[4], "offset")?, whole(f[5], "size")?)?;
                if let Some(r) = r.as_mut() {
                    let rt = whole::<u64>(f[6], "response time")?
                        .checked_mul(100)
                        .ok_or("response time out of range")?;
                    r.complete_ns = Some(t.checked_add(rt).ok_or("response time out of range")?);
                }
                Ok(r)
            })();
            // A disk is its host's: `Hostname,DiskNumber`.
            let disk = f.get(1..3).map(|d| d.join(",")).unwrap_or_default();
            c.take_on(i + 1, &disk, parsed)?;
        }
        Ok(())
    }
}
