//! The engine: one loop for every target. It keeps exactly the queue depth in flight, stamps
//! each I/O at submit and completion on the target's clock, drops the warm-up, and hands
//! every measured I/O to a [`SampleSink`] as one raw [`Sample`].

pub mod fio;
pub mod steady;

use std::sync::atomic::{AtomicBool, Ordering};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result, TargetError};
use crate::io::{Command, EngineChoice, IoRequest, Op};
use crate::target::diskstats::{BlockCounters, BlockStat, Reading};
use crate::target::{AlignedBuf, Completion, IoQueue, Target};
use crate::trace::Trace;
use crate::workload::{
    compressed_fraction, DataFiller, IoSource, Length, ReplayReport, SyntheticSource, TraceSource,
    Workload,
};

/// One measured I/O.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sample {
    /// Position in the job's request sequence (warm-up I/Os included, so the first measured
    /// sample need not be 0).
    pub seq: u64,
    /// Read or write.
    pub op: Op,
    /// Byte offset.
    pub offset: u64,
    /// Length in bytes.
    pub len: u32,
    /// Submit time since the job's queue opened (ns, target clock).
    pub submit_ns: u64,
    /// Submit to completion (ns).
    pub latency_ns: u64,
    /// I/Os in flight when this one was submitted, itself included.
    pub qd: u32,
}

/// Where samples go (the store's background writer, or a test's vector).
pub trait SampleSink {
    /// Accepts one sample.
    fn push(&mut self, s: Sample);
}

/// A sink that drops every sample (preconditioning, benchmarks of the engine alone).
pub struct Discard;

impl SampleSink for Discard {
    #[inline]
    fn push(&mut self, s: Sample) {
        std::hint::black_box(s);
    }
}

impl SampleSink for Vec<Sample> {
    fn push(&mut self, s: Sample) {
        Vec::push(self, s)
    }
}

/// What a job did, beyond its samples.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Outcome {
    /// Measured I/Os.
    pub ios: u64,
    /// Measured bytes.
    pub bytes: u64,
    /// I/Os issued during the warm-up (not in the samples).
    pub warmup_ios: u64,
    /// From the first measured submit to the last completion (ns).
    pub measured_ns: u64,
    /// The queue clock when the job ended (ns).
    pub end_ns: u64,
    /// For writes: the zstd-compressed size of the data written, as a fraction of its size,
    /// measured on a sample of the written blocks (what "compressible" meant).
    pub compressed_fraction: Option<f64>,
    /// For a steady-state test: every round that ran.
    #[serde(default)]
    pub rounds: Vec<steady::RoundFigures>,
    /// For a steady-state test: whether and where steady state was reached.
    #[serde(default)]
    pub steady_state: Option<steady::Verdict>,
    /// For a replay: what playback changed, and how late timed issues were.
    #[serde(default)]
    pub replay: Option<ReplayReport>,
    /// The I/Os in flight on average over the measured part: the measured I/Os' latencies
    /// summed over its length (Little's law). A latency runs to when the engine took the
    /// completion, so it is the depth the engine kept, an upper bound on the device's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_depth: Option<f64>,
    /// On a real target with a block device under it: what the block layer counted on
    /// that device over the measured part (among it, the depth the device itself saw).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<DeviceView>,
    /// For a test in bursts: how many, and the time busy and idle.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burst: Option<BurstReport>,
}

/// What the block layer counted on a real target's device over a job's measured part (its
/// sysfs `stat` read at the first measured submit and after the last completion): what the
/// device saw, where a latency the engine stamps runs to when it took the completion. Every
/// process's requests to the device count.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeviceView {
    /// The device's kernel name (`vda1`, `zram0`).
    pub name: String,
    /// Requests in flight on average: their times in flight summed, over the interval
    /// (iostat's `aqu-sz`).
    pub depth: f64,
    /// Share of the interval with a request in flight (iostat's `%util`, as a fraction; the
    /// kernel counts it in its clock's ticks, a few ms, so it is coarse over a short job).
    pub busy: f64,
    /// Requests completed (reads and writes).
    pub requests: u64,
    /// Their mean time in the block layer, µs (none without requests; the kernel gives the
    /// times' sum in whole milliseconds).
    pub mean_latency_us: Option<f64>,
    /// The interval the figures are over, ms: from the first measured submit to after the
    /// last completion (with `engine: fio`, the time fio's samples span).
    pub interval_ms: f64,
}

impl DeviceView {
    /// What the counters say between `start` and `end`; none for an empty interval.
    pub fn between(name: &str, start: &Reading, end: &Reading) -> Option<DeviceView> {
        let ms = end.at.saturating_duration_since(start.at).as_secs_f64() * 1e3;
        Self::over(name, start.counters, end.counters, ms)
    }

