//! fio iolog versions 2 and 3: `[timestamp] filename action [offset length]`, the
//! version on the first line; version 3 times in µs (as fio writes and reads them).

use crate::error::Result;
use crate::trace::TraceOp;

use super::fields::{decimal_ns, req, whole, Bad};
use super::{Collector, Line, TextFormat};

/// fio's iolog.
pub(super) struct FioLog {
    /// Version 3 (with timestamps), else 2.
    pub v3: bool,
}

impl TextFormat for FioLog {
    fn read(&self, c: &mut Collector, text: &str) -> Result<()> {
        let v3 = self.v3;
        for at in Line::all(text).skip(1) {
            let l = at.text.trim();
            if l.is_empty() {
                continue;
            }
            let f: Vec<&str> = l.split_whitespace().collect();
            let parsed = (|| -> Result<_, Bad> {
                let (t, rest) = if v3 {
                    let t = f.first().ok_or("expected a timestamp")?;
                    (decimal_ns(t, 1_000)?, &f[1..])
                } else {
                    (0, &f[..])
                };
                let action = *rest.get(1).ok_or_else(|| {
                    format!(
                        "expected `{}filename action [offset length]`",
                        if v3 { "timestamp " } else { "" }
                    )
                })?;
                let op = match action {
                    "add" | "open" | "close" => return Ok(None),
                    "read" => TraceOp::Read,
                    "write" => TraceOp::Write,
                    "trim" => TraceOp::Trim,
                    "sync" | "datasync" => TraceOp::Flush,
                    other => return Err(Bad::in_field(other, format!("expected an action (add, open, close, read, write, trim, sync), found {other:?}"))),
                };
                if op == TraceOp::Flush {
                    return Ok(req(t, op, 0, 0)?);
                }
                if rest.len() < 4 {
                    return Err(format!("expected an offset and a length after {action:?}").into());
                }
                Ok(req(
                    t,
                    op,
                    whole(rest[2], "offset")?,
                    whole(rest[3], "length")?,
                )?)
            })();
            // Each line names its file (or device).
            let name = f.get(usize::from(v3)).copied().unwrap_or_default();
            c.take_on(at, name, parsed)?;
        }
        Ok(())
    }
}
