//! fio's per-I/O latency logs (`write_lat_log` with `log_avg_msec=0`) as samples:
//! `time (ms), latency (ns), direction, block size, [offset,] priority` a line, one file per
//! fio job (thread).

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io::BufRead as _;
use std::path::Path;

use crate::engine::Sample;
use crate::error::{Error, Result, TargetError};
use crate::io::Op;

/// One line of a latency log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LogEntry {
    /// Completion time, ms since the measured part began.
    pub done_ms: u64,
    /// Submit to completion, ns.
    pub latency_ns: u64,
    /// Read or write (trims are not samples).
    pub op: Op,
    /// Bytes.
    pub len: u32,
    /// Byte offset, where fio logged it (0 where it did not).
    pub offset: u64,
}

/// Reads one log; a line that is not fio's log format is an error at its file and line.
pub fn read_log(path: &Path) -> Result<Vec<LogEntry>> {
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let mut out = Vec::new();
    for (k, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|e| Error::io(path, e))?;
        if line.trim().is_empty() {
            continue;
        }
        match parse_line(&line) {
            Ok(Some(e)) => out.push(e),
            Ok(None) => {}
            Err(message) => {
                return Err(TargetError::Fio {
                    where_: format!("{}:{}", path.display(), k + 1),
                    message: format!(
                        "{message} in fio's latency log (`time, latency, direction, size[, \
                         offset], priority`), found {line:?}"
                    ),
                }
                .into())
            }
        }
    }
    Ok(out)
}

/// One line: `Ok(None)` for a trim.
fn parse_line(line: &str) -> std::result::Result<Option<LogEntry>, String> {
    let fields: Vec<&str> = line.split(',').map(str::trim).collect();
    if !(5..=6).contains(&fields.len()) {
        return Err(format!("expected 5 or 6 fields, found {}", fields.len()));
    }
    let num = |k: usize, what: &str| {
        fields[k]
            .parse::<u64>()
            .map_err(|_| format!("field {} ({what}): expected a whole number", k + 1))
    };
    let op = match num(2, "direction")? {
        0 => Op::Read,
        1 => Op::Write,
        2 => return Ok(None),
        d => {
            return Err(format!(
                "field 3 (direction): expected 0, 1 or 2, found {d}"
            ))
        }
    };
    let len = u32::try_from(num(3, "block size")?)
        .map_err(|_| "field 4 (block size): too large".to_string())?;
    Ok(Some(LogEntry {
        done_ms: num(0, "time")?,
        latency_ns: num(1, "latency")?,
        op,
        len,
        offset: if fields.len() == 6 {
            num(4, "offset")?
        } else {
            0
        },
    }))
}

/// Where the samples' clock starts: fio's log clock starts when the measured part begins,
/// and an I/O submitted in the warm-up completes after it, so its submit time is before
/// zero. The samples' clock starts at the earliest submit of all logs (ns, fio's clock).
pub fn origin_ns(logs: &[Vec<LogEntry>]) -> i128 {
    logs.iter()
        .flatten()
        .map(|e| e.done_ms as i128 * 1_000_000 - e.latency_ns as i128)
        .min()
        .unwrap_or(0)
}

/// One log's entries as samples, in submit order: submitted at completion minus latency
/// (fio logs completions to the millisecond, so a submit time is as exact as that), the
/// queue depth at submit counted from the I/Os of the same log still in flight.
pub fn samples(entries: &[LogEntry], origin_ns: i128) -> Vec<Sample> {
    let mut out: Vec<Sample> = entries
        .iter()
        .map(|e| {
            let done = e.done_ms as i128 * 1_000_000 - origin_ns;
            // A log's numbers are any u64 (a broken log, another fio): held to u64's range.
            let submit = u64::try_from((done - e.latency_ns as i128).max(0)).unwrap_or(u64::MAX);
            Sample {
                seq: 0,
                op: e.op,
                offset: e.offset,
                len: e.len,
                submit_ns: submit,
                latency_ns: e.latency_ns,
                qd: 0,
            }
        })
        .collect();
    out.sort_by_key(|s| s.submit_ns);
    let mut in_flight: BinaryHeap<Reverse<u64>> = BinaryHeap::new();
    for (k, s) in out.iter_mut().enumerate() {
        while in_flight.peek().is_some_and(|d| d.0 <= s.submit_ns) {
            in_flight.pop();
        }
        in_flight.push(Reverse(s.submit_ns.saturating_add(s.latency_ns)));
        s.seq = k as u64;
        s.qd = in_flight.len() as u32;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_with_and_without_offsets_are_read() {
        let e = parse_line("1500, 126578, 1, 4096, 47652864, 0")
            .unwrap()
            .unwrap();
        assert_eq!(
            (e.done_ms, e.latency_ns, e.op, e.len, e.offset),
            (1500, 126578, Op::Write, 4096, 47652864)
        );
        let e = parse_line("0, 422750, 0, 512, 0").unwrap().unwrap();
        assert_eq!((e.op, e.len, e.offset), (Op::Read, 512, 0));
        assert_eq!(parse_line("3, 10, 2, 4096, 0"), Ok(None));
        assert!(parse_line("3, x, 1, 4096, 0")
            .unwrap_err()
            .contains("latency"));
        assert!(parse_line("3, 10, 1").is_err());
    }

    #[test]
    fn submit_times_start_at_the_earliest_and_depth_counts_what_is_in_flight() {
        let e = |done_ms, latency_ns| LogEntry {
            done_ms,
            latency_ns,
            op: Op::Write,
            len: 4096,
            offset: 0,
        };
        let logs = vec![vec![e(0, 500_000), e(1, 1_200_000), e(2, 100_000)]];
        let origin = origin_ns(&logs);
        assert_eq!(origin, -500_000);
        let s = samples(&logs[0], origin);
        assert_eq!(
            s.iter().map(|s| s.submit_ns).collect::<Vec<_>>(),
            [0, 300_000, 2_400_000]
        );
        assert_eq!(s.iter().map(|s| s.qd).collect::<Vec<_>>(), [1, 2, 1]);
        assert_eq!(s.iter().map(|s| s.seq).collect::<Vec<_>>(), [0, 1, 2]);
    }

    #[test]
    fn numbers_at_their_limits_give_samples_without_wrapping() {
        let e = |done_ms, latency_ns| LogEntry {
            done_ms,
            latency_ns,
            op: Op::Read,
            len: 4096,
            offset: 0,
        };
        // The first I/O's latency puts the clock's origin u64::MAX before the others'
        // completions: their submit times lie past u64's range and are held at its end,
        // in order (cast, they wrapped to small times and came first).
        let logs = vec![vec![e(1, u64::MAX), e(2, 1), e(u64::MAX, 0)]];
        let origin = origin_ns(&logs);
        let s = samples(&logs[0], origin);
        assert_eq!(
            s.iter().map(|s| s.submit_ns).collect::<Vec<_>>(),
            [0, u64::MAX, u64::MAX]
        );
        assert_eq!(
            s.iter().map(|s| s.latency_ns).collect::<Vec<_>>(),
            [u64::MAX, 1, 0]
        );
        assert_eq!(s.iter().map(|s| s.qd).collect::<Vec<_>>(), [1, 1, 1]);
    }
}
