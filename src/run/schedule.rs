//! What a run does with each job of a drive ([`Action`]: store, keep, run for the state),
//! the plan hashes `--resume` compares, and the order drives run in: this machine's real
//! drives one at a time while each bench runs its own one at a time, then simulated drives
//! in parallel, busiest first.

use std::collections::{BTreeMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use crate::config::{sha256_hex, Loaded};
use crate::drive::{Bench, DriveSpec, FtlKind, PathTarget, TargetSpec};
use crate::error::{Error, Result};
use crate::io::EngineChoice;
use crate::lab::Lab;
use crate::plan::{Job, Plan};
use crate::store::{self, FileRef, JobManifest, MANIFEST};
use crate::target::{self, Target};
use crate::workload::TraceInput;

use super::preflight::{trace_file, CheckedJob, Firmware};
use super::{job, rounds, FailedJob, RunContext, RunOptions, RunSummary};

/// What a run does with one job of a drive.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Action {
    /// Run it and store its results.
    Store,
    /// Keep its complete results from an earlier run (`--resume`); nothing runs.
    Keep,
    /// Run it for the simulated drive's state only.
    ForState {
        /// Its complete results from an earlier run are kept (`--resume`).
        kept: bool,
    },
    /// Nothing: a state-only job after the last job to run.
    Nothing,
}

/// A job as [`actions`] sees it: its suite, and whether the plan runs it for the state
/// only.
#[derive(Debug, Clone, Copy)]
struct JobKind<'a> {
    suite: &'a str,
    state_only: bool,
}

/// What to do with each of a drive's jobs (in plan order), given which have complete
/// results: on a simulated drive, every job of a suite before the last one to store runs
/// (for the drive's state, if not stored), and none after it.
fn actions(jobs: &[JobKind], complete: &[bool], simulated: bool) -> Vec<Action> {
    let mut out: Vec<Action> = jobs
        .iter()
        .zip(complete)
        .map(|(job, &done)| match (job.state_only, done) {
            (true, _) => Action::ForState { kept: false },
            (false, true) => Action::Keep,
            (false, false) => Action::Store,
        })
        .collect();
    if !simulated {
        return out;
    }
    let mut start = 0;
    for suite in jobs.chunk_by(|a, b| a.suite == b.suite) {
        let part = &mut out[start..start + suite.len()];
        let last = part.iter().rposition(|a| *a == Action::Store);
        for (k, a) in part.iter_mut().enumerate() {
            *a = match (*a, last) {
                (Action::Keep, Some(l)) if k < l => Action::ForState { kept: true },
                (Action::ForState { .. }, l) if l.is_none_or(|l| k > l) => Action::Nothing,
                (a, _) => a,
            };
        }
        start += suite.len();
    }
    out
}

/// What to do with a round-major test's variants, which run together: store them all if
/// any is to be stored (a round runs every one), else what the first says.
fn group_action(actions: &[Action]) -> Action {
    if actions.contains(&Action::Store) {
        Action::Store
    } else {
        actions[0]
    }
}

/// The hash `--resume` compares: the planned job and its drive file, the SHA-256 of the
/// file a replay's trace comes from, and on a simulated drive the hash of the job before it
/// in its suite (`after`), whose state it starts from.
pub fn plan_hash(
    job: &Job,
    drive: &DriveSpec,
    trace: Option<&FileRef>,
    after: Option<&str>,
) -> String {
    let mut text = serde_json::json!({"job": job, "drive": drive});
    if let Some(t) = trace {
        text["trace"] = t.sha256.clone().into();
    }
    if let Some(prev) = after {
        text["after"] = prev.into();
    }
    sha256_hex(text.to_string().as_bytes())
}

/// A job of a drive as the plan hash sees it: the job and the file its trace comes from.
#[derive(Clone, Copy)]
struct PlannedJob<'a> {
    job: &'a Job,
    trace: Option<&'a FileRef>,
}

