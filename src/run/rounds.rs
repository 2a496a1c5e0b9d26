//! A round-major steady-state test (SNIA PTS IOPS): after the test's preconditioning, each
//! round runs every variant of the test for the test's `duration`, in turn, until the
//! tracked variant's figure is steady over the window or the last round has run. Each
//! variant is stored as its own job, its rounds back to back on its own clock (the other
//! variants' time between them left out), with the rounds and the measurement window in
//! its manifest as a single steady-state job's are: its figures are the window's.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::engine::steady::{is_steady, RoundFigures, Verdict};
use crate::engine::{self, EngineJob, Outcome, Ran, Reporting, Sample, SampleSink, Tick};
use crate::error::Result;
use crate::store::{self, Recorder, SampleWriter, MANIFEST};
use crate::target::TargetKind;

use super::job::{manifest, precondition, JobToRun, Measured};
use super::preflight::CheckedJob;
use super::schedule::{job_dir, DriveRun};
use super::RunContext;

/// A sink that moves a cell's samples onto its own clock (its earlier rounds back to back)
/// and adds up their latencies for the round's figures.
struct Shifted<'a> {
    inner: Box<dyn SampleSink + Send + 'a>,
    submit_ns: u64,
    seq: u64,
    latency_sum: &'a AtomicU64,
}

impl SampleSink for Shifted<'_> {
    #[inline]
    fn push(&mut self, mut s: Sample) {
        self.latency_sum.fetch_add(s.latency_ns, Ordering::Relaxed);
        s.submit_ns += self.submit_ns;
        s.seq += self.seq;
        self.inner.push(s);
    }
}

/// One variant's place in the rounds: its writer, its clock and what it has measured.
struct Cell<'a> {
    planned: &'a JobToRun<'a>,
    writer: Option<SampleWriter>,
    /// Histograms of the last rounds (a window's worth), where only a histogram is kept.
    window_histograms: VecDeque<Vec<Recorder>>,
    /// The cell's own clock: the end of its last round (ns).
    clock: u64,
    /// Requests issued so far (warm-ups included), for the samples' `seq`.
    issued: u64,
    out: Outcome,
    /// The measured I/Os' latencies, summed (ns), for the mean depth.
    latency_sum_ns: u128,
    rounds: Vec<RoundFigures>,
    engine: &'static str,
}

/// What every variant of the group shares when it is stored.
struct GroupEnd {
    /// The test's preconditioning, run once before the first round.
    precondition: Option<store::PreconditionRecord>,
    /// When the first round started (a real drive).
    started_at: Option<String>,
    /// The round that closed the first steady window, if one did.
    reached: Option<u32>,
    /// `iops of bs-4k_wr-100`.
    tracked: String,
}

/// The order a round runs its variants in: the last dimension outermost (a PTS suite's
/// `block_size` × `writes` runs every block size of one mix, then the next mix, as SNIA's
/// loop does).
fn round_order(cells: &[&CheckedJob]) -> Vec<usize> {
    let rank = |k: usize| -> Vec<usize> {
        let settings = &cells[k].job.variant.settings;
        settings
            .iter()
            .enumerate()
            .rev()
            .map(|(d, setting)| {
                // A value's rank: where it first appears among the cells.
                cells
                    .iter()
                    .position(|c| c.job.variant.settings.get(d) == Some(setting))
                    .unwrap_or(0)
            })
            .collect()
    };
    let mut order: Vec<usize> = (0..cells.len()).collect();
    order.sort_by_key(|&k| rank(k));
    order
}

