//! MSR Cambridge / SNIA IOTTA CSV: `Timestamp,Hostname,DiskNumber,Type,Offset,Size,
//! ResponseTime`, times in Windows filetime (100 ns); a disk is its host's.

use crate::error::Result;
use crate::trace::TraceOp;

use super::fields::{req, whole, Bad};
use super::{Collector, Line, TextFormat};

/// MSR Cambridge / SNIA CSV.
pub(super) struct Msr;

impl TextFormat for Msr {
    fn read(&self, c: &mut Collector, text: &str) -> Result<()> {
        for at in Line::all(text) {
            let l = at.text.trim();
            if l.is_empty() || (at.number == 1 && l.starts_with("Timestamp")) {
                continue;
            }
            let f: Vec<&str> = l.split(',').collect();
            let parsed = (|| -> Result<_, Bad> {
                if f.len() != 7 {
                    return Err(format!("expected 7 fields (Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime), found {}", f.len()).into());
                }
                let t = whole::<u64>(f[0], "timestamp (Windows filetime)")?
                    .checked_mul(100)
                    .ok_or_else(|| {
                        Bad::in_field(f[0].trim(), "expected a timestamp below 2^64 ns")
                    })?;
                let op = match f[3].trim().to_ascii_lowercase().as_str() {
                    "read" => TraceOp::Read,
                    "write" => TraceOp::Write,
                    _ => {
                        let op = f[3].trim();
                        return Err(Bad::in_field(
                            op,
                            format!("expected Read or Write, found {op:?}"),
                        ));
                    }
                };
                let mut r = req(t, op, whole(f[4], "offset")?, whole(f[5], "size")?)?;
                if let Some(r) = r.as_mut() {
                    let late = || {
                        Bad::in_field(
                            f[6].trim(),
                            "expected a response time that ends below 2^64 ns",
                        )
                    };
                    let rt = whole::<u64>(f[6], "response time")?
                        .checked_mul(100)
                        .ok_or_else(late)?;
                    r.complete_ns = Some(t.checked_add(rt).ok_or_else(late)?);
                }
                Ok(r)
            })();
            // A disk is its host's: `Hostname,DiskNumber`.
            let disk = f.get(1..3).map(|d| d.join(",")).unwrap_or_default();
            c.take_on(at, &disk, parsed)?;
        }
        Ok(())
    }
}