/// The plan hashes of one drive's jobs (in plan order): chained through each suite on a
/// simulated drive; on a real one with the engine `engine` (`--engine`) puts in the job's
/// place.
fn drive_hashes(
    jobs: &[PlannedJob],
    drive: &DriveSpec,
    simulated: bool,
    engine: Option<EngineChoice>,
) -> Vec<String> {
    let mut hashes: Vec<String> = Vec::with_capacity(jobs.len());
    for (k, planned) in jobs.iter().enumerate() {
        let job = planned.job;
        let after = (simulated && k > 0 && jobs[k - 1].job.suite == job.suite)
            .then(|| hashes[k - 1].as_str());
        let hash = match engine.filter(|e| !simulated && *e != job.engine) {
            Some(engine) => {
                let job = Job {
                    engine,
                    ..job.clone()
                };
                plan_hash(&job, drive, planned.trace, after)
            }
            None => plan_hash(job, drive, planned.trace, after),
        };
        hashes.push(hash);
    }
    hashes
}

/// A drive's jobs as the run sees them: each one's plan hash and what to do with it.
struct DrivePlan {
    hashes: Vec<String>,
    actions: Vec<Action>,
}

/// The plan of one drive's jobs, given the results filed under `firmware`.
fn drive_plan(
    lab: &Lab,
    drive: &DriveSpec,
    firmware: &str,
    jobs: &[PlannedJob],
    opts: &RunOptions,
) -> DrivePlan {
    let simulated = drive.target.simulated();
    let hashes = drive_hashes(jobs, drive, simulated, opts.engine);
    let complete: Vec<bool> = jobs
        .iter()
        .zip(&hashes)
        .map(|(p, hash)| {
            opts.resume && !p.job.state_only && is_complete(&job_dir(lab, firmware, p.job), hash)
        })
        .collect();
    let kinds: Vec<JobKind> = jobs
        .iter()
        .map(|p| JobKind {
            suite: &p.job.suite,
            state_only: p.job.state_only,
        })
        .collect();
    let actions = actions(&kinds, &complete, simulated);
    DrivePlan { hashes, actions }
}

/// What `run` with `opts` would do with each job of `plan`, without opening a target (for
/// `--dry-run`): which complete results `--resume` keeps, and which jobs a simulated drive
/// runs for its state only. A real drive whose firmware comes from the device is looked up
/// in sysfs.
pub fn preview(lab: &Lab, plan: &Plan, opts: &RunOptions) -> Vec<Action> {
    // Trace files are hashed only to compare with stored results.
    let mut traces: BTreeMap<&TraceInput, Option<FileRef>> = BTreeMap::new();
    for job in plan.jobs.iter().filter(|_| opts.resume) {
        if let Some(r) = &job.workload.replay {
            traces
                .entry(&r.trace)
                .or_insert_with(|| trace_file(lab, &r.trace).ok());
        }
    }
    let mut out = Vec::with_capacity(plan.jobs.len());
    for jobs in plan.jobs.chunk_by(|a, b| a.drive == b.drive) {
        let spec = &lab.drives[&jobs[0].drive].spec;
        let planned: Vec<PlannedJob> = jobs
            .iter()
            .map(|job| PlannedJob {
                job,
                trace: job
                    .workload
                    .replay
                    .as_ref()
                    .and_then(|r| traces.get(&r.trace).and_then(Option::as_ref)),
            })
            .collect();
        out.extend(drive_plan(lab, spec, &planned_firmware(spec), &planned, opts).actions);
    }
    out
}

/// The firmware a drive's results will be filed under, found without opening it: the one
/// its drive file names, else a block device's own, else `unknown` (as `resolve_firmware`).
fn planned_firmware(spec: &DriveSpec) -> String {
    use std::os::unix::fs::FileTypeExt;
    if let Some(fw) = &spec.firmware {
        return fw.clone();
    }
    let TargetSpec::Path(p) = &spec.target else {
        return "unknown".into();
    };
    std::fs::metadata(&p.path)
        .ok()
        .filter(|m| m.file_type().is_block_device())
        .and_then(|m| {
            let (major, minor) = target::device::dev_numbers(&m);
            target::device::identity(major, minor).remove("firmware")
        })
        .unwrap_or_else(|| "unknown".into())
}

/// Where `job`'s results go, filed under `firmware`.
pub(crate) fn job_dir(lab: &Lab, firmware: &str, job: &Job) -> PathBuf {
    store::job_dir(
        &lab.results_dir(),
        &job.drive,
        firmware,
        &job.suite,
        &job.test,
        &job.variant.id,
        job.repeat,
    )
}