/// Runs a round-major test's jobs (every variant of the test, in plan order) on the drive:
/// each stored where `store` says, the rest run for the drive's state.
pub(crate) fn run_rounds(ctx: &RunContext, drive: &mut DriveRun, group: &[JobToRun]) -> Result<()> {
    let first = group[0].checked;
    let job = first.job;
    let simulated = drive.target.info().kind == TargetKind::Simulated;
    let spec = job
        .workload
        .steady_state
        .expect("a round-major test is a steady-state test");
    let track_id = job.round_major.clone().unwrap_or_default();
    let tracked_cell = group
        .iter()
        .position(|p| p.checked.job.variant.id == track_id)
        .unwrap_or(0);
    ctx.obs.job_started(first.index, ctx.total, job);
    if job.workload.interval_ns > 0 {
        drive.target.idle(job.workload.interval_ns, ctx.stop);
    }
    let started_at = (!simulated).then(super::job::now_rfc3339);
    let engine_choice = ctx.opts.engine.unwrap_or(job.engine);
    let record = precondition(
        drive.target.as_mut(),
        job,
        first.span,
        engine_choice,
        ctx.stop,
    )?;
    let mut cells = Vec::with_capacity(group.len());
    for planned in group {
        let j = planned.checked.job;
        let dir = job_dir(ctx.lab, &drive.firmware.name, j);
        let writer = if planned.store {
            store::remove_stale_temps(&dir);
            Some(SampleWriter::create(
                &dir,
                &j.id,
                !simulated,
                j.workload.samples,
            )?)
        } else {
            None
        };
        cells.push(Cell {
            planned,
            writer,
            window_histograms: VecDeque::new(),
            clock: 0,
            issued: 0,
            out: Outcome::default(),
            latency_sum_ns: 0,
            rounds: Vec::new(),
            engine: "none",
        });
    }
    let checked: Vec<&CheckedJob> = group.iter().map(|p| p.checked).collect();
    let order = round_order(&checked);
    let window = spec.window as usize;
    let mut reached: Option<u32> = None;
    for round in 1..=spec.max_rounds {
        for (k, &c) in order.iter().enumerate() {
            let cell = &mut cells[c];
            let j = cell.planned.checked.job;
            let mut w = j.workload.clone();
            w.steady_state = None;
            let latency_sum = AtomicU64::new(0);
            let (submit_ns, seq) = (cell.clock, cell.issued);
            let writer = cell.writer.as_ref();
            let sum = &latency_sum;
            let sink = |t: u32| -> Box<dyn SampleSink + Send + '_> {
                let inner: Box<dyn SampleSink + Send> = match writer {
                    Some(w) => Box::new(w.sink(t)),
                    None => Box::new(engine::Discard),
                };
                Box::new(Shifted {
                    inner,
                    submit_ns,
                    seq,
                    latency_sum: sum,
                })
            };
            let done_before = (round - 1) as f64 + k as f64 / order.len() as f64;
            let progress = |t: Tick| {
                let done = (done_before + t.done / order.len() as f64) / spec.max_rounds as f64;
                ctx.obs.job_tick(job, Tick { done, ..t });
            };
            let ran = engine::run(
                &EngineJob {
                    workload: &w,
                    span: cell.planned.checked.span,
                    seed: engine_seed(j.seed, round),
                    engine: engine_choice,
                    trace: None,
                },
                drive.target.as_mut(),
                &Reporting {
                    sink: &sink,
                    progress: &progress,
                    stop: ctx.stop,
                },
            )?;
            cell.absorb(round, ran, latency_sum.load(Ordering::Relaxed));
            cell.keep_window_histogram(window);
        }
        let series: Vec<f64> = cells[tracked_cell]
            .rounds
            .iter()
            .map(|f| f.tracked(spec.track))
            .collect();
        if series.len() >= window && is_steady(&series[series.len() - window..]) {
            reached = Some(round);
            break;
        }
    }
    let end = GroupEnd {
        precondition: record,
        started_at,
        reached,
        tracked: format!("{} of {track_id}", spec.track.key()),
    };
    for cell in cells {
        cell.store(ctx, drive, &end)?;
    }
    Ok(())
}

/// Each round of a variant draws its own requests (SNIA's rounds are independent runs).
fn engine_seed(seed: u64, round: u32) -> u64 {
    crate::rng::derive_seed(seed, &["round", &round.to_string()])
}

