//! A workload as an fio job file: the same pattern, block sizes and mix, alignment, span,
//! queue depth, threads, length, warm-up and data, with O_DIRECT and per-I/O latency logs.

use std::fmt::Write as _;
use std::path::Path;

use crate::target::{FioFile, TargetKind, RING_MAX_ENTRIES};
use crate::workload::{DataKind, Length, Pattern, RateLimit, ReplayMode, Workload};

/// The name of the measured job in the job file (and in fio's JSON output).
pub const MEASURED: &str = "measure";

/// The prefix of the latency logs in the scratch folder (`lat_lat.N.log`).
pub const LOG_PREFIX: &str = "lat";

/// What a job file is written from.
pub struct JobFileSpec<'a> {
    /// The workload.
    pub workload: &'a Workload,
    /// Bytes of the target the offsets cover.
    pub span: u64,
    /// The job's seed: fio's `randseed`, so the same job draws the same offsets.
    pub seed: u64,
    /// The file or device, here or on a bench.
    pub file: &'a FioFile,
    /// The folder the latency logs are written to (on this machine).
    pub logs: &'a Path,
    /// For a replay: the iolog fio reads (a path the bench can read).
    pub iolog: Option<&'a Path>,
}

/// What in the workload fio cannot run: the test's key and why, or `None`.
pub fn unsupported(w: &Workload) -> Option<(&'static str, String)> {
    if w.steady_state.is_some() {
        return Some((
            "steady_state",
            "a steady-state test (rounds until the SNIA criteria hold) does not run through \
             fio; use engine io_uring or psync"
                .into(),
        ));
    }
    if w.burst.is_some() {
        return Some((
            "burst",
            "a test in bursts (idle for a share of each burst's time) does not run through \
             fio, whose think time is fixed; use engine io_uring or psync"
                .into(),
        ));
    }
    if w.queue_depth > RING_MAX_ENTRIES {
        return Some((
            "queue_depth",
            format!(
                "fio's io_uring engine makes a ring of an entry for each I/O in flight, at most \
                 {RING_MAX_ENTRIES} (the kernel's limit), and queue depth {} is deeper; use \
                 engine io_uring, which submits a deeper queue as its ring fills",
                w.queue_depth
            ),
        ));
    }
    None
}