    /// What the counters' rise from `a` to `b` says over `ms` (the time the requests were
    /// made in, where the readings bracket more: fio's start and end).
    pub fn over(name: &str, a: BlockCounters, b: BlockCounters, ms: f64) -> Option<DeviceView> {
        let rise = |x: u64, y: u64| y.saturating_sub(x);
        let requests = rise(a.reads, b.reads) + rise(a.writes, b.writes);
        let request_ms = rise(a.read_ms, b.read_ms) + rise(a.write_ms, b.write_ms);
        (ms > 0.0).then(|| DeviceView {
            name: name.to_string(),
            depth: thousandth(rise(a.queue_ms, b.queue_ms) as f64 / ms),
            busy: thousandth((rise(a.busy_ms, b.busy_ms) as f64 / ms).min(1.0)),
            requests,
            mean_latency_us: (requests > 0)
                .then(|| thousandth(request_ms as f64 * 1e3 / requests as f64)),
            interval_ms: thousandth(ms),
        })
    }

    /// The view over this interval and `other`'s together (a round-major cell's rounds).
    pub fn merged(&self, other: &DeviceView) -> DeviceView {
        let ms = self.interval_ms + other.interval_ms;
        let by_time = |a: f64, b: f64| {
            thousandth((a * self.interval_ms + b * other.interval_ms) / ms.max(f64::MIN_POSITIVE))
        };
        let requests = self.requests + other.requests;
        let mean_latency_us = match (self.mean_latency_us, other.mean_latency_us) {
            (Some(a), Some(b)) => Some(thousandth(
                (a * self.requests as f64 + b * other.requests as f64) / requests as f64,
            )),
            (a, b) => a.or(b),
        };
        DeviceView {
            name: self.name.clone(),
            depth: by_time(self.depth, other.depth),
            busy: by_time(self.busy, other.busy),
            requests,
            mean_latency_us,
            interval_ms: thousandth(ms),
        }
    }
}

/// What a test in bursts did: its figures are over `busy_ns`, the bursts' time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct BurstReport {
    /// Bursts begun in the measured part (the last may be cut short by the test's end).
    pub bursts: u64,
    /// From each measured burst's first submit to its last completion, summed (ns); the
    /// longest of the loops' where there are several.
    pub busy_ns: u64,
    /// Idle time between them (ns).
    pub idle_ns: u64,
}

/// A progress report, sent every few thousand I/Os.
#[derive(Debug, Clone, Copy)]
pub struct Tick {
    /// Fraction of the job done, 0 to 1.
    pub done: f64,
    /// Measured I/Os so far.
    pub ios: u64,
    /// Target-clock seconds of the measured part so far.
    pub measured_s: f64,
}

/// How often (in completions) the engine reports progress and checks for Ctrl-C.
const TICK_EVERY: u64 = 4096;
/// One written block in this many is compressed to measure the data's compressibility.
const PROBE_EVERY: u64 = 512;
/// At most this many blocks are compressed per job.
const PROBE_MAX: u32 = 256;
/// Of a block larger than this, only its first this many bytes are compressed: the data
/// is the same kind throughout, and a 2 GiB block would otherwise cost seconds of zstd.
const PROBE_BYTES: usize = 4 << 20;

/// How a job was run: the engine that served it and its shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    /// Engine loops (threads), each with its own queue.
    pub threads: u32,
    /// I/Os each loop keeps in flight.
    pub depth: u32,
}

/// The shape a workload runs in on `target`: `threads` loops of `queue_depth`, or one loop
/// of `threads × queue_depth` on a target that serves only one queue.
pub fn shape(w: &Workload, target: &dyn Target) -> Shape {
    if w.threads > 1 && !target.parallel() {
        Shape {
            threads: 1,
            depth: w.queue_depth * w.threads,
        }
    } else {
        Shape {
            threads: w.threads.max(1),
            depth: w.queue_depth,
        }
    }
}

/// One loop's result, before the loops of a job are combined.
#[derive(Default)]
struct LoopResult {
    out: Outcome,
    first_measured: Option<u64>,
    last_done: u64,
    probe_in: u64,
    probe_out: u64,
    lag_sum_ns: u64,
    lag_max_ns: u64,
    late: u64,
    qd_sum: u64,
    /// The measured I/Os' latencies, summed (ns).
    latency_sum_ns: u128,
    /// The device's counters at the first measured submit (the leading loop's).
    device_start: Option<Reading>,
}

/// What the engine runs: one job's workload over `span` bytes of the target, with the
/// job's seed, the engine asked for and, for a replay, the trace.
pub struct EngineJob<'a> {
    /// The workload.
    pub workload: &'a Workload,
    /// Bytes of the target the offsets cover.
    pub span: u64,
    /// The job's seed (each loop derives its own from it).
    pub seed: u64,
    /// The engine asked for (a real target's; simulated ones have their own).
    pub engine: EngineChoice,
    /// The trace a replay plays.
    pub trace: Option<&'a Trace>,
}

