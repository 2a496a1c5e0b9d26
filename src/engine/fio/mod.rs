//! `engine: fio`: fio runs the job, here or on the drive's bench, and its per-I/O latency
//! logs become the job's samples. The job file is written from the workload
//! ([`jobfile`]); the logs are read ([`log`]) and checked against fio's own JSON figures
//! ([`report`]): a log that lost entries is an error, not a thinner sample. fio's JSON
//! output and the job file are kept in the job's folder, its version in the manifest.

pub mod jobfile;
pub mod log;
pub mod report;

use std::collections::BTreeMap;

use crate::error::{Result, TargetError};
use crate::io::{Command, Op};
use crate::target::{fio, no_poll_queues, FioFile, TargetInfo, TargetKind};
use crate::trace::{Trace, TraceOp, TraceRequest};
use crate::workload::{IoSource, Length, ReplaySpec, TraceSource, Workload};

use super::{EngineJob, KeptFile, Outcome, Ran, Reporting, Tick};

/// A replay's requests as fio's iolog (version 3, written by [`Trace::to_fio_iolog`]): the
/// trace placed on the span as roundup's own engine places it (aligned to `block`, moved
/// into the span as the test's `remap` says), trims and flushes between them, at their due
/// times (scaled for a timed replay; fio ignores them with `replay_no_stall`).
fn iolog(
    trace: &Trace,
    spec: &ReplaySpec,
    span: u64,
    block: u64,
    file: &FioFile,
) -> std::result::Result<String, String> {
    let name = &file.filename;
    if let Some((_, why)) = replay_refusal(trace, name) {
        return Err(why);
    }
    let mut source = TraceSource::new(&trace.requests, spec, span, block);
    let mut placed = Vec::with_capacity(trace.requests.len());
    let mut time_ns = 0;
    let at = |time_ns, op, offset, len| TraceRequest {
        time_ns,
        op,
        offset,
        len,
        complete_ns: None,
        qd: None,
        process: None,
    };
    loop {
        time_ns = time_ns.max(source.next_deadline().unwrap_or(0));
        while let Some(cmd) = source.next_command() {
            placed.push(match cmd {
                Command::Trim { offset, len } => {
                    let len = u32::try_from(len).map_err(|_| "a trim over 4 GiB".to_string())?;
                    at(time_ns, TraceOp::Trim, offset, len)
                }
                Command::Flush => at(time_ns, TraceOp::Flush, 0, 0),
            });
        }
        let Some(r) = source.next_request() else {
            break;
        };
        let op = match r.op {
            Op::Read => TraceOp::Read,
            Op::Write => TraceOp::Write,
        };
        placed.push(at(time_ns, op, r.offset, r.len));
    }
    let placed = Trace {
        requests: placed,
        format: trace.format,
        skipped: 0,
        devices: Vec::new(),
    };
    Ok(placed.to_fio_iolog(name))
}

/// Why fio cannot replay `trace` on `filename` (the key of the test to point at, and why),
/// which the preflight asks before any job runs: fio's iolog separates its fields with
/// spaces, so it cannot name a file with one, and fio refuses an iolog with nothing to read
/// or write ("failed initializing iolog"; fio 3.33 skips trims, "bad ddir: 2"). Placing a
/// trace on the span keeps every read and write, so the trace as read is what decides.
pub fn replay_refusal(trace: &Trace, filename: &str) -> Option<(&'static str, String)> {
    if filename.chars().any(char::is_whitespace) {
        return Some((
            "engine",
            format!("fio's iolog cannot name a file with spaces ({filename:?}); replay through io_uring"),
        ));
    }
    if !trace
        .requests
        .iter()
        .any(|r| matches!(r.op, TraceOp::Read | TraceOp::Write))
    {
        return Some((
            "trace",
            "fio replays no trace without a read or a write (it skips trims and flushes \
             alone); replay it through io_uring"
                .into(),
        ));
    }
    None
}

/// What fio (asked, or on the target's bench) cannot run of `w` on the target `info`
/// describes, playing `trace` for a replay: the test's key and why, or `None`. A replay on
/// another machine's bench, one [`replay_refusal`] names, polled completions on a device
/// without poll queues, and what [`jobfile::unsupported`] names. The preflight asks before
/// any job runs, as [`crate::target::engine_refusal`] for psync and io_uring.
pub fn refusal(
    w: &Workload,
    trace: Option<&Trace>,
    info: &TargetInfo,
) -> Option<(&'static str, String)> {
    let away = info
        .identity
        .get("bench")
        .and_then(|b| b.parse::<crate::drive::Bench>().ok())
        .is_some_and(|b| !b.is_loopback());
    if away && w.replay.is_some() {
        return Some(("trace", REPLAY_ON_A_BENCH.into()));
    }
    let replay = trace
        .zip(info.path.as_deref())
        .and_then(|(trace, path)| replay_refusal(trace, path));
    if replay.is_some() {
        return replay;
    }
    if let Some(why) = w.io.ring.hipri.then(|| no_poll_queues(info)).flatten() {
        return Some(("io_uring", why));
    }
    jobfile::unsupported(w)
}

