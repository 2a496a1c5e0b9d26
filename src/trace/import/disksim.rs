//! DiskSim ASCII (`time device sector size flags`, time in ms) and MQSim's variant of it
//! (time in ns).

use crate::error::Result;
use crate::trace::TraceOp;

use super::fields::{bytes, decimal_ns, req, whole};
use super::{Collector, TextFormat};

/// DiskSim's ASCII trace, in its unit of time.
pub(super) struct Disksim {
    /// Nanoseconds in the trace's unit of time: 1,000,000 for DiskSim, 1 for MQSim.
    pub unit_ns: u64,
}

impl TextFormat for Disksim {
    fn read(&self, c: &mut Collector, text: &str) -> Result<()> {
        let unit = self.unit_ns;
        for (i, l) in text.lines().enumerate() {
            let l = l.trim();
            if l.is_empty() {
                continue;
            }
            let f: Vec<&str> = l.split_whitespace().collect();
            let parsed = (|| {
                if f.len() < 5 {
                    return Err(format!(
                        "expected 5 fields (time device sector size flags), found {}",
                        f.len()
                    ));
                }
                let flags: u32 = whole(f[4], "flags")?;
                let op = if flags & 1 == 1 {
                    TraceOp::Read
                } else {
                    TraceOp::Write
                };
                let sector: u64 = whole(f[2], "start sector")?;
                let sectors: u64 = whole(f[3], "size in sectors")?;
                req(
                    decimal_ns(f[0], unit)?,
                    op,
                    bytes(sector, "start sector")?,
                    bytes(sectors, "size in sectors")?,
                )
            })();
            // The second field is the device number.
            c.take_on(i + 1, f.get(1).copied().unwrap_or_default(), parsed)?;
        }
        Ok(())
    }
}