/// Where the engine reports as it runs: `sink(t)` gives loop `t` its sample sink;
/// `progress` hears a [`Tick`] every few thousand I/Os; `stop` is Ctrl-C.
pub struct Reporting<'a, 's> {
    /// Each loop's sample sink.
    pub sink: &'a (dyn Fn(u32) -> Box<dyn SampleSink + Send + 's> + Sync),
    /// Progress.
    pub progress: &'a (dyn Fn(Tick) + Sync),
    /// Set to stop the job (Ctrl-C).
    pub stop: &'a AtomicBool,
}

/// What a job's engine measured, and the engine that served it.
#[derive(Debug, Clone)]
pub struct Ran {
    /// What the engine measured beyond the samples.
    pub outcome: Outcome,
    /// `io_uring`, `psync`, `fio` or the simulation model.
    pub engine: &'static str,
    /// Files the engine's own tool wrote, kept in the job's folder (fio's JSON output and
    /// job file).
    pub kept: Vec<KeptFile>,
    /// What the manifest records beyond the figures (fio's version, the bench).
    pub extra: std::collections::BTreeMap<String, String>,
}

/// A file an engine's tool wrote, kept beside the samples.
#[derive(Debug, Clone)]
pub struct KeptFile {
    /// Its name in the job's folder.
    pub name: &'static str,
    /// Its content.
    pub bytes: Vec<u8>,
}

/// Runs one job on `target` in the job's [`shape`].
pub fn run(job: &EngineJob, target: &mut dyn Target, report: &Reporting) -> Result<Ran> {
    // Passes over the span run as the count of I/Os they take, on every engine.
    if let Length::Passes(_) = job.workload.length {
        let mut w = job.workload.clone();
        w.length = w.length.for_span(job.span, w.block_size.max());
        return run(
            &EngineJob {
                workload: &w,
                ..*job
            },
            target,
            report,
        );
    }
    let EngineJob {
        workload: w,
        span,
        seed,
        engine,
        trace,
    } = *job;
    let Reporting {
        sink,
        progress,
        stop,
    } = *report;
    // fio runs a job when asked, and always on a bench (the only way to reach it).
    if let Some(file) = target
        .fio_file()
        .filter(|f| engine == EngineChoice::Fio || f.bench.is_some())
    {
        let block = target.info().logical_block as u64;
        // fio here: the device's counters read before and after fio, over the time its
        // samples span (a bench's device is out of reach).
        let device = file.bench.is_none().then(|| target.block_stat()).flatten();
        let start = device.as_ref().and_then(|d| d.read());
        let mut ran = fio::run(job, &file, block, report)?;
        let end = device.as_ref().and_then(|d| d.read());
        if let (Some(d), Some(start), Some(end)) = (&device, start, end) {
            let ms = ran.outcome.measured_ns as f64 / 1e6;
            ran.outcome.device = DeviceView::over(&d.name, start.counters, end.counters, ms);
        }
        return Ok(ran);
    }
    let shape = shape(w, target);
    let block = target.info().logical_block as u64;
    let writes = w.issues_writes();
    let needs_data = target.needs_data() && writes;
    let random_as_mark = needs_data && target.random_as_mark();
    let buffers = needs_buffers(target.info().kind, target.needs_data());
    let device = target.block_stat();
    let kind = target.info().kind;
    let queues = target.queues(shape.threads, shape.depth, engine, &w.io)?;
    let queues = crate::target::behind_host(kind, queues, w.host_latency_ns);
    let engine_used = queues.first().map(|q| q.engine()).unwrap_or("none");
    let abort = AtomicBool::new(false);
    let tracker = match (w.steady_state, w.length) {
        (Some(spec), Length::Duration(d)) => Some(steady::Tracker::new(spec, w.warmup_ns, d)),
        _ => None,
    };
    let tracker = tracker.as_ref();
    let run_one = |t: usize, queue: &mut dyn IoQueue| {
        let seed = if t == 0 {
            seed
        } else {
            crate::rng::derive_seed(seed, &["thread", &t.to_string()])
        };
        let mut sink = sink(t as u32);
        let mut source: Box<dyn IoSource> = match (trace, &w.replay) {
            (Some(t), Some(spec)) => Box::new(TraceSource::new(&t.requests, spec, span, block)),
            _ => Box::new(SyntheticSource::new(w, span, seed).share_rate(shape.threads)),
        };
        let mut filler = DataFiller::new(w.data, w.compressible_fraction, seed);
        let ctx = LoopContext {
            depth: shape.depth,
            needs_data,
            buffers,
            random_as_mark,
            tracker,
            leader: t == 0,
            block: device.as_ref(),
            stop,
            abort: &abort,
        };
        let r = run_loop(
            w,
            &ctx,
            source.as_mut(),
            &mut filler,
            queue,
            sink.as_mut(),
            progress,
        );
        if r.is_err() {
            abort.store(true, Ordering::Relaxed);
        }
        r
    };
    let results = run_loops(queues, &w.io.cpus, &run_one);
    let end = device.as_ref().and_then(|b| b.read());
    let mut total = combine(results)?;
    if let (Some(b), Some(start), Some(end)) = (&device, &total.device_start, &end) {
        total.out.device = DeviceView::between(&b.name, start, end);
    }
    if stop.load(Ordering::Relaxed) {
        return Err(Error::Interrupted);
    }
    if writes && !needs_data {
        // The target ignores data, so none was generated: measure what it would have been.
        let mut filler = DataFiller::new(w.data, w.compressible_fraction, seed);
        let mut buf = vec![0u8; (w.block_size.max() as usize).min(PROBE_BYTES)];
        for _ in 0..16 {
            filler.fill(&mut buf);
            total.probe_in += buf.len() as u64;
            total.probe_out += (compressed_fraction(&buf) * buf.len() as f64) as u64;
        }
    }
    let mut out = total.out;
    out.compressed_fraction =
        (total.probe_in > 0).then(|| total.probe_out as f64 / total.probe_in as f64);
    if let Some(t) = tracker {
        let (rounds, verdict) = t.finish(out.end_ns);
        out.rounds = rounds;
        out.steady_state = Some(verdict);
    }
    Ok(Ran {
        outcome: out,
        engine: engine_used,
        kept: Vec::new(),
        extra: Default::default(),
    })
}

