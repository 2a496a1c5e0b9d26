//! blkreplay `.load`: a header of prose and a column line `start ; sector ; length ; op ;
//! replay_delay ; replay_duration`, then the requests.

use crate::error::{InputError, Result};
use crate::trace::TraceOp;

use super::fields::{bytes, decimal_ns, req, whole};
use super::{Collector, TextFormat};

/// blkreplay's `.load` format.
pub(super) struct Blkreplay;

impl TextFormat for Blkreplay {
    fn read(&self, c: &mut Collector, text: &str) -> Result<()> {
        // A header of prose (licence, notes) and a column line `start ; sector ; ...`
        // precede the data; concatenated files repeat them, so prose (lines without
        // `;`) may also follow data.
        let mut data = false;
        for (i, l) in text.lines().enumerate() {
            let l = l.trim();
            if l.starts_with("start ;") || l.starts_with("start;") {
                data = true;
                continue;
            }
            if !data || !l.contains(';') {
                continue;
            }

            let f: Vec<&str> = l.split(';').map(str::trim).collect();
            let parsed = (|| {
                if f.len() < 4 {
                    return Err(format!("expected 6 fields (start ; sector ; length ; op ; replay_delay ; replay_duration), found {}", f.len()));
                }
                let op = match f[3] {
                    "R" | "r" => TraceOp::Read,
                    "W" | "w" => TraceOp::Write,
                    other => return Err(format!("expected op R or W, found {other:?}")),
                };
                let sector: u64 = whole(f[1], "sector")?;
                let sectors: u64 = whole(f[2], "length in sectors")?;
                req(
                    decimal_ns(f[0], 1_000_000_000)?,
                    op,
                    bytes(sector, "sector")?,
                    bytes(sectors, "length in sectors")?,
                )
            })();
            c.take(i + 1, parsed)?;
        }
        if !data {
            return Err(InputError::new(
                c.file,
                "",
                "expected a blkreplay header line (start ; sector ; length ; op ; ...)",
            )
            .into());
        }
        Ok(())
    }
}