/// Why a replay does not run on another machine's bench.
pub const REPLAY_ON_A_BENCH: &str = "a replay cannot run on another machine's bench: fio's \
    client does not send the iolog to the server; replay it on this machine";

/// Runs `job` with fio on `file` (here, or on its bench); `block` is the target's logical
/// block, to which a replay's requests are aligned.
pub fn run(job: &EngineJob, file: &FioFile, block: u64, report: &Reporting) -> Result<Ran> {
    let bench = file.bench.as_ref();
    let where_ = fio::place(bench);
    let fail = |message: String| -> crate::error::Error {
        TargetError::Fio {
            where_: where_.clone(),
            message,
        }
        .into()
    };
    let scratch = fio::ScratchDir::new("job")?;
    let iolog = match (job.trace, &job.workload.replay) {
        // fio's client sends a server the job file, not the files it names: a bench reads
        // the iolog from its own file system, which is this machine's only on this machine.
        (Some(_), Some(_)) if bench.is_some_and(|b| !b.is_loopback()) => {
            return Err(fail(REPLAY_ON_A_BENCH.into()))
        }
        (Some(trace), Some(spec)) => {
            let text = iolog(trace, spec, job.span, block, file).map_err(&fail)?;
            let path = scratch.path.join("replay.iolog");
            std::fs::write(&path, text).map_err(|e| crate::error::Error::io(&path, e))?;
            // A bench's file is fio's to create (here roundup creates its own): a replay
            // opens it as the iolog says, without creating it, so a replay that came first
            // failed with "No such file or directory" (found by a generated run).
            if bench.is_some() && file.kind == TargetKind::File {
                let create = fio::ScratchDir::new("create")?;
                fio::run(&create.path, &file.create_job(job.span), bench, report.stop)?;
            }
            Some(path)
        }
        (None, Some(_)) => return Err(fail("a replay without its trace".into())),
        _ => None,
    };
    let text = jobfile::job_file(&jobfile::JobFileSpec {
        workload: job.workload,
        span: job.span,
        seed: job.seed,
        file,
        logs: &scratch.path,
        iolog: iolog.as_deref(),
    })
    .map_err(&fail)?;
    (report.progress)(Tick {
        done: 0.0,
        ios: 0,
        measured_s: 0.0,
    });
    // fio reports nothing until it ends: a timed job's progress is its time gone by.
    let expected_s = match job.workload.length {
        Length::Duration(ns) if job.trace.is_none() => {
            Some((ns + job.workload.warmup_ns) as f64 / 1e9)
        }
        _ => None,
    };
    let waited = |t: std::time::Duration| {
        if let Some(total) = expected_s {
            (report.progress)(Tick {
                done: (t.as_secs_f64() / total).min(0.99),
                ios: 0,
                measured_s: t.as_secs_f64().min(total),
            });
        }
    };
    let json = fio::run_watched(&scratch.path, &text, bench, report.stop, &waited)?;
    let figures = report::read(&json, jobfile::MEASURED).map_err(&fail)?;
    let paths = fio::latency_logs(&scratch.path, jobfile::LOG_PREFIX)?;
    let logs = paths
        .iter()
        .map(|p| log::read_log(p))
        .collect::<Result<Vec<_>>>()?;
    let logged: u64 = logs.iter().map(|l| l.len() as u64).sum();
    if logged != figures.latencies {
        return Err(fail(format!(
            "fio's latency logs hold {logged} I/Os but its JSON output counts {}: the logs \
             are incomplete",
            figures.latencies
        )));
    }
    let origin = log::origin_ns(&logs);
    let mut out = Outcome::default();
    let mut first = u64::MAX;
    let mut latency_sum_ns = 0u128;
    for (t, entries) in logs.iter().enumerate() {
        let samples = log::samples(entries, origin);
        let mut sink = (report.sink)(t as u32);
        for s in samples {
            first = first.min(s.submit_ns);
            out.end_ns = out.end_ns.max(s.submit_ns + s.latency_ns);
            out.ios += 1;
            out.bytes += s.len as u64;
            latency_sum_ns += s.latency_ns as u128;
            sink.push(s);
        }
    }
    out.measured_ns = out.end_ns.saturating_sub(first.min(out.end_ns));
    // fio logs completions to the millisecond, so a run of a few milliseconds can seem
    // shorter than it was, and more in flight than fio kept: at most what it was given.
    let most = job.workload.threads.max(1) as f64 * job.workload.queue_depth.max(1) as f64;
    out.mean_depth = super::mean_depth(latency_sum_ns, out.measured_ns).map(|d| d.min(most));
    (report.progress)(Tick {
        done: 1.0,
        ios: out.ios,
        measured_s: out.measured_ns as f64 / 1e9,
    });
    let mut extra = BTreeMap::new();
    extra.insert("fio_version".to_string(), figures.version.clone());
    if let Some(b) = bench {
        extra.insert("bench".to_string(), b.to_string());
    }
    Ok(Ran {
        outcome: out,
        engine: "fio",
        kept: vec![
            KeptFile {
                name: fio::OUTPUT,
                bytes: json.into_bytes(),
            },
            KeptFile {
                name: fio::JOB_FILE,
                bytes: text.into_bytes(),
            },
        ],
        extra,
    })
}