/// Runs one loop per queue: on this thread where there is one queue (where it was opened),
/// else a thread each.
fn run_loops(
    mut queues: Vec<Box<dyn IoQueue + Send + '_>>,
    cpus: &[u32],
    run_one: &(dyn Fn(usize, &mut dyn IoQueue) -> Result<LoopResult> + Sync),
) -> Vec<Result<LoopResult>> {
    // A pinned loop runs on a thread of its own, so the caller's thread is never pinned.
    if queues.len() == 1 && cpus.is_empty() {
        return vec![run_one(0, queues[0].as_mut())];
    }
    std::thread::scope(|scope| {
        let handles: Vec<_> = queues
            .iter_mut()
            .enumerate()
            .map(|(t, queue)| {
                let cpu = (!cpus.is_empty()).then(|| cpus[t % cpus.len()]);
                scope.spawn(move || {
                    if let Some(cpu) = cpu {
                        pin_to(cpu)?;
                    }
                    run_one(t, queue.as_mut())
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join().unwrap_or(Err(Error::Target(TargetError::Internal(
                    "an engine thread panicked",
                ))))
            })
            .collect()
    })
}

/// Pins the calling thread to `cpu` (fio's `cpus_allowed_policy=split`, a CPU a thread).
fn pin_to(cpu: u32) -> Result<()> {
    // SAFETY: a zeroed cpu_set_t is an empty set; CPU_SET writes inside it (checked below
    // against its size), and sched_setaffinity reads it for the calling thread (0).
    let rc = unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if cpu as usize >= 8 * std::mem::size_of::<libc::cpu_set_t>() {
            return Err(unsupported_cpu(cpu, None));
        }
        libc::CPU_SET(cpu as usize, &mut set);
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set)
    };
    if rc != 0 {
        return Err(unsupported_cpu(cpu, Some(std::io::Error::last_os_error())));
    }
    Ok(())
}

/// `cpus: CPU 7 is not one this process may run on (0-1)`.
fn unsupported_cpu(cpu: u32, error: Option<std::io::Error>) -> Error {
    let n = std::thread::available_parallelism().map_or(1, |n| n.get());
    Error::Target(TargetError::Unsupported(format!(
        "cpus: CPU {cpu} is not one this process may run on (this machine offers {n}: 0-{}){}",
        n - 1,
        error.map(|e| format!(": {e}")).unwrap_or_default()
    )))
}

