//! Running a plan: open and check every target first (nothing runs until all jobs fit their
//! drives), then run each drive's jobs in plan order: real drives one after another (each
//! bench's too, the benches at once beside this machine's), then simulated drives in
//! parallel (rayon). Each job streams its samples to the store.
//!
//! A simulated drive starts every suite from the state its drive file describes, and runs
//! the suite's jobs before the ones to store even when they are not stored (the plan's
//! state-only jobs, and under `--resume` complete jobs before a missing one): so a job's
//! results are the same however the run was selected or interrupted.
//!
//! The stages of a run, a file each: [`preflight`] (every target probed, every job checked
//! against it, traces read), `schedule` (what to do with each job of a drive, and which
//! drive runs when), `job` (one job on its target, into the store), `rounds` (a
//! round-major test's variants, a round of each in turn).

mod job;
mod preflight;
mod rounds;
mod schedule;

pub use preflight::{check_workload, preflight, Misfit};
pub use schedule::{plan_hash, preview, Action};

use std::sync::atomic::AtomicBool;

use crate::engine::Tick;
use crate::error::{Error, Result};
use crate::io::EngineChoice;
use crate::lab::Lab;
use crate::plan::{Job, Plan};
use crate::store::JobManifest;

/// roundup's git revision at build time (`unknown` outside a git checkout).
pub const GIT_REVISION: &str = match option_env!("ROUNDUP_GIT_REVISION") {
    Some(r) => r,
    None => "unknown",
};

/// How to run.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Skip jobs whose complete results (same plan) are already in the store.
    pub resume: bool,
    /// The I/O engine for every real target, overriding suites and drives.
    pub engine: Option<EngineChoice>,
    /// Block devices (serials or kernel names) whose data write tests may destroy.
    pub destroy_data: Vec<String>,
    /// Simulated drives run in parallel only while their states, together, are estimated
    /// to fit in this many bytes (one runs alone if it does not); none: no limit.
    pub memory: Option<u64>,
}

/// Receives what happens during a run (progress bars in the CLI, nothing in tests).
pub trait Observer: Sync {
    /// A job starts; `index` counts from 1 in run order.
    fn job_started(&self, _index: usize, _total: usize, _job: &Job) {}
    /// Progress of a running job.
    fn job_tick(&self, _job: &Job, _tick: Tick) {}
    /// A job finished and its results are stored.
    fn job_finished(&self, _job: &Job, _manifest: &JobManifest) {}
    /// A job was skipped (`--resume`).
    fn job_skipped(&self, _job: &Job) {}
    /// A job ran only for its simulated drive's state, and nothing of it was stored:
    /// `kept` when its complete results from an earlier run are kept (`--resume`).
    fn job_for_state(&self, _job: &Job, _kept: bool) {}
    /// A job failed.
    fn job_failed(&self, _job: &Job, _error: &Error) {}
    /// Something the run should be told that does not stop it (a test's offered load
    /// above what a drive's link carries).
    fn warning(&self, _message: &str) {}
}

/// An observer that ignores everything.
pub struct Silent;
impl Observer for Silent {}

/// A job that failed, and why.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct FailedJob {
    /// The job's id.
    pub id: String,
    /// What went wrong.
    pub reason: String,
}

/// What a run did.
#[derive(Debug, Default, serde::Serialize)]
pub struct RunSummary {
    /// Jobs run and stored.
    pub completed: usize,
    /// Jobs skipped because their results were complete.
    pub skipped: usize,
    /// Jobs run only for a simulated drive's state, not stored (some of them also
    /// counted in `skipped`).
    pub for_state: usize,
    /// Jobs that failed, with the reason.
    pub failed: Vec<FailedJob>,
    /// Why the run stopped before its last job, when `results/` could not be written (a
    /// full disk): every job after would have failed the same way.
    pub stopped: Option<String>,
}

/// What every job of a run shares: the lab, the options, who is told, and the Ctrl-C flag.
pub(crate) struct RunContext<'a> {
    pub lab: &'a Lab,
    pub opts: &'a RunOptions,
    pub obs: &'a dyn Observer,
    pub stop: &'a AtomicBool,
    /// Jobs in the plan, for "job N of M".
    pub total: usize,
}

/// Runs `plan` on the lab's drives, storing results under `results/`.
///
/// Preflight first: a results folder that can be made (made only once the rest passed, so
/// that a refused run leaves nothing), every simulated drive built and every file and
/// device probed, every job checked against its target; only then are the files and
/// devices opened (a scratch file is created and filled then, not for a run that stops).
pub fn run(
    lab: &Lab,
    plan: &Plan,
    opts: &RunOptions,
    obs: &dyn Observer,
    stop: &AtomicBool,
) -> Result<RunSummary> {
    let results = lab.results_dir();
    if results.exists() && !results.is_dir() {
        return Err(Error::Store {
            path: results,
            message: "expected a folder for the results, found a file".into(),
        });
    }
    let preflight::Probed {
        mut problems,
        warnings,
        traces,
        drives,
        built,
        memory,
    } = preflight::probe_plan(lab, plan, opts);
    if !problems.is_empty() {
        return Err(Error::Preflight(problems));
    }
    for w in &warnings {
        obs.warning(w);
    }
    let mut checker = preflight::Checker {
        lab,
        traces: &traces,
        memory,
        engine: opts.engine,
        problems: &mut problems,
    };
    let drives = preflight::open_drives(&mut checker, drives, built, opts)?;
    std::fs::create_dir_all(&results).map_err(|e| Error::io(&results, e))?;
    let ctx = RunContext {
        lab,
        opts,
        obs,
        stop,
        total: plan.jobs.len(),
    };
    schedule::run_drives(&ctx, drives)
}
