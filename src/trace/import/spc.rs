//! UMass / SPC: `ASU,LBA,bytes,opcode,seconds`; each ASU (application storage unit) is a
//! volume of its own.

use crate::error::Result;
use crate::trace::TraceOp;

use super::fields::{decimal_ns, req, sector_bytes, whole, Bad};
use super::{Collector, Line, TextFormat};

/// UMass / SPC.
pub(super) struct Spc;

impl TextFormat for Spc {
    fn read(&self, c: &mut Collector, text: &str) -> Result<()> {
        for at in Line::all(text) {
            let l = at.text.trim();
            if l.is_empty() {
                continue;
            }
            let f: Vec<&str> = l.split(',').collect();
            let parsed = (|| -> Result<_, Bad> {
                if f.len() < 5 {
                    return Err(format!(
                        "expected 5 fields (ASU,LBA,bytes,opcode,seconds), found {}",
                        f.len()
                    )
                    .into());
                }
                let op = match f[3].trim() {
                    "r" | "R" => TraceOp::Read,
                    "w" | "W" => TraceOp::Write,
                    other => {
                        return Err(Bad::in_field(
                            other,
                            format!("expected opcode r or w, found {other:?}"),
                        ))
                    }
                };
                Ok(req(
                    decimal_ns(f[4], 1_000_000_000)?,
                    op,
                    sector_bytes(f[1], "LBA")?,
                    whole(f[2], "size")?,
                )?)
            })();
            // The ASU (application storage unit): a volume of its own.
            c.take_on(at, f[0], parsed)?;
        }
        Ok(())
    }
}
