//! blkparse's default text output: `8,33 30 1 0.001368096 5025 D R 540544 + 8 [proc]`.

use std::collections::HashMap;

use crate::error::Result;
use crate::trace::TraceOp;

use super::fields::{decimal_ns, is_num, req, sectors_to_bytes, whole, Bad};
use super::{Collector, Line, TextFormat};

/// blkparse: `8,33 30 1 0.001368096 5025 D R 540544 + 8 [proc]`. Takes the issue (`D`) or
/// queue (`Q`) events; completion (`C`) events give the completion times of the requests
/// they match (same sector and size). Summary lines and other events are passed over.
/// blkparse's default output.
pub(super) struct Blkparse {
    /// Take the queue (`Q`) events instead of the issue (`D`) events.
    pub queue_events: bool,
}

impl TextFormat for Blkparse {
    fn read(&self, c: &mut Collector, text: &str) -> Result<()> {
        let queue_events = self.queue_events;
        let wanted = if queue_events { "Q" } else { "D" };
        let mut pending: HashMap<(&str, u64, u64), Vec<usize>> = HashMap::new();
        for at in Line::all(text) {
            let f: Vec<&str> = at.text.split_whitespace().collect();
            let is_event = f.len() >= 7
                && f[0]
                    .split_once(',')
                    .is_some_and(|(a, b)| is_num(a) && is_num(b));
            if !is_event {
                continue; // the per-CPU and total summaries blkparse prints at the end
            }
            let action = f[5];
            if action != wanted && action != "C" {
                continue;
            }
            let parsed = (|| -> Result<_, Bad> {
                let t = decimal_ns(f[3], 1_000_000_000)?;
                let rwbs = f[6];
                if f.len() < 10 || f[8] != "+" {
                    if rwbs.contains('F') && action == wanted {
                        let mut r = req(t, TraceOp::Flush, 0, 0)?;
                        if let Some(r) = r.as_mut() {
                            r.process = f[4].parse().ok();
                        }
                        return Ok((r, None));
                    }
                    return Err(Bad::in_field(
                        rwbs,
                        format!("expected `sector + count` after {rwbs:?}"),
                    ));
                }
                let sector: u64 = whole(f[7], "sector")?;
                let count: u64 = whole(f[9], "sector count")?;
                if action == "C" {
                    return Ok((None, Some((sector, count, t))));
                }
                let op = if rwbs.contains('D') {
                    TraceOp::Trim
                } else if rwbs.contains('W') {
                    TraceOp::Write
                } else if rwbs.contains('R') {
                    TraceOp::Read
                } else if rwbs.contains('F') || count == 0 {
                    TraceOp::Flush
                } else {
                    return Err(Bad::in_field(
                        rwbs,
                        format!("expected R, W, D or F in {rwbs:?}"),
                    ));
                };
                let mut r = req(
                    t,
                    op,
                    sectors_to_bytes(sector, f[7], "sector")?,
                    sectors_to_bytes(count, f[9], "sector count")?,
                )?;
                if let Some(r) = r.as_mut() {
                    r.process = f[4].parse().ok();
                }
                Ok((r, None))
            })();
            match parsed {
                Ok((Some(r), _)) => {
                    let key = (f[0], r.offset / 512, r.len as u64 / 512);
                    let before = c.out.len();
                    // The device (`major,minor`) the event is on.
                    c.take_on(at, f[0], Ok(Some(r)))?;
                    if c.out.len() > before {
                        pending.entry(key).or_default().push(before);
                    }
                }
                Ok((None, Some((sector, count, t)))) => {
                    if let Some(idx) = pending.get_mut(&(f[0], sector, count)).and_then(|v| {
                        if v.is_empty() {
                            None
                        } else {
                            Some(v.remove(0))
                        }
                    }) {
                        c.out[idx].complete_ns = Some(t.max(c.out[idx].time_ns));
                    }
                }
                Ok(_) => {}
                Err(b) => c.bad(at, b)?,
            }
        }
        Ok(())
    }
}