/// Whether `dir` holds the complete results of the job planned as `hash`: its manifest,
/// and every file the manifest names (rows, a histogram or both) with the bytes it hashed;
/// a job whose files were damaged since runs again.
fn is_complete(dir: &Path, hash: &str) -> bool {
    std::fs::read(dir.join(MANIFEST)).is_ok_and(|bytes| {
        serde_json::from_slice::<JobManifest>(&bytes).is_ok_and(|manifest| {
            let job = store::StoredJob {
                dir: dir.to_path_buf(),
                manifest,
            };
            job.manifest.plan_hash == hash
                && !job.files().is_empty()
                && job.check_files().is_empty()
        })
    })
}

/// One drive of a run: its opened target, the firmware its results are filed under, and
/// its jobs that fit.
pub(crate) struct DriveRun<'a> {
    pub drive: &'a Loaded<DriveSpec>,
    pub target: Box<dyn Target>,
    /// Whether the drive's jobs write (how the target was opened).
    pub writes: bool,
    pub firmware: Firmware,
    pub jobs: Vec<CheckedJob<'a>>,
}

/// What the drives of a run share as they run: the summary, whether Ctrl-C stopped a job,
/// and the results folder.
struct Shared {
    summary: Mutex<RunSummary>,
    interrupted: AtomicBool,
    results: PathBuf,
}

impl Shared {
    fn record(&self, f: impl FnOnce(&mut RunSummary)) {
        f(&mut self.summary.lock().expect("summary lock"));
    }

    /// Whether no further job should start: Ctrl-C, or `results/` cannot be written.
    fn halted(&self) -> bool {
        self.interrupted.load(Ordering::Relaxed)
            || self.summary.lock().expect("summary lock").stopped.is_some()
    }

    fn fail(&self, ctx: &RunContext, job: &Job, e: &Error) {
        ctx.obs.job_failed(job, e);
        self.record(|s| {
            s.failed.push(FailedJob {
                id: job.id.clone(),
                reason: e.to_string(),
            });
            if cannot_store(e, &self.results) && s.stopped.is_none() {
                s.stopped = Some(format!("{} cannot be written", self.results.display()));
            }
        });
    }
}

/// Whether `e` is a failure to write under `results` (rather than of the job itself).
fn cannot_store(e: &Error, results: &Path) -> bool {
    match e {
        Error::Store { path, .. } | Error::Io { path, .. } => path.starts_with(results),
        _ => false,
    }
}

/// A job that failed on a simulated drive, and its suite: the rest of that suite would
/// start from a state it does not describe.
#[derive(Clone, Copy)]
struct BrokenSuite<'a> {
    suite: &'a str,
    job: &'a str,
}