/// The loops' results as one: counts added, the job's span from the first measured submit
/// to the last completion.
fn combine(results: Vec<Result<LoopResult>>) -> Result<LoopResult> {
    let mut total = LoopResult::default();
    let mut first: Option<u64> = None;
    for r in results {
        let r = r?;
        total.out.ios += r.out.ios;
        total.out.bytes += r.out.bytes;
        total.out.warmup_ios += r.out.warmup_ios;
        total.out.end_ns = total.out.end_ns.max(r.out.end_ns);
        total.last_done = total.last_done.max(r.last_done);
        first = match (first, r.first_measured) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        total.probe_in += r.probe_in;
        total.probe_out += r.probe_out;
        total.latency_sum_ns += r.latency_sum_ns;
        total.device_start = total.device_start.or(r.device_start);
        if total.out.replay.is_none() {
            total.out.replay = r.out.replay;
        }
        if let Some(b) = r.out.burst {
            let t = total.out.burst.get_or_insert_with(BurstReport::default);
            t.bursts += b.bursts;
            t.busy_ns = t.busy_ns.max(b.busy_ns);
            t.idle_ns = t.idle_ns.max(b.idle_ns);
        }
    }
    total.out.measured_ns = first
        .map(|f| total.last_done.saturating_sub(f))
        .unwrap_or(0);
    total.out.mean_depth = mean_depth(total.latency_sum_ns, total.out.measured_ns);
    Ok(total)
}

/// The I/Os in flight on average over `measured_ns` whose latencies sum to `latency_sum_ns`
/// (Little's law), rounded to a thousandth so that it reads the same in every manifest.
pub fn mean_depth(latency_sum_ns: u128, measured_ns: u64) -> Option<f64> {
    (measured_ns > 0).then(|| thousandth(latency_sum_ns as f64 / measured_ns as f64))
}

/// `x` rounded to a thousandth, so that a figure reads the same in every manifest.
fn thousandth(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// Adds a timed replay's issue `lag` (ns behind its deadline) to the loop's sums.
fn note_lag(r: &mut LoopResult, lag: u64) {
    r.lag_sum_ns += lag;
    r.lag_max_ns = r.lag_max_ns.max(lag);
    r.late += (lag > 1_000_000) as u64;
}

/// What every loop of a job shares.
struct LoopContext<'a> {
    depth: u32,
    needs_data: bool,
    /// Each slot has a buffer of the largest request (else a token one: a model that
    /// does not look at the data).
    buffers: bool,
    /// Incompressible data is not generated but marked (except the probes'): the target
    /// looks only at how it compresses.
    random_as_mark: bool,
    tracker: Option<&'a steady::Tracker>,
    /// The loop that tests the steady-state rounds and reports progress (and reads the
    /// device's counters when the measured part starts).
    leader: bool,
    block: Option<&'a BlockStat>,
    stop: &'a AtomicBool,
    abort: &'a AtomicBool,
}

/// An I/O in flight: the request, when it was submitted, and the queue depth it saw.
#[derive(Clone, Copy)]
struct InFlight {
    req: IoRequest,
    submit_ns: u64,
    qd: u32,
}

/// A trim or flush from the source (and its deadline), waiting for the queue to drain.
#[derive(Clone, Copy)]
struct Held {
    cmd: Command,
    due: Option<u64>,
}

/// One engine loop's state: its slots (free, with their buffers, or in flight), when it
/// stops, and what it has counted.
struct Loop<'a> {
    w: &'a Workload,
    ctx: &'a LoopContext<'a>,
    free: Vec<(u32, AlignedBuf)>,
    inflight: Vec<Option<InFlight>>,
    /// When issuing stops (a duration) or how many measured I/Os it issues (a count).
    end_ns: Option<u64>,
    count: Option<u64>,
    /// A steady-state round's length, and where the next one starts.
    round_ns: u64,
    next_boundary: u64,
    r: LoopResult,
    measured_issued: u64,
    outstanding: u32,
    issuing: bool,
    since_tick: u64,
    held: Option<Held>,
    writes: u64,
    probes: u32,
    /// Bytes issued in the current burst, when it began, and when the next may begin.
    burst_bytes: u64,
    burst_start: Option<u64>,
    resume_at: Option<u64>,
}

/// Whether a job's slots need buffers of its largest request: a real target's do (the
/// kernel reads and writes them); a model reads no byte of one unless it looks at the data
/// written, so its slots get tokens of no bytes (a PTS cell at 80 threads × QD32 of 1 MiB
/// would otherwise hold 2.5 GiB, zeroed for every cell).
pub(crate) fn needs_buffers(kind: crate::target::TargetKind, looks_at_data: bool) -> bool {
    looks_at_data || kind != crate::target::TargetKind::Simulated
}

/// One engine loop: keeps `depth` requests from `source` in flight on `queue`.
fn run_loop(
    w: &Workload,
    ctx: &LoopContext,
    source: &mut dyn IoSource,
    filler: &mut DataFiller,
    queue: &mut dyn IoQueue,
    sink: &mut dyn SampleSink,
    progress: &dyn Fn(Tick),
) -> Result<LoopResult> {
    let mut l = Loop::new(w, ctx, source.max_len() as usize);
    let mut completions: Vec<Completion> = Vec::with_capacity(ctx.depth as usize);
    loop {
        let waiting = l.issue(source, filler, queue)?;
        if l.outstanding == 0 && waiting.is_none() {
            break;
        }
        match waiting {
            Some(d) => queue.wait_until(d, &mut completions)?,
            None => queue.reap(&mut completions)?,
        }
        l.complete(&mut completions, sink)?;
        if l.since_tick >= TICK_EVERY {
            l.tick(queue, progress)?;
        }
    }
    Ok(l.finish(source, queue))
}