impl Cell<'_> {
    /// Where only a histogram is kept, it holds the measurement window alone: the last
    /// `window` rounds' (a round's rows cannot be cut out of it later).
    fn keep_window_histogram(&mut self, window: usize) {
        let Some(w) = &self.writer else { return };
        // Rows keep every round; the analysis cuts the window out of them.
        if self.planned.checked.job.workload.samples.rows() {
            return;
        }
        self.window_histograms.push_back(w.take_histograms());
        while self.window_histograms.len() > window {
            self.window_histograms.pop_front();
        }
    }

    /// Adds one round's run to the cell: its figures, and its time on the cell's clock.
    fn absorb(&mut self, round: u32, ran: Ran, latency_sum: u64) {
        let o = ran.outcome;
        self.engine = ran.engine;
        // The round's measured part on the cell's clock (its warm-up before it).
        let start_ns = self.clock + o.end_ns.saturating_sub(o.measured_ns);
        let end_ns = self.clock + o.end_ns;
        let s = o.measured_ns as f64 / 1e9;
        let rate = |x: f64| if s > 0.0 { x / s } else { 0.0 };
        self.rounds.push(RoundFigures {
            round,
            start_ns,
            end_ns,
            ios: o.ios,
            iops: rate(o.ios as f64),
            mb_per_s: rate(o.bytes as f64) / 1e6,
            lat_mean_us: if o.ios > 0 {
                latency_sum as f64 / o.ios as f64 / 1e3
            } else {
                0.0
            },
        });
        self.out.ios += o.ios;
        self.out.bytes += o.bytes;
        self.out.warmup_ios += o.warmup_ios;
        self.out.measured_ns += o.measured_ns;
        self.latency_sum_ns += latency_sum as u128;
        if o.compressed_fraction.is_some() {
            self.out.compressed_fraction = o.compressed_fraction;
        }
        if let Some(d) = &o.device {
            let merged = self.out.device.as_ref().map_or(d.clone(), |m| m.merged(d));
            self.out.device = Some(merged);
        }
        self.issued += o.ios + o.warmup_ios;
        self.clock = end_ns;
        self.out.end_ns = end_ns;
    }

    /// Writes the cell's samples and manifest (a stored cell), with the group's verdict.
    fn store(self, ctx: &RunContext, drive: &DriveRun, end: &GroupEnd) -> Result<()> {
        let Some(writer) = self.writer else {
            return Ok(());
        };
        let j = self.planned.checked.job;
        let dir = job_dir(ctx.lab, &drive.firmware.name, j);
        let n = self.rounds.len();
        let window = j
            .workload
            .steady_state
            .map_or(n, |s| s.window as usize)
            .min(n);
        let in_window = &self.rounds[n - window..];
        let mut out = self.out;
        out.mean_depth = engine::mean_depth(self.latency_sum_ns, out.measured_ns);
        out.steady_state = Some(Verdict {
            reached: end.reached.is_some(),
            round: end.reached,
            tracked: end.tracked.clone(),
            window_first: in_window.first().map_or(0, |f| f.round),
            window_last: in_window.last().map_or(0, |f| f.round),
            window_start_ns: in_window.first().map_or(0, |f| f.start_ns),
            window_end_ns: in_window.last().map_or(0, |f| f.end_ns),
        });
        out.rounds = self.rounds;
        for h in self.window_histograms {
            writer.put_histograms(h);
        }
        store::invalidate(&dir)?;
        let written = writer.finish()?;
        let measured = Measured {
            ran: Ran {
                outcome: out,
                engine: self.engine,
                kept: Vec::new(),
                extra: Default::default(),
            },
            engine: ctx.opts.engine.unwrap_or(j.engine),
            precondition: end.precondition.clone(),
            started_at: end.started_at.clone(),
            written,
        };
        let manifest = manifest(ctx, drive, self.planned, measured);
        let json =
            serde_json::to_vec_pretty(&manifest).map_err(|e| crate::error::Error::Store {
                path: dir.join(MANIFEST),
                message: e.to_string(),
            })?;
        store::write_atomic(&dir.join(MANIFEST), &json)?;
        ctx.obs.job_finished(j, &manifest);
        Ok(())
    }
}