impl<'a> DriveRun<'a> {
    /// Runs the drive's jobs in plan order, as [`actions`] says.
    fn run(mut self, ctx: &RunContext, shared: &Shared) {
        let jobs = std::mem::take(&mut self.jobs);
        let simulated = self.drive.spec.target.simulated();
        let planned: Vec<PlannedJob> = jobs
            .iter()
            .map(|c| PlannedJob {
                job: c.job,
                trace: c.trace.map(|t| &t.file),
            })
            .collect();
        let plan = drive_plan(
            ctx.lab,
            &self.drive.spec,
            &self.firmware.name,
            &planned,
            ctx.opts,
        );
        // The suite the simulated drive's state comes from, once a job has run on it.
        let mut state_of: Option<&str> = None;
        let mut broken: Option<BrokenSuite> = None;
        let actions = plan.actions;
        let mut k = 0;
        while k < jobs.len() {
            let (checked, hash) = (&jobs[k], &plan.hashes[k]);
            let job = checked.job;
            // A round-major test's variants run as one: all of them if any is to be stored.
            let group_len = if job.round_major.is_some() {
                jobs[k..]
                    .iter()
                    .take_while(|c| c.job.suite == job.suite && c.job.test == job.test)
                    .count()
            } else {
                1
            };
            let action = group_action(&actions[k..k + group_len]);
            let group = k..k + group_len;
            k += group_len;
            if shared.halted() {
                return;
            }
            let store = match action {
                Action::Nothing => continue,
                Action::Keep => {
                    for g in group.clone() {
                        ctx.obs.job_skipped(jobs[g].job);
                    }
                    shared.record(|s| s.skipped += group.len());
                    continue;
                }
                Action::Store => true,
                Action::ForState { .. } => false,
            };
            if let Some(b) = broken.filter(|b| b.suite == job.suite) {
                if store {
                    shared.record(|s| {
                        for g in group.clone() {
                            s.failed.push(FailedJob {
                                id: jobs[g].job.id.clone(),
                                reason: format!(
                                    "not run: it starts from the state the jobs of {} before \
                                     it leave the simulated drive in, and {} failed",
                                    b.suite, b.job
                                ),
                            })
                        }
                    });
                }
                continue;
            }
            // A simulated drive starts each suite as its drive file describes it.
            if simulated && state_of.is_some_and(|s| s != job.suite) {
                if let Err(e) = self.reopen(ctx) {
                    shared.fail(ctx, job, &e);
                    return;
                }
            }
            state_of = Some(&job.suite);
            let result = if group.len() > 1 {
                let planned: Vec<job::JobToRun> = group
                    .clone()
                    .map(|g| job::JobToRun {
                        checked: &jobs[g],
                        hash: &plan.hashes[g],
                        store,
                    })
                    .collect();
                rounds::run_rounds(ctx, &mut self, &planned)
            } else {
                job::run_job(
                    ctx,
                    &mut self,
                    &job::JobToRun {
                        checked,
                        hash,
                        store,
                    },
                )
            };
            match result {
                Ok(()) => shared.record(|s| {
                    for g in group.clone() {
                        match action {
                            Action::ForState { kept } => {
                                ctx.obs.job_for_state(jobs[g].job, kept);
                                s.for_state += 1;
                                s.skipped += kept as usize;
                            }
                            _ => s.completed += 1,
                        }
                    }
                }),
                Err(Error::Interrupted) => {
                    shared.interrupted.store(true, Ordering::Relaxed);
                    return;
                }
                Err(e) => {
                    for g in group {
                        shared.fail(ctx, jobs[g].job, &e);
                    }
                    if simulated {
                        broken = Some(BrokenSuite {
                            suite: &job.suite,
                            job: &job.id,
                        });
                    }
                }
            }
        }
    }

    /// Builds the simulated drive anew, as its drive file describes it.
    fn reopen(&mut self, ctx: &RunContext) -> Result<()> {
        let lab = ctx.lab;
        self.target = target::open(
            &self.drive.spec,
            &lab.root,
            self.writes,
            &ctx.opts.destroy_data,
        )?;
        Ok(())
    }
}