impl<'a> Loop<'a> {
    fn new(w: &'a Workload, ctx: &'a LoopContext<'a>, max_len: usize) -> Loop<'a> {
        let depth = ctx.depth;
        let (end_ns, count) = match w.length {
            Length::Duration(d) => (Some(w.warmup_ns + d), None),
            Length::Count(n) => (None, Some(n)),
            // Resolved by `run` to a count; none is left.
            Length::Passes(_) => (None, Some(0)),
        };
        let round_ns = match w.length {
            Length::Duration(d) => d.max(1),
            Length::Count(_) | Length::Passes(_) => u64::MAX,
        };
        Loop {
            w,
            ctx,
            free: (0..depth)
                .rev()
                .map(|s| (s, AlignedBuf::new(if ctx.buffers { max_len } else { 0 })))
                .collect(),
            inflight: vec![None; depth as usize],
            end_ns,
            count,
            round_ns,
            next_boundary: w.warmup_ns.saturating_add(round_ns),
            r: LoopResult::default(),
            measured_issued: 0,
            outstanding: 0,
            issuing: true,
            since_tick: 0,
            held: None,
            writes: 0,
            probes: 0,
            burst_bytes: 0,
            burst_start: None,
            resume_at: None,
        }
    }

    /// In a test in bursts: `Some(when)` the next burst begins if the loop must wait for
    /// it (idle, or the current burst draining: `Some(now)`), `None` to go on issuing.
    fn burst_wait(&mut self, now: u64, end_ns: Option<u64>) -> Option<u64> {
        let b = self.w.burst?;
        if let Some(t) = self.resume_at {
            if now < t {
                return Some(end_ns.map_or(t, |e| t.min(e)));
            }
            self.resume_at = None;
        }
        if self.burst_bytes < b.bytes {
            return None;
        }
        if self.outstanding > 0 {
            return Some(now);
        }
        // The burst is done: idle for as long as makes it `duty_cycle` of the time.
        let start = self.burst_start.take().unwrap_or(now);
        let busy = now.saturating_sub(start);
        let idle = (busy as f64 * (1.0 / b.duty_cycle - 1.0)).round() as u64;
        self.burst_bytes = 0;
        if start >= self.w.warmup_ns {
            let report = self.r.out.burst.get_or_insert_with(BurstReport::default);
            report.bursts += 1;
            report.busy_ns += busy;
            report.idle_ns += idle;
        }
        if idle == 0 {
            return None;
        }
        self.resume_at = Some(now + idle);
        Some(end_ns.map_or(now + idle, |e| (now + idle).min(e)))
    }

    /// When issuing stops: the steady-state tracker's end (the leader moves it on at each
    /// round's boundary), else the test's.
    fn end_at(&mut self, now: u64) -> Option<u64> {
        let warmup = self.w.warmup_ns;
        match self.ctx.tracker {
            Some(t) => {
                if self.ctx.leader && now >= self.next_boundary {
                    t.at(now);
                    self.next_boundary =
                        warmup + ((now - warmup) / self.round_ns + 1) * self.round_ns;
                }
                Some(t.end_at())
            }
            None => self.end_ns,
        }
    }

    /// Issues requests (and the source's trims and flushes, with nothing in flight) until
    /// the queue is full, the test is done, or a timed replay's next request is not due;
    /// returns when that one is due.
    fn issue(
        &mut self,
        source: &mut dyn IoSource,
        filler: &mut DataFiller,
        queue: &mut dyn IoQueue,
    ) -> Result<Option<u64>> {
        let depth = self.ctx.depth;
        while self.issuing
            && self.outstanding < source.depth_limit().map_or(depth, |q| q.min(depth))
        {
            let now = queue.now();
            let end_ns = self.end_at(now);
            if end_ns.is_some_and(|e| now >= e)
                || self.count.is_some_and(|c| self.measured_issued >= c)
            {
                self.issuing = false;
                break;
            }
            match self.burst_wait(now, end_ns) {
                // Draining the burst: wait for completions.
                Some(t) if t == now => break,
                Some(t) => return Ok(Some(t)),
                None => {}
            }
            let due = match self.held {
                Some(h) => h.due,
                None => source.next_deadline(),
            };
            if let Some(d) = due.filter(|&d| now < d) {
                // A paced request due after the test's end is not waited for.
                return Ok(Some(end_ns.map_or(d, |e| d.min(e))));
            }
            if self.held.is_none() {
                self.held = source.next_command().map(|cmd| Held { cmd, due });
                if self.held.is_none() && source.next_deadline() != due {
                    // The source dropped what was due (a trim of less than a block): the
                    // next request has a deadline of its own.
                    continue;
                }
            }
            if let Some(h) = self.held {
                // Not a queued command: the queue drains first.
                if self.outstanding > 0 {
                    break;
                }
                if let Some(d) = h.due {
                    note_lag(&mut self.r, now - d);
                }
                queue.command(h.cmd)?;
                self.held = None;
                continue;
            }
            let Some(req) = source.next_request() else {
                self.issuing = false;
                break;
            };
            if let Some(d) = due {
                note_lag(&mut self.r, now - d);
            }
            self.submit(req, now, filler, queue)?;
            // Two requests ahead where the source knows them: a simulated drive fetches
            // in two steps (a map word, then what it points at).
            if let Some(ahead) = source.peek_further().or(source.peek()) {
                queue.prefetch(ahead);
            }
        }
        Ok(None)
    }

    /// Submits `req` at `now` on a free slot, its data written first.
    fn submit(
        &mut self,
        req: IoRequest,
        now: u64,
        filler: &mut DataFiller,
        queue: &mut dyn IoQueue,
    ) -> Result<()> {
        let (slot, mut buf) = self
            .free
            .pop()
            .expect("a free slot when fewer than depth are in flight");
        if req.op == Op::Write && self.ctx.needs_data {
            let probe = self.writes % PROBE_EVERY == 0 && self.probes < PROBE_MAX;
            let marked = self.ctx.random_as_mark && !probe && filler.skip_random();
            buf.mark_random(marked);
            let data = &mut buf.as_mut_slice()[..req.len as usize];
            if !marked {
                filler.fill(data);
            }
            if probe {
                let data = &data[..data.len().min(PROBE_BYTES)];
                self.r.probe_in += data.len() as u64;
                self.r.probe_out += (compressed_fraction(data) * data.len() as f64) as u64;
                self.probes += 1;
            }
            self.writes += 1;
        }
        if now >= self.w.warmup_ns {
            self.measured_issued += 1;
            if self.r.first_measured.is_none() && self.ctx.leader {
                self.r.device_start = self.ctx.block.and_then(|b| b.read());
            }
            self.r.first_measured.get_or_insert(now);
        }
        if self.w.burst.is_some() {
            self.burst_start.get_or_insert(now);
            self.burst_bytes += req.len as u64;
        }
        self.outstanding += 1;
        self.r.qd_sum += self.outstanding as u64;
        self.inflight[slot as usize] = Some(InFlight {
            req,
            submit_ns: now,
            qd: self.outstanding,
        });
        queue.submit(slot, req, buf)
    }

    /// Takes the completions: a sample for each measured one, its slot freed.
    fn complete(
        &mut self,
        completions: &mut Vec<Completion>,
        sink: &mut dyn SampleSink,
    ) -> Result<()> {
        for c in completions.drain(..) {
            self.outstanding -= 1;
            let Some(InFlight { req, submit_ns, qd }) = self.inflight[c.slot as usize].take()
            else {
                return Err(Error::Target(TargetError::Internal(
                    "a completion for an idle slot",
                )));
            };
            if let Some(e) = c.error {
                return Err(Error::Target(TargetError::Failed(e)));
            }
            let r = &mut self.r;
            r.last_done = r.last_done.max(c.done_ns);
            let latency_ns = c.done_ns.saturating_sub(submit_ns);
            if let Some(t) = self.ctx.tracker {
                t.record(c.done_ns, req.len as u64, latency_ns);
            }
            if submit_ns >= self.w.warmup_ns {
                r.out.ios += 1;
                r.out.bytes += req.len as u64;
                r.latency_sum_ns += latency_ns as u128;
                sink.push(Sample {
                    seq: req.seq,
                    op: req.op,
                    offset: req.offset,
                    len: req.len,
                    submit_ns,
                    latency_ns,
                    qd,
                });
            } else {
                r.out.warmup_ios += 1;
            }
            self.free.push((c.slot, c.buf));
            self.since_tick += 1;
        }
        Ok(())
    }

    /// Every few thousand completions: Ctrl-C, another loop's failure, and progress.
    fn tick(&mut self, queue: &dyn IoQueue, progress: &dyn Fn(Tick)) -> Result<()> {
        self.since_tick = 0;
        if self.ctx.stop.load(Ordering::Relaxed) {
            return Err(Error::Interrupted);
        }
        if self.ctx.abort.load(Ordering::Relaxed) {
            self.issuing = false;
        }
        let now = queue.now();
        let end_ns = self.ctx.tracker.map(|t| t.end_at()).or(self.end_ns);
        let done = match (end_ns, self.count) {
            (Some(e), _) => now as f64 / e.max(1) as f64,
            (_, Some(c)) => self.r.out.ios as f64 / c as f64,
            _ => 0.0,
        };
        if self.ctx.leader {
            progress(Tick {
                done: done.min(1.0),
                ios: self.r.out.ios,
                measured_s: now.saturating_sub(self.w.warmup_ns) as f64 / 1e9,
            });
        }
        Ok(())
    }

    /// The loop's result, with what a replay's playback changed.
    fn finish(self, source: &dyn IoSource, queue: &dyn IoQueue) -> LoopResult {
        let mut r = self.r;
        r.out.end_ns = queue.now();
        // A burst the test's end cut short counts its time busy.
        if let Some(start) = self.burst_start.filter(|s| *s >= self.w.warmup_ns) {
            let report = r.out.burst.get_or_insert_with(BurstReport::default);
            report.bursts += 1;
            report.busy_ns += r.last_done.saturating_sub(start);
        }
        r.out.replay = source.replay_report().map(|mut rep| {
            if self
                .w
                .replay
                .as_ref()
                .is_some_and(|s| s.mode == crate::workload::ReplayMode::Timed)
            {
                rep.lag_mean_us = r.lag_sum_ns as f64
                    / (rep.issued + rep.trims + rep.flushes).max(1) as f64
                    / 1e3;
                rep.lag_max_us = r.lag_max_ns as f64 / 1e3;
                rep.late_issues = r.late;
            }
            rep.average_qd = r.qd_sum as f64 / rep.issued.max(1) as f64;
            rep
        });
        r
    }
}

#[cfg(test)]
mod tests {
    use super::{needs_buffers, DeviceView, Loop, LoopContext};
    use crate::target::diskstats::BlockCounters;
    use crate::target::TargetKind;
    use crate::workload::{Length, Pattern, Span, Workload};
    use std::sync::atomic::AtomicBool;