/// The job file, or what in the workload fio cannot run.
pub fn job_file(spec: &JobFileSpec) -> Result<String, String> {
    let w = spec.workload;
    if let Some((_, why)) = unsupported(w) {
        return Err(why);
    }
    let mut s = String::from("[global]\n");
    let mut line = |k: &str, v: &dyn std::fmt::Display| {
        let _ = writeln!(s, "{k}={v}");
    };
    line("filename", &spec.file.escaped());
    line("direct", &1);
    line("ioengine", &"io_uring");
    line("thread", &1);
    line("group_reporting", &1);
    line("lat_percentiles", &1);
    line("percentile_list", &"1:5:10:25:50:75:90:95:99:99.9:99.99");
    line("log_avg_msec", &0);
    // fio 3.33's client drops the last fifth of a server's log entries when offsets are
    // logged (its sample size is taken without them): a bench's logs carry none.
    line("log_offset", &u8::from(spec.file.bench.is_none()));
    // fio reads the seed as a signed 64-bit number.
    line("randseed", &(spec.seed >> 1));
    line("norandommap", &1);
    line("size", &spec.span);
    line("offset", &0);
    if spec.file.kind == TargetKind::File {
        line("allow_file_create", &1);
    }
    let mut m = format!("\n[{MEASURED}]\n");
    let mut line = |k: &str, v: &dyn std::fmt::Display| {
        let _ = writeln!(m, "{k}={v}");
    };
    if let Some(iolog) = spec.iolog {
        line("read_iolog", &iolog.display());
        match &w.replay {
            Some(r) if r.mode == ReplayMode::Timed => {
                line(
                    "replay_time_scale",
                    &((100.0 * r.time_scale).round().max(1.0) as u64),
                );
            }
            _ => line("replay_no_stall", &1),
        }
    } else {
        let read = w.operation.read_percent;
        let rw = match (w.pattern, read) {
            (Pattern::Random, 100) => "randread",
            (Pattern::Random, 0) => "randwrite",
            (Pattern::Random, _) => "randrw",
            (Pattern::Sequential, 100) => "read",
            (Pattern::Sequential, 0) => "write",
            (Pattern::Sequential, _) => "rw",
        };
        line("rw", &rw);
        if read != 0 && read != 100 {
            line("rwmixread", &read);
        }
        line_sizes(&mut line, w);
        line("blockalign", &w.align);
    }
    line("iodepth", &w.queue_depth.max(1));
    line("numjobs", &w.threads.max(1));
    for (on, key) in [
        (w.io.ring.fixed_buffers, "fixedbufs"),
        (w.io.ring.fixed_files, "registerfiles"),
        (w.io.ring.hipri, "hipri"),
    ] {
        if on {
            line(key, &1);
        }
    }
    if !w.io.cpus.is_empty() {
        let cpus: Vec<String> = w.io.cpus.iter().map(u32::to_string).collect();
        line("cpus_allowed", &cpus.join(","));
        line("cpus_allowed_policy", &"split");
    }
    match w.length {
        Length::Duration(ns) => {
            line("time_based", &1);
            line("runtime", &format!("{}us", (ns / 1000).max(1)));
        }
        Length::Count(n) if spec.iolog.is_none() => {
            line("number_ios", &n);
            // Enough bytes that fio does not stop at the end of the span first.
            line("io_size", &n.saturating_mul(w.block_size.max()));
        }
        Length::Count(_) | Length::Passes(_) => {}
    }
    // fio's rates are a job's (a thread's): the test's load shared among them.
    let threads = w.threads.max(1) as f64;
    match w.rate {
        Some(RateLimit::Iops(r)) => line("rate_iops", &((r / threads).round().max(1.0) as u64)),
        Some(RateLimit::BytesPerSecond(b)) => {
            line("rate", &((b / threads).round().max(1.0) as u64))
        }
        None => {}
    }
    if w.warmup_ns > 0 {
        line("ramp_time", &format!("{}us", (w.warmup_ns / 1000).max(1)));
    }
    if w.issues_writes() {
        match w.data {
            DataKind::Incompressible => line("refill_buffers", &1),
            DataKind::Compressible => {
                line("refill_buffers", &1);
                let pct = ((1.0 - w.compressible_fraction) * 100.0)
                    .round()
                    .clamp(0.0, 100.0);
                line("buffer_compress_percentage", &(pct as u32));
            }
            DataKind::Zeros => line("zero_buffers", &1),
        }
    }
    line("write_lat_log", &spec.logs.join(LOG_PREFIX).display());
    Ok(s + &m)
}

/// `bs=` for one size, `bssplit=` (whole percentages summing to 100) for a mix.
fn line_sizes(line: &mut impl FnMut(&str, &dyn std::fmt::Display), w: &Workload) {
    let sizes = &w.block_size.0;
    if let [(size, _)] = sizes.as_slice() {
        line("bs", size);
        return;
    }
    let total: u64 = sizes.iter().map(|(_, weight)| *weight as u64).sum();
    // Largest remainders, so that the percentages sum to exactly 100.
    let mut parts: Vec<(u64, u64, u64)> = sizes
        .iter()
        .map(|(size, weight)| {
            let exact = *weight as u64 * 100;
            (*size, exact / total.max(1), exact % total.max(1))
        })
        .collect();
    let mut left = 100 - parts.iter().map(|p| p.1).sum::<u64>();
    let mut order: Vec<usize> = (0..parts.len()).collect();
    order.sort_by(|&a, &b| parts[b].2.cmp(&parts[a].2).then(a.cmp(&b)));
    for k in order {
        if left == 0 {
            break;
        }
        parts[k].1 += 1;
        left -= 1;
    }
    let split: Vec<String> = parts
        .iter()
        .filter(|p| p.1 > 0)
        .map(|(size, pct, _)| format!("{size}/{pct}"))
        .collect();
    line("bssplit", &split.join(":"));
}