/// Runs every drive's jobs: real drives alone (no simulation competing for the CPU), those
/// of each bench one after another while the benches and this machine run at once, then
/// simulations in parallel, the busiest first (longest-processing-time order: a fast drive
/// simulates more I/Os in the same virtual time), each worker taking the next drive as it
/// finishes one.
pub(crate) fn run_drives(ctx: &RunContext, drives: Vec<DriveRun>) -> Result<RunSummary> {
    let shared = Shared {
        summary: Mutex::new(RunSummary::default()),
        interrupted: AtomicBool::new(false),
        results: ctx.lab.results_dir(),
    };
    let (mut sims, reals): (Vec<DriveRun>, Vec<DriveRun>) = drives
        .into_iter()
        .partition(|d| d.drive.spec.target.simulated());
    // A bench's drives one at a time (its fio server runs one job at a time, as a bench's
    // drives share its bus), the benches at once beside this machine's drives.
    let mut benches: BTreeMap<Bench, Vec<DriveRun>> = BTreeMap::new();
    let mut here = Vec::new();
    for drive in reals {
        match &drive.drive.spec.target {
            TargetSpec::Path(PathTarget {
                bench: Some(bench), ..
            }) => benches.entry(bench.clone()).or_default().push(drive),
            _ => here.push(drive),
        }
    }
    std::thread::scope(|scope| {
        for drives in benches.into_values() {
            let shared = &shared;
            scope.spawn(move || {
                for drive in drives {
                    drive.run(ctx, shared);
                }
            });
        }
        for drive in here {
            drive.run(ctx, &shared);
        }
    });
    sims.sort_by(|a, b| {
        has_history(&b.drive.spec.target)
            .cmp(&has_history(&a.drive.spec.target))
            .then_with(|| sim_rate(&b.drive.spec.target).total_cmp(&sim_rate(&a.drive.spec.target)))
            .then_with(|| a.drive.spec.id.0.cmp(&b.drive.spec.id.0))
    });
    // The queue and the estimated bytes of the states being simulated: a worker takes the
    // first drive that fits beside them, or waits for one to finish.
    let sims: VecDeque<(DriveRun, u64)> = sims
        .into_iter()
        .map(|d| {
            let bytes = state_bytes(&d.drive.spec);
            (d, bytes)
        })
        .collect();
    let queue = Mutex::new((sims, 0u64));
    let finished = std::sync::Condvar::new();
    let budget = ctx.opts.memory.unwrap_or(u64::MAX);
    let workers = rayon::current_num_threads().max(1);
    rayon::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|_| loop {
                let Ok(mut q) = queue.lock() else { break };
                let (drive, bytes) = loop {
                    let (waiting, used) = &mut *q;
                    if waiting.is_empty() {
                        return;
                    }
                    let sizes = waiting.iter().map(|(_, bytes)| *bytes);
                    if let Some(i) = first_fitting(sizes, *used, budget) {
                        let (drive, bytes) = waiting.remove(i).expect("a drive at i");
                        *used += bytes;
                        break (drive, bytes);
                    }
                    q = match finished.wait(q) {
                        Ok(q) => q,
                        Err(_) => return,
                    };
                };
                drop(q);
                // Its bytes are given back however the drive ends (a panic too), so that no
                // worker waits for them forever.
                let _done = Finished {
                    queue: &queue,
                    finished: &finished,
                    bytes,
                };
                drive.run(ctx, &shared);
            });
        }
    });
    if shared.interrupted.load(Ordering::Relaxed) {
        return Err(Error::Interrupted);
    }
    Ok(shared.summary.into_inner().expect("summary lock"))
}

/// A simulated drive's end: its state's memory given back to the system and its estimated
/// bytes to the queue, and the workers waiting for room woken.
struct Finished<'a, T> {
    queue: &'a Mutex<(T, u64)>,
    finished: &'a std::sync::Condvar,
    bytes: u64,
}

impl<T> Drop for Finished<'_, T> {
    fn drop(&mut self) {
        give_back_freed_memory();
        if let Ok(mut q) = self.queue.lock() {
            q.1 -= self.bytes;
        }
        self.finished.notify_all();
    }
}

/// The first of the waiting drives (by their states' estimated bytes) that fits in `budget`
/// beside the `used` bytes of the drives running; with none running, the first.
fn first_fitting(mut sizes: impl Iterator<Item = u64>, used: u64, budget: u64) -> Option<usize> {
    sizes.position(|b| used == 0 || used.saturating_add(b) <= budget)
}

/// Returns the heap's free pages to the system. A simulated drive's state is hundreds of
/// thousands of small blocks; freed, glibc keeps their pages in the thread's arena, so the
/// next drive's state would come on top of the last one's in the process's footprint.
fn give_back_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases free memory; it takes no pointer.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// About what a simulated drive's state takes in memory: a page-mapped SSD's map and its
/// blocks' entries, 6 bytes a page (logical and physical, on each controller), half as
/// much again for a used drive, whose every page is mapped, and half as much again for one
/// whose firmware tracks write-combination vectors or that has a history played (measured
/// on the lab's drives: 4.7 to 5.9 bytes a page new, 8.3 used, 13.5 both). A block-mapped
/// FTL's state (a bit a logical page), a disk's or a simple model's is small: the demo's
/// JMF602 drives, disk and RAM disk each peak at 79-91 MB, the whole process.
pub(super) fn state_bytes(spec: &DriveSpec) -> u64 {
    match &spec.target {
        TargetSpec::Ssd(s) => {
            // Each controller holds its share of the logical pages and its own NAND.
            let page = s.page.0.max(512);
            if s.ftl == FtlKind::Block {
                // A bit a logical page, and a few log blocks.
                return (16 << 20) + spec.capacity / page / 8;
            }
            let physical = s.raw_capacity.0 / page * s.controllers.max(1) as u64;
            let mut bytes = 6 * (spec.capacity / page + physical);
            if s.aged {
                bytes += bytes / 2;
            }
            if s.history.is_some() || s.vector_pages.is_some() {
                bytes += bytes / 2;
            }
            bytes
        }
        _ => 16 << 20,
    }
}