    #[test]
    fn a_model_that_ignores_data_gets_token_buffers() {
        assert!(needs_buffers(TargetKind::File, false));
        assert!(needs_buffers(TargetKind::BlockDevice, false));
        assert!(needs_buffers(TargetKind::Simulated, true));
        assert!(!needs_buffers(TargetKind::Simulated, false));
        let w = Workload::simple(
            0,
            Pattern::Random,
            1 << 20,
            Span::Bytes(1 << 30),
            32,
            Length::Count(1),
        );
        let (stop, abort) = (AtomicBool::new(false), AtomicBool::new(false));
        let slots = |buffers| {
            let ctx = LoopContext {
                depth: 32,
                needs_data: false,
                buffers,
                random_as_mark: false,
                tracker: None,
                leader: true,
                block: None,
                stop: &stop,
                abort: &abort,
            };
            let l = Loop::new(&w, &ctx, 1 << 20);
            l.free.iter().map(|(_, b)| b.len()).collect::<Vec<_>>()
        };
        // 32 slots of 1 MiB, or tokens of no bytes.
        assert_eq!(slots(true), vec![1 << 20; 32]);
        assert_eq!(slots(false), vec![0; 32]);
    }

    #[test]
    fn the_device_view_is_the_counters_rise_over_the_interval() {
        let a = BlockCounters {
            reads: 100,
            read_ms: 10,
            writes: 5,
            write_ms: 1,
            busy_ms: 20,
            queue_ms: 50,
        };
        let b = BlockCounters {
            reads: 4100,
            read_ms: 810,
            busy_ms: 1030,
            queue_ms: 25_050,
            ..a
        };
        let v = DeviceView::over("vda", a, b, 1000.0).unwrap();
        assert_eq!(v.name, "vda");
        assert_eq!(v.depth, 25.0);
        // Ticks past the interval's end (the kernel's clock) read as busy throughout.
        assert_eq!(v.busy, 1.0);
        assert_eq!(v.requests, 4000);
        assert_eq!(v.mean_latency_us, Some(200.0));
        let idle = DeviceView::over("vda", a, a, 10.0).unwrap();
        assert_eq!(
            (idle.depth, idle.requests, idle.mean_latency_us),
            (0.0, 0, None)
        );
        assert!(DeviceView::over("vda", a, b, 0.0).is_none());
        // Two rounds: depth and busy weighted by time, latency by requests.
        let short = DeviceView::over(
            "vda",
            a,
            BlockCounters {
                queue_ms: 3050,
                ..b
            },
            3000.0,
        );
        let both = v.merged(&short.unwrap());
        assert_eq!(
            (both.depth, both.requests, both.interval_ms),
            (7.0, 8000, 4000.0)
        );
        assert_eq!(both.mean_latency_us, Some(200.0));
        assert_eq!(idle.merged(&idle).mean_latency_us, None);
    }
}
