//! blkreplay `.load`: a header of prose and a column line `start ; sector ; length ; op ;
//! replay_delay ; replay_duration`, then the requests.

use crate::error::{InputError, Result};
use crate::trace::TraceOp;

use super::fields::{decimal_ns, req, sector_bytes, Bad};
use super::{Collector, Line, TextFormat};

/// blkreplay's `.load` format.
pub(super) struct Blkreplay;

impl TextFormat for Blkreplay {
    fn read(&self, c: &mut Collector, text: &str) -> Result<()> {
        // A header of prose (licence, notes) and a column line `start ; sector ; ...`
        // precede the data; concatenated files repeat them, so prose (lines without
        // `;`) may also follow data.
        let mut data = false;
        for at in Line::all(text) {
            let l = at.text.trim();
            if l.starts_with("start ;") || l.starts_with("start;") {
                data = true;
                continue;
            }
            if !data || !l.contains(';') {
                continue;
            }

            let f: Vec<&str> = l.split(';').map(str::trim).collect();
            let parsed = (|| -> Result<_, Bad> {
                if f.len() < 4 {
                    return Err(format!("expected 6 fields (start ; sector ; length ; op ; replay_delay ; replay_duration), found {}", f.len()).into());
                }
                let op = match f[3] {
                    "R" | "r" => TraceOp::Read,
                    "W" | "w" => TraceOp::Write,
                    other => {
                        return Err(Bad::in_field(
                            other,
                            format!("expected op R or W, found {other:?}"),
                        ))
                    }
                };
                let offset = sector_bytes(f[1], "sector")?;
                let len = sector_bytes(f[2], "length in sectors")?;
                Ok(req(decimal_ns(f[0], 1_000_000_000)?, op, offset, len)?)
            })();
            c.take(at, parsed)?;
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