/// Whether a used drive's history is played when it is built: seconds of simulated writes
/// before its first job, so it starts first.
fn has_history(target: &TargetSpec) -> bool {
    matches!(target, TargetSpec::Ssd(s) if s.history.is_some())
}

/// How much work a simulated drive's jobs are likely to cost per second of virtual time:
/// the data it can move (bytes/s), half as much again for a compressing drive, which runs
/// a compressor over the compressible data written (incompressible data it is told is
/// random, at no cost).
fn sim_rate(target: &TargetSpec) -> f64 {
    match target {
        TargetSpec::Sim(s) => s.link_rate.0,
        TargetSpec::Ssd(s) => s.link_rate.0 * if s.compression { 1.5 } else { 1.0 },
        TargetSpec::Hdd(h) => h.outer_rate.0.min(h.link_rate.0),
        TargetSpec::Path(_) => 0.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds<'a>(jobs: &[(&'a str, bool)]) -> Vec<JobKind<'a>> {
        jobs.iter()
            .map(|&(suite, state_only)| JobKind { suite, state_only })
            .collect()
    }

    #[test]
    fn a_drive_runs_beside_others_only_while_the_states_fit() {
        let sizes = [700u64, 500, 200, 100];
        // Nothing running: the first, whatever its size.
        assert_eq!(first_fitting(sizes.into_iter(), 0, 100), Some(0));
        // 700 running in 1000: the first that fits beside it.
        assert_eq!(first_fitting(sizes.into_iter(), 700, 1000), Some(2));
        // 950 running: none fits; the worker waits.
        assert_eq!(first_fitting(sizes.into_iter(), 950, 1000), None);
        // No limit.
        assert_eq!(first_fitting(sizes.into_iter(), 5000, u64::MAX), Some(0));
    }

    #[test]
    fn a_used_drive_is_estimated_above_a_new_one() {
        let lab = crate::lab::Lab::load(std::path::Path::new(env!("CARGO_MANIFEST_DIR")));
        let lab = lab.expect("the example lab loads");
        let bytes = |id: &str| state_bytes(&lab.drives[id].spec);
        let (new, used) = (bytes("intel-x25m-g2-160"), bytes("intel-x25m-g2-160-used"));
        assert!(used > new, "{used} {new}");
        // About 6 bytes a page: a 160 GB drive's state is some hundreds of MB.
        assert!(new > 300 << 20 && new < 800 << 20, "{new}");
        assert!(bytes("samsung-spinpoint-f1-1tb") < 64 << 20);
        // A block-mapped drive of 256 GB (the Titan's two JMF602s) runs beside a large one.
        assert!(bytes("gskill-titan-256") < 64 << 20);
    }

    #[test]
    fn a_simulated_drive_runs_what_comes_before_the_last_job_to_store_in_each_suite() {
        use Action::*;
        let jobs = kinds(&[
            ("a", true),
            ("a", false),
            ("a", false),
            ("a", true),
            ("b", false),
            ("b", false),
        ]);
        // Resumed with the third job of `a` missing: the two before it (one the selection
        // left out, one complete) run for the state, the state-only job after it does not,
        // and `b`, complete, is kept as it is.
        let complete = [false, true, false, false, true, true];
        assert_eq!(
            actions(&jobs, &complete, true),
            [
                ForState { kept: false },
                ForState { kept: true },
                Store,
                Nothing,
                Keep,
                Keep
            ]
        );
        // Only the last job of `b` missing: `a` is not touched.
        let complete = [false, true, true, false, true, false];
        assert_eq!(
            actions(&jobs, &complete, true),
            [Nothing, Keep, Keep, Nothing, ForState { kept: true }, Store]
        );
        // A real drive's state is the drive's own: complete jobs are kept.
        let real = kinds(&[("a", false), ("a", false)]);
        assert_eq!(actions(&real, &[true, false], false), [Keep, Store]);
    }
}
