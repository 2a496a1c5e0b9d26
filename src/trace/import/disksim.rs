//! DiskSim ASCII (`time device sector size flags`, time in ms) and MQSim's variant of it
//! (time in ns).

use crate::error::Result;
use crate::trace::TraceOp;

use super::fields::{decimal_ns, req, sector_bytes, whole, Bad};
use super::{Collector, Line, TextFormat};

/// DiskSim's ASCII trace, in its unit of time.
pub(super) struct Disksim {
    /// Nanoseconds in the trace's unit of time: 1,000,000 for DiskSim, 1 for MQSim.
    pub unit_ns: u64,
}

impl TextFormat for Disksim {
    fn read(&self, c: &mut Collector, text: &str) -> Result<()> {
        let unit = self.unit_ns;
        for at in Line::all(text) {
            let l = at.text.trim();
            if l.is_empty() {
                continue;
            }
            let f: Vec<&str> = l.split_whitespace().collect();
            let parsed = (|| -> Result<_, Bad> {
                if f.len() < 5 {
                    return Err(format!(
                        "expected 5 fields (time device sector size flags), found {}",
                        f.len()
                    )
                    .into());
                }
                let flags: u32 = whole(f[4], "flags")?;
                let op = if flags & 1 == 1 {
                    TraceOp::Read
                } else {
                    TraceOp::Write
                };
                let offset = sector_bytes(f[2], "start sector")?;
                let len = sector_bytes(f[3], "size in sectors")?;
                Ok(req(decimal_ns(f[0], unit)?, op, offset, len)?)
            })();
            // The second field is the device number.
            c.take_on(at, f.get(1).copied().unwrap_or_default(), parsed)?;
        }
        Ok(())
    }
}
