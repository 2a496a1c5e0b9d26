//! `roundup run`: the plan it prints and the progress bars of its jobs.

use std::collections::HashMap;
use std::io::Write as _;
use std::sync::Mutex;
use std::time::Instant;

use anyhow::{bail, Result};
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use roundup::engine::Tick;
use roundup::lab::Lab;
use roundup::plan::{Job, Plan};
use roundup::run::{self, Action, Observer, RunOptions};
use roundup::store::JobManifest;
use roundup::units::{figure, Counted, RoughDuration};
use roundup::Error;

use super::STOP;

/// Prints the plan as `run` with `opts` will carry it out: how many jobs on how many drives
/// and how long they should take, and how many complete results `--resume` keeps (and
/// every job with `detailed`, for `--dry-run`).
pub(super) fn print_plan(lab: &Lab, plan: &Plan, opts: &RunOptions, detailed: bool) -> Result<()> {
    if super::quiet() {
        return Ok(());
    }
    let actions = run::preview(lab, plan, opts);
    // Jobs with a wall-clock estimate, jobs on a drive model (its simulated time is known,
    // not how long the model takes), and jobs that run to an I/O count or a trace's end.
    let (mut timed, mut wall, mut modelled, mut virt, mut open) = (0, 0.0, 0, 0.0, 0);
    let width = id_width(plan);
    let (mut store, mut for_state, mut kept) = (0, 0, 0);
    let mut drives = std::collections::BTreeSet::new();
    for (job, action) in plan.jobs.iter().zip(&actions) {
        let note = match action {
            Action::Nothing => continue,
            Action::Keep => {
                kept += 1;
                if detailed {
                    outln!("{:<width$}  kept: complete", job.id);
                }
                continue;
            }
            Action::Store => {
                store += 1;
                ""
            }
            Action::ForState { kept: false } => {
                for_state += 1;
                " (for the drive's state, not stored)"
            }
            Action::ForState { kept: true } => {
                for_state += 1;
                kept += 1;
                " (complete, kept; run again for the drive's state)"
            }
        };
        drives.insert(job.drive.as_str());
        let est = Plan::estimate(lab, job);
        virt += est.virtual_s.unwrap_or(0.0);
        match (est.wall_s, est.virtual_s) {
            (Some(w), _) => {
                timed += 1;
                wall += w;
            }
            (None, Some(_)) => modelled += 1,
            (None, None) => open += 1,
        }
        if detailed {
            let when = match (est.virtual_s, est.wall_s) {
                (Some(v), Some(w)) => {
                    format!("{} simulated, ~{}", RoughDuration(v), RoughDuration(w))
                }
                (None, Some(w)) => format!("~{}", RoughDuration(w)),
                (Some(v), None) => format!("{} simulated", RoughDuration(v)),
                _ if job.workload.replay.is_some() => "as long as its trace".into(),
                _ => "until its I/O count".into(),
            };
            outln!(
                "{:<width$}  {}  [{}]{note}",
                job.id,
                job.workload.describe(),
                when
            );
        }
    }
    let mut line = if drives.is_empty() {
        "plan: nothing to run".to_string()
    } else {
        format!(
            "plan: {} on {}",
            Counted(store, "job"),
            Counted(drives.len(), "drive")
        )
    };
    if for_state > 0 {
        line.push_str(&format!(
            ", plus {} run only for the simulated drives' state",
            Counted(for_state, "earlier job")
        ));
    }
    if kept > 0 {
        line.push_str(&format!(", {kept} kept from earlier runs"));
    }
    if virt > 0.0 {
        line.push_str(&format!(
            ", {} of simulated drive time",
            RoughDuration(virt)
        ));
    }
    let mut parts = Vec::new();
    if timed > 0 {
        parts.push(format!("{timed} estimated at {}", RoughDuration(wall)));
    }
    if modelled > 0 {
        parts.push(format!(
            "{modelled} on drive models (no estimate: their speed depends on the drive's state)"
        ));
    }
    if open > 0 {
        parts.push(format!("{open} until an I/O count or a trace's end"));
    }
    if !parts.is_empty() {
        line.push_str(": ");
        line.push_str(&parts.join(", "));
    }
    outln!("{line}");
    Ok(())
}

/// The width of the plan's longest job id, so that the columns after it line up.
fn id_width(plan: &Plan) -> usize {
    plan.jobs
        .iter()
        .map(|j| j.id.chars().count())
        .max()
        .unwrap_or(0)
}

struct Bars {
    multi: MultiProgress,
    /// The width of the longest job id, so that the figures line up.
    width: usize,
    bars: Mutex<HashMap<String, ProgressBar>>,
}

