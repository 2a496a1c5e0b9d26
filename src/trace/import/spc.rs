//! UMass / SPC: `ASU,LBA,bytes,opcode,seconds`; each ASU (application storage unit) is a
//! volume of its own.

use crate::error::Result;
use crate::trace::TraceOp;

use super::fields::{bytes, decimal_ns, req, whole};
use super::{Collector, TextFormat};

/// UMass / SPC.
pub(super) struct Spc;

impl TextFormat for Spc {
    fn read(&self, c: &mut Collector, text: &str) -> Result<()> {
        for (i, l) in text.lines().enumerate() {
            let l = l.trim();
            if l.is_empty() {
                continue;
            }
            let f: Vec<&str> = l.split(',').collect();
            let parsed = (|| {
                if f.len() < 5 {
                    return Err(format!(
                        "expected 5 fields (ASU,LBA,bytes,opcode,seconds), found {}",
                        f.len()
                    ));
                }
                let op = match f[3].trim() {
                    "r" | "R" => TraceOp::Read,
                    "w" | "W" => TraceOp::Write,
                    other => return Err(format!("expected opcode r or w, found {other:?}")),
                };
                let lba: u64 = whole(f[1], "LBA")?;
                req(
                    decimal_ns(f[4], 1_000_000_000)?,
                    op,
                    bytes(lba, "LBA")?,
                    whole(f[2], "size")?,
                )
            })();
            // The ASU (application storage unit): a volume of its own.
            c.take_on(i + 1, f[0], parsed)?;
        }
        Ok(())
    }
}