impl Observer for Bars {
    fn job_started(&self, index: usize, total: usize, job: &Job) {
        let bar = self.multi.add(ProgressBar::new(1000));
        bar.set_style(
            ProgressStyle::with_template(
                "{prefix} [{elapsed_precise}] {bar:25} ETA {eta:>4} {msg}",
            )
            .expect("valid template")
            .progress_chars("=> "),
        );
        bar.set_prefix(format!("job {index}/{total} {}", job.id));
        self.bars.lock().expect("bars").insert(job.id.clone(), bar);
    }
    fn job_tick(&self, job: &Job, t: Tick) {
        if let Some(bar) = self.bars.lock().expect("bars").get(&job.id) {
            bar.set_position((t.done * 1000.0) as u64);
            if t.measured_s > 0.0 {
                bar.set_message(format!("{} IOPS", figure(t.ios as f64 / t.measured_s)));
            }
        }
    }
    fn job_finished(&self, job: &Job, m: &JobManifest) {
        // How long the job took here (the console only: no clock reaches the results).
        let mut took = String::new();
        if let Some(bar) = self.bars.lock().expect("bars").remove(&job.id) {
            took = format!("  in {:.1} s", bar.elapsed().as_secs_f64());
            bar.finish_and_clear();
        }
        let s = m.outcome.measured_ns as f64 / 1e9;
        let iops = if s > 0.0 {
            m.outcome.ios as f64 / s
        } else {
            0.0
        };
        let mbs = if s > 0.0 {
            m.outcome.bytes as f64 / s / 1e6
        } else {
            0.0
        };
        let mut replay = match (
            &m.outcome.replay,
            job.workload.replay.as_ref().map(|r| r.mode),
        ) {
            (Some(r), Some(roundup::workload::ReplayMode::Timed)) => {
                format!(
                    "  lag mean {} µs, max {} µs, {} issues >1 ms late",
                    figure(r.lag_mean_us),
                    figure(r.lag_max_us),
                    r.late_issues
                )
            }
            _ => String::new(),
        };
        if let Some(r) = m
            .outcome
            .replay
            .as_ref()
            .filter(|r| r.trims + r.flushes > 0)
        {
            replay += &format!(
                "  {}, {}",
                Counted(r.trims as usize, "trim"),
                Counted(r.flushes as usize, "flush")
            );
        }
        self.multi.suspend(|| {
            say(format_args!(
                "done {:<w$} {:>10} IOPS {:>9} MB/s{took}{replay}",
                job.id,
                figure(iops),
                figure(mbs),
                w = self.width,
            ))
        });
    }
    // A job kept whole from an earlier run gets no line: the plan and the run's summary
    // count them, and `--dry-run` lists them.
    fn job_for_state(&self, job: &Job, kept: bool) {
        if let Some(bar) = self.bars.lock().expect("bars").remove(&job.id) {
            bar.finish_and_clear();
        }
        let why = if kept {
            "complete; run again for the simulated drive's state"
        } else {
            "run for the simulated drive's state, not stored"
        };
        self.multi.suspend(|| {
            say(format_args!(
                "{} {} ({why})",
                if kept { "kept" } else { "state" },
                job.id
            ))
        });
    }
    fn job_failed(&self, job: &Job, e: &Error) {
        if let Some(bar) = self.bars.lock().expect("bars").remove(&job.id) {
            bar.finish_and_clear();
        }
        self.multi.suspend(|| {
            let _ = writeln!(std::io::stderr(), "FAILED {}: {e}", job.id);
        });
    }
    fn warning(&self, message: &str) {
        self.multi.suspend(|| {
            let _ = writeln!(std::io::stderr(), "warning: {message}");
        });
    }
}

/// Prints a line of progress. Progress is best-effort: output that cannot be written
/// (stdout on a full disk) must not stop the work, whose results are the point.
pub(super) fn say(line: std::fmt::Arguments) {
    if !super::quiet() {
        let _ = writeln!(std::io::stdout(), "{line}");
    }
}

/// Runs the plan with a progress bar per job, then says what was done (as JSON with
/// `json`).
pub(super) fn run_plan(lab: &Lab, plan: &Plan, opts: &RunOptions, json: bool) -> Result<()> {
    let target = if super::quiet() {
        ProgressDrawTarget::hidden()
    } else {
        ProgressDrawTarget::stderr()
    };
    let bars = Bars {
        multi: MultiProgress::with_draw_target(target),
        width: id_width(plan),
        bars: Mutex::new(HashMap::new()),
    };
    let started = Instant::now();
    let summary = run::run(lab, plan, opts, &bars, &STOP)?;
    let for_state = match summary.for_state {
        0 => String::new(),
        n => format!(
            " ({} run only for the simulated drives' state)",
            Counted(n, "job")
        ),
    };
    if json {
        outln!("{}", serde_json::to_string_pretty(&summary)?);
    }
    info!(
        "run: {} completed, {} kept from earlier runs, {} failed{for_state}, in {:.1} s; results in {}",
        Counted(summary.completed, "job"),
        summary.skipped,
        summary.failed.len(),
        started.elapsed().as_secs_f64(),
        lab.results_dir().display()
    );
    if !summary.failed.is_empty() {
        for failed in &summary.failed {
            eprintln!("{}: {}", failed.id, failed.reason);
        }
        if let Some(why) = &summary.stopped {
            bail!(
                "{why}, so the run stopped at the first job it could not store (above); \
                 completed jobs are kept, and once it can be written `roundup run --resume` \
                 runs the rest"
            );
        }
        bail!("{} failed", Counted(summary.failed.len(), "job"));
    }
    Ok(())
}
