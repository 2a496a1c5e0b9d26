//! Running a plan: open and check every target first (nothing runs until all jobs fit their
//! drives), then run each drive's jobs in plan order: real drives one after another, then
//! simulated drives in parallel (rayon). Each job streams its samples to the store.
//!
//! A simulated drive starts every suite from the state its drive file describes, and runs
//! the suite's jobs before the ones to store even when they are not stored (the plan's
//! state-only jobs, and under `--resume` complete jobs before a missing one): so a job's
//! results are the same however the run was selected or interrupted.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Mutex;

use crate::drive::{DriveSpec, TargetSpec};
use crate::engine::{self, SampleSink, Tick};
use crate::error::{Error, Result};
use crate::lab::{sha256_hex, Lab};
use crate::plan::{Job, Plan};
use crate::store::{
    self, FileRef, JobManifest, PreconditionRecord, SampleWriter, MANIFEST, MANIFEST_FORMAT,
};

use crate::suite::{Length, Pattern, Span, TraceInput, Workload};
use crate::target::{self, EngineChoice, Target, TargetInfo, TargetKind};
use crate::trace::{ImportOptions, Trace};
use crate::units::{SizeLabel, SizeRounded};

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
}

/// An observer that ignores everything.
pub struct Silent;
impl Observer for Silent {}

/// What a run did.
#[derive(Debug, Default)]
pub struct RunSummary {
    /// Jobs run and stored.
    pub completed: usize,
    /// Jobs skipped because their results were complete.
    pub skipped: usize,
    /// Jobs run only for a simulated drive's state, not stored (some of them also
    /// counted in `skipped`).
    pub for_state: usize,
    /// Jobs that failed, with the reason.
    pub failed: Vec<(String, String)>,
    /// Why the run stopped before its last job, when `results/` could not be written (a
    /// full disk): every job after would have failed the same way.
    pub stopped: Option<String>,
}

/// Whether `e` is a failure to write under `results` (rather than of the job itself).
fn cannot_store(e: &Error, results: &Path) -> bool {
    match e {
        Error::Store { path, .. } | Error::Io { path, .. } => path.starts_with(results),
        _ => false,
    }
}

struct Group<'a> {
    drive: &'a crate::lab::Loaded<DriveSpec>,
    target: Box<dyn Target>,
    /// Whether the drive's jobs write (how the target was opened).
    writes: bool,
    firmware: String,
    firmware_source: &'static str,
    jobs: Vec<Checked<'a>>,
}

/// The trace a replay test plays, and the file it comes from (the trace, or the profile
/// a generated one follows).
struct LoadedTrace {
    trace: Trace,
    file: FileRef,
}

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

/// What to do with each of a drive's jobs, given as (suite, state only) in plan order, and
/// which have complete results: on a simulated drive, every job of a suite before the last
/// one to store runs (for the drive's state, if not stored), and none after it.
fn actions(jobs: &[(&str, bool)], complete: &[bool], simulated: bool) -> Vec<Action> {
    let mut out: Vec<Action> = jobs
        .iter()
        .zip(complete)
        .map(|(&(_, state_only), &done)| match (state_only, done) {
            (true, _) => Action::ForState { kept: false },
            (false, true) => Action::Keep,
            (false, false) => Action::Store,
        })
        .collect();
    if !simulated {
        return out;
    }
    let mut start = 0;
    for suite in jobs.chunk_by(|a, b| a.0 == b.0) {
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

/// The firmware to file a drive's results under, and where it came from.
fn resolve_firmware(spec: &DriveSpec, info: &TargetInfo) -> Result<(String, &'static str)> {
    let reported = info.identity.get("firmware").cloned();
    match (&spec.firmware, reported) {
        (Some(fw), Some(dev)) if info.kind == TargetKind::BlockDevice && *fw != dev => Err(Error::Target(format!(
            "drive {}: the drive file names firmware {fw:?} but the device reports {dev:?}; update drives/{}.yaml (or leave firmware out to use the device's)",
            spec.id, spec.id
        ))),
        (Some(fw), _) => Ok((fw.clone(), "drive file")),
        (None, Some(dev)) if info.kind == TargetKind::BlockDevice => Ok((dev, "device")),
        (None, _) => Ok(("unknown".into(), "unknown")),
    }
}

/// This machine's memory in bytes (`MemTotal` in /proc/meminfo), if it can be read.
fn machine_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kib = info
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))?
        .trim()
        .strip_suffix("kB")?
        .trim()
        .parse::<u64>()
        .ok()?;
    Some(kib * 1024)
}

/// Checks that the I/O buffers a job's engine holds on a span of `span` bytes (one per
/// slot, each of its largest request) fit in half of `memory`: a queue of huge blocks
/// would otherwise exhaust the machine in the middle of a run.
fn check_buffers(
    job: &Job,
    trace: Option<&Trace>,
    span: u64,
    logical_block: u64,
    memory: Option<u64>,
) -> std::result::Result<(), target::Misfit> {
    let w = &job.workload;
    let largest = match trace {
        Some(t) => crate::workload::placed_len(&t.requests, span, logical_block),
        None => w.block_size.max(),
    };
    let slots = w.threads as u64 * w.queue_depth as u64;
    let bytes = slots.saturating_mul(largest);
    match memory {
        Some(memory) if bytes > memory / 2 => Err(target::Misfit {
            key: "queue_depth",
            message: format!(
                "on drive {}, the engine's I/O buffers ({slots} in flight × {}) would take {}, \
                 more than half this machine's memory ({}); lower queue_depth, threads or \
                 block_size",
                job.drive,
                SizeLabel(largest),
                SizeRounded(bytes),
                SizeRounded(memory)
            ),
        }),
        _ => Ok(()),
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

/// The plan hashes of one drive's jobs (in plan order, each with its trace file): chained
/// through each suite on a simulated drive; on a real one with the engine `engine`
/// (`--engine`) puts in the job's place.
fn drive_hashes(
    jobs: &[(&Job, Option<&FileRef>)],
    drive: &DriveSpec,
    simulated: bool,
    engine: Option<EngineChoice>,
) -> Vec<String> {
    let mut hashes: Vec<String> = Vec::with_capacity(jobs.len());
    for (k, &(job, trace)) in jobs.iter().enumerate() {
        let after = (simulated && k > 0 && jobs[k - 1].0.suite == job.suite)
            .then(|| hashes[k - 1].as_str());
        let hash = match engine.filter(|e| !simulated && *e != job.engine) {
            Some(engine) => {
                let job = Job {
                    engine,
                    ..job.clone()
                };
                plan_hash(&job, drive, trace, after)
            }
            None => plan_hash(job, drive, trace, after),
        };
        hashes.push(hash);
    }
    hashes
}

/// The plan hashes of one drive's jobs (in plan order, each with its trace file) and what
/// the run does with each, given the results filed under `firmware`.
fn drive_plan(
    lab: &Lab,
    drive: &DriveSpec,
    firmware: &str,
    jobs: &[(&Job, Option<&FileRef>)],
    opts: &RunOptions,
) -> (Vec<String>, Vec<Action>) {
    let simulated = drive.target.simulated();
    let hashes = drive_hashes(jobs, drive, simulated, opts.engine);
    let complete: Vec<bool> = jobs
        .iter()
        .zip(&hashes)
        .map(|((job, _), hash)| {
            opts.resume && !job.state_only && is_complete(&job_dir(lab, firmware, job), hash)
        })
        .collect();
    let kinds: Vec<(&str, bool)> = jobs
        .iter()
        .map(|(j, _)| (j.suite.as_str(), j.state_only))
        .collect();
    let actions = actions(&kinds, &complete, simulated);
    (hashes, actions)
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
        let planned: Vec<(&Job, Option<&FileRef>)> = jobs
            .iter()
            .map(|j| {
                let trace = j.workload.replay.as_ref();
                (
                    j,
                    trace.and_then(|r| traces.get(&r.trace).and_then(Option::as_ref)),
                )
            })
            .collect();
        out.extend(drive_plan(lab, spec, &planned_firmware(spec), &planned, opts).1);
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

fn now_rfc3339() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// Every trace the plan's replay tests play, read once; one that cannot be read is a
/// problem of the first job that plays it.
fn load_traces<'a>(
    lab: &Lab,
    plan: &'a Plan,
    problems: &mut Vec<String>,
) -> BTreeMap<&'a TraceInput, Option<LoadedTrace>> {
    let mut traces = BTreeMap::new();
    for job in &plan.jobs {
        if let Some(spec) = &job.workload.replay {
            traces
                .entry(&spec.trace)
                .or_insert_with(|| match load_trace(lab, &spec.trace) {
                    Ok(t) => Some(t),
                    Err(e) => {
                        problems.push(format!("{}: trace: {e}", job.id));
                        None
                    }
                });
        }
    }
    traces
}

/// A job that fits its drive: its number in the plan (from 1), its span in bytes and the
/// trace it plays.
type Checked<'a> = (usize, &'a Job, u64, Option<&'a LoadedTrace>);

/// Checks one drive's jobs (the plan's from index `first`) against what its target
/// reports. A job that does not fit is a problem pointed at the test's key in its suite,
/// once for all its repeats.
fn check_jobs<'a>(
    lab: &Lab,
    info: &TargetInfo,
    (first, jobs): (usize, &'a [Job]),
    traces: &'a BTreeMap<&TraceInput, Option<LoadedTrace>>,
    memory: Option<u64>,
    problems: &mut Vec<String>,
) -> Vec<Checked<'a>> {
    let mut checked = Vec::new();
    for (k, job) in jobs.iter().enumerate() {
        let trace = job
            .workload
            .replay
            .as_ref()
            .and_then(|r| traces.get(&r.trace).and_then(Option::as_ref));
        let fits = target::check_workload(&job.drive, info, &job.workload).and_then(|span| {
            let lb = info.logical_block as u64;
            check_buffers(job, trace.map(|t| &t.trace), span, lb, memory).map(|_| span)
        });
        match fits {
            Ok(span) => checked.push((first + k + 1, job, span, trace)),
            Err(m) => {
                // A key a variant sets is pointed at in `variants:` (the message says which
                // value).
                let key = if job.variant.settings.iter().any(|(d, _)| d == m.key) {
                    format!("variants.{}", m.key)
                } else {
                    m.key.to_string()
                };
                let line = lab
                    .test_key_error(&job.suite, &job.test, &key, m.message)
                    .to_string();
                if !problems.contains(&line) {
                    problems.push(line);
                }
            }
        }
    }
    checked
}

/// What would stop `run` before it runs anything, found with nothing created or written
/// (`run --dry-run`): traces that cannot be read, targets that cannot be opened or would
/// be refused, a drive file's firmware the device contradicts, jobs that do not fit their
/// drive.
pub fn preflight(lab: &Lab, plan: &Plan, opts: &RunOptions) -> Vec<String> {
    probe_plan(lab, plan, opts).problems
}

/// What the preflight found and made: its problems, the traces it read, the plan's jobs
/// drive by drive, and the simulated drives it built (in the same order; `None` for a file
/// or device, which is only probed).
struct Probed<'a> {
    problems: Vec<String>,
    traces: BTreeMap<&'a TraceInput, Option<LoadedTrace>>,
    drives: Vec<(usize, &'a [Job])>,
    built: Vec<Option<Box<dyn Target>>>,
    memory: Option<u64>,
}

/// [`preflight`], keeping what it read and built for the run.
fn probe_plan<'a>(lab: &Lab, plan: &'a Plan, opts: &RunOptions) -> Probed<'a> {
    let mut problems = Vec::new();
    let memory = machine_memory();
    let traces = load_traces(lab, plan, &mut problems);
    let drives = by_drive(plan);
    let built = drives
        .iter()
        .map(|&d| look_at(lab, d, &traces, memory, opts, &mut problems))
        .collect();
    problems.dedup();
    Probed {
        problems,
        traces,
        drives,
        built,
        memory,
    }
}

/// The plan's jobs, drive by drive, each slice with the index of its first job.
fn by_drive(plan: &Plan) -> Vec<(usize, &[Job])> {
    let mut first = 0;
    plan.jobs
        .chunk_by(|a, b| a.drive == b.drive)
        .map(|jobs| {
            first += jobs.len();
            (first - jobs.len(), jobs)
        })
        .collect()
}

/// The first look at one drive's target, with its jobs checked against what it reports:
/// a simulated drive is built (it touches nothing outside the process) and returned; a
/// file or device is probed, nothing created or written.
fn look_at(
    lab: &Lab,
    (first, jobs): (usize, &[Job]),
    traces: &BTreeMap<&TraceInput, Option<LoadedTrace>>,
    memory: Option<u64>,
    opts: &RunOptions,
    problems: &mut Vec<String>,
) -> Option<Box<dyn Target>> {
    let spec = &lab.drives[&jobs[0].drive].spec;
    let writes = jobs.iter().any(|j| j.workload.writes());
    let probe = |writes| target::probe(spec, &lab.root, writes, &opts.destroy_data);
    let (info, target) = match probe(writes) {
        Ok(probed) => probed,
        Err(refused) => {
            problems.push(refused.to_string());
            // A target refused for writing (a device holding data, a file roundup did not
            // create) is still described read-only, so that the same look finds whatever
            // else would stop the run: the reviewer mends it all at once.
            match writes.then(|| probe(false)) {
                Some(Ok(probed)) => probed,
                _ => return None,
            }
        }
    };
    if let Err(e) = resolve_firmware(spec, &info) {
        problems.push(e.to_string());
    }
    check_jobs(lab, &info, (first, jobs), traces, memory, problems);
    target
}

/// Runs `plan` on the lab's drives, storing results under `results/`.
pub fn run(
    lab: &Lab,
    plan: &Plan,
    opts: &RunOptions,
    obs: &dyn Observer,
    stop: &AtomicBool,
) -> Result<RunSummary> {
    // Preflight: a results folder that can be made (made only once the rest passed, so
    // that a refused run leaves nothing), every simulated drive built and every file and
    // device probed, every job checked against its target; only then are the files and
    // devices opened (a scratch file is created and filled then, not for a run that
    // stops).
    let results = lab.results_dir();
    if results.exists() && !results.is_dir() {
        return Err(Error::Store {
            path: results,
            message: "expected a folder for the results, found a file".into(),
        });
    }
    let total = plan.jobs.len();
    let Probed {
        mut problems,
        traces,
        drives,
        mut built,
        memory,
    } = probe_plan(lab, plan, opts);
    if !problems.is_empty() {
        return Err(Error::Target(problems.join("\n")));
    }
    let mut groups: Vec<Group> = Vec::new();
    for (&(first, jobs), sim) in drives.iter().zip(&mut built) {
        let drive = &lab.drives[&jobs[0].drive];
        let writes = jobs.iter().any(|j| j.workload.writes());
        let opened = match sim.take() {
            Some(t) => Ok(t),
            None => target::open(&drive.spec, &lab.root, writes, &opts.destroy_data),
        };
        match opened.and_then(|t| resolve_firmware(&drive.spec, t.info()).map(|fw| (t, fw))) {
            Ok((target, (firmware, firmware_source))) => {
                let checked = check_jobs(
                    lab,
                    target.info(),
                    (first, jobs),
                    &traces,
                    memory,
                    &mut problems,
                );
                groups.push(Group {
                    drive,
                    target,
                    writes,
                    firmware,
                    firmware_source,
                    jobs: checked,
                });
            }
            Err(e) => problems.push(e.to_string()),
        }
    }
    if !problems.is_empty() {
        problems.dedup();
        return Err(Error::Target(problems.join("\n")));
    }
    std::fs::create_dir_all(&results).map_err(|e| Error::io(&results, e))?;
    let summary = Mutex::new(RunSummary::default());
    let interrupted = AtomicBool::new(false);
    let run_group = |g: Group| {
        let mut g = g;
        let jobs = std::mem::take(&mut g.jobs);
        let simulated = g.drive.spec.target.simulated();
        let planned: Vec<(&Job, Option<&FileRef>)> =
            jobs.iter().map(|j| (j.1, j.3.map(|t| &t.file))).collect();
        let (hashes, actions) = drive_plan(lab, &g.drive.spec, &g.firmware, &planned, opts);
        // The suite the simulated drive's state comes from, once a job has run on it.
        let mut state_of: Option<&str> = None;
        // A job that failed on the simulated drive, and its suite: the rest of that suite
        // would start from a state it does not describe.
        let mut failed: Option<(&str, &str)> = None;
        for (((index, job, span, trace), hash), action) in
            jobs.into_iter().zip(&hashes).zip(actions)
        {
            if interrupted.load(std::sync::atomic::Ordering::Relaxed) {
                return;
            }
            if summary.lock().expect("summary lock").stopped.is_some() {
                return;
            }
            let store = match action {
                Action::Nothing => continue,
                Action::Keep => {
                    obs.job_skipped(job);
                    summary.lock().expect("summary lock").skipped += 1;
                    continue;
                }
                Action::Store => true,
                Action::ForState { .. } => false,
            };
            if let Some((suite, id)) = failed.filter(|(s, _)| *s == job.suite) {
                if store {
                    summary.lock().expect("summary lock").failed.push((
                        job.id.clone(),
                        format!(
                            "not run: it starts from the state the jobs of {suite} before it \
                             leave the simulated drive in, and {id} failed"
                        ),
                    ));
                }
                continue;
            }
            // A simulated drive starts each suite as its drive file describes it.
            if simulated && state_of.is_some_and(|s| s != job.suite) {
                match target::open(&g.drive.spec, &lab.root, g.writes, &opts.destroy_data) {
                    Ok(t) => g.target = t,
                    Err(e) => {
                        obs.job_failed(job, &e);
                        summary
                            .lock()
                            .expect("summary lock")
                            .failed
                            .push((job.id.clone(), e.to_string()));
                        return;
                    }
                }
            }
            state_of = Some(&job.suite);
            match run_job(
                lab,
                &mut g,
                (index, total),
                (job, span, trace, hash),
                store,
                opts,
                obs,
                stop,
            ) {
                Ok(()) => {
                    let mut summary = summary.lock().expect("summary lock");
                    match action {
                        Action::ForState { kept } => {
                            obs.job_for_state(job, kept);
                            summary.for_state += 1;
                            summary.skipped += kept as usize;
                        }
                        _ => summary.completed += 1,
                    }
                }
                Err(Error::Interrupted) => {
                    interrupted.store(true, std::sync::atomic::Ordering::Relaxed);
                    return;
                }
                Err(e) => {
                    obs.job_failed(job, &e);
                    let mut summary = summary.lock().expect("summary lock");
                    summary.failed.push((job.id.clone(), e.to_string()));
                    if cannot_store(&e, &results) && summary.stopped.is_none() {
                        summary.stopped = Some(format!("{} cannot be written", results.display()));
                    }
                    if simulated {
                        failed = Some((&job.suite, &job.id));
                    }
                }
            }
        }
    };
    let (sims, reals): (Vec<Group>, Vec<Group>) = groups
        .into_iter()
        .partition(|g| g.drive.spec.target.simulated());
    // Real drives alone (no simulation competing for the CPU), then simulations in parallel,
    // the busiest first (longest-processing-time order: a fast drive simulates more I/Os in
    // the same virtual time), each worker taking the next drive as it finishes one.
    reals.into_iter().for_each(run_group);
    let mut sims = sims;
    sims.sort_by(|a, b| {
        sim_rate(&b.drive.spec.target)
            .total_cmp(&sim_rate(&a.drive.spec.target))
            .then_with(|| a.drive.spec.id.0.cmp(&b.drive.spec.id.0))
    });
    let queue = Mutex::new(std::collections::VecDeque::from(sims));
    let workers = rayon::current_num_threads().max(1);
    rayon::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|_| loop {
                let next = queue.lock().ok().and_then(|mut q| q.pop_front());
                let Some(g) = next else { break };
                run_group(g);
            });
        }
    });
    if interrupted.load(std::sync::atomic::Ordering::Relaxed) {
        return Err(Error::Interrupted);
    }
    Ok(summary.into_inner().expect("summary lock"))
}

/// How much work a simulated drive's jobs are likely to cost per second of virtual time:
/// the data it can move (bytes/s), four times over for a compressing drive, which runs a
/// compressor over every byte written (about what it costs against the model).
fn sim_rate(target: &TargetSpec) -> f64 {
    match target {
        TargetSpec::Sim(s) => s.link_rate.0,
        TargetSpec::Ssd(s) => s.link_rate.0 * if s.compression { 4.0 } else { 1.0 },
        TargetSpec::Hdd(h) => h.outer_rate.0.min(h.link_rate.0),
        TargetSpec::Path(_) => 0.0,
    }
}

/// Where `job`'s results go, filed under `firmware`.
fn job_dir(lab: &Lab, firmware: &str, job: &Job) -> std::path::PathBuf {
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

/// Whether `dir` holds the complete results of the job planned as `hash`.
fn is_complete(dir: &Path, hash: &str) -> bool {
    std::fs::read(dir.join(MANIFEST)).is_ok_and(|bytes| {
        serde_json::from_slice::<JobManifest>(&bytes)
            .is_ok_and(|m| m.plan_hash == hash && dir.join(store::SAMPLES).is_file())
    })
}

/// Runs one job on its group's target: stored (its earlier results replaced only once the
/// new ones are complete), or with `store` false for the drive's state only.
#[allow(clippy::too_many_arguments)]
fn run_job(
    lab: &Lab,
    g: &mut Group,
    (index, total): (usize, usize),
    (job, span, loaded, hash): (&Job, u64, Option<&LoadedTrace>, &str),
    store: bool,
    opts: &RunOptions,
    obs: &dyn Observer,
    stop: &AtomicBool,
) -> Result<()> {
    let drive = &g.drive.spec;
    let dir = job_dir(lab, &g.firmware, job);
    let trace = loaded.map(|t| &t.trace);
    obs.job_started(index, total, job);
    // A simulated drive's results are the same whenever and wherever they are computed,
    // so its manifest records neither (and stays byte-identical from run to run).
    let simulated = g.target.info().kind == TargetKind::Simulated;
    let started_at = (!simulated).then(now_rfc3339);
    let engine = opts.engine.unwrap_or(job.engine);
    let precondition = if job.repeat == 1 {
        precondition(g.target.as_mut(), job, span, engine, stop)?
    } else {
        None
    };
    if store {
        store::remove_stale_temps(&dir);
    }
    // A job run for the drive's state only keeps no samples.
    let writer = store
        .then(|| SampleWriter::create(&dir, &job.id, !simulated))
        .transpose()?;
    let sink = |t: u32| -> Box<dyn SampleSink + Send> {
        match &writer {
            Some(w) => Box::new(w.sink(t)),
            None => Box::new(engine::Discard),
        }
    };
    let (outcome, engine_used) = engine::run(
        &job.workload,
        span,
        job.seed,
        g.target.as_mut(),
        engine,
        &sink,
        &|t| obs.job_tick(job, t),
        stop,
        trace,
    )?;
    let Some(writer) = writer else {
        return Ok(());
    };
    // The earlier results stay whole until the new ones are: a job stopped or failed
    // half-way loses nothing.
    store::invalidate(&dir)?;
    let (rows, samples_sha256) = writer.finish()?;
    let suite = &lab.suites[&job.suite];
    let info = g.target.info().clone();
    let manifest = JobManifest {
        format: MANIFEST_FORMAT,
        job: job.id.clone(),
        drive: job.drive.clone(),
        drive_name: drive.display_name(),
        firmware: g.firmware.clone(),
        firmware_source: g.firmware_source.to_string(),
        suite: job.suite.clone(),
        suite_title: suite.spec.title.clone(),
        test: job.test.clone(),
        title: job.title.clone(),
        variant: job.variant.id.clone(),
        variant_label: job.variant.label.clone(),
        repeat: job.repeat,
        workload: job.workload.describe(),
        metric: job.metric.key().to_string(),
        better: format!("{:?}", job.better).to_lowercase(),
        engine: engine_used.to_string(),
        engine_requested: engine.word().to_string(),
        seed: job.seed,
        suite_seed: suite.spec.seed,
        plan_hash: hash.to_string(),
        roundup_version: env!("CARGO_PKG_VERSION").to_string(),
        git_revision: GIT_REVISION.to_string(),
        suite_file: FileRef {
            path: suite.file.display().to_string(),
            sha256: suite.sha256.clone(),
        },
        drive_file: FileRef {
            path: g.drive.file.display().to_string(),
            sha256: g.drive.sha256.clone(),
        },
        trace_file: loaded.map(|t| t.file.clone()),
        host: (!simulated).then(store::this_host),
        clock: if simulated {
            "virtual".into()
        } else {
            "monotonic".into()
        },
        target: info,
        started_at,
        finished_at: (!simulated).then(now_rfc3339),
        warmup_ns: job.workload.warmup_ns,
        precondition,
        outcome,
        samples_rows: rows,
        samples_sha256,
        extra: Default::default(),
    };
    let json = serde_json::to_vec_pretty(&manifest).map_err(|e| Error::Store {
        path: dir.join(MANIFEST),
        message: e.to_string(),
    })?;
    store::write_atomic(&dir.join(MANIFEST), &json)?;
    obs.job_finished(job, &manifest);
    Ok(())
}

/// Reads (or generates) the trace a replay test plays, and hashes the file it comes from.
fn load_trace(lab: &Lab, input: &TraceInput) -> Result<LoadedTrace> {
    let trace = read_trace(lab, input)?;
    let file = trace_file(lab, input)?;
    Ok(LoadedTrace { trace, file })
}

/// The file a replay's trace comes from (the trace, or the profile a generated one
/// follows), with its SHA-256.
fn trace_file(lab: &Lab, input: &TraceInput) -> Result<FileRef> {
    let path = match input {
        TraceInput::File { path, .. } => lab.root.join(path),
        TraceInput::Generate { profile, .. } => {
            crate::trace::find_profile(&lab.root, profile).unwrap_or_else(|| lab.root.join(profile))
        }
    };
    let sha256 = crate::lab::sha256_file(&path).map_err(|e| Error::io(&path, e))?;
    Ok(FileRef {
        path: path
            .strip_prefix(&lab.root)
            .unwrap_or(&path)
            .display()
            .to_string(),
        sha256,
    })
}

/// Reads (or generates) the trace a replay test plays.
fn read_trace(lab: &Lab, input: &TraceInput) -> Result<Trace> {
    match input {
        TraceInput::File { path, format } => crate::trace::import_file(
            &lab.root.join(path),
            &ImportOptions {
                format: *format,
                ..Default::default()
            },
        ),
        TraceInput::Generate { profile, seed } => Ok(crate::trace::generate(
            &crate::trace::load_profile(&lab.root, profile)?,
            *seed,
        )),
    }
}

/// Purges and fills the span as the test asks, before its first repeat.
fn precondition(
    target: &mut dyn Target,
    job: &Job,
    span: u64,
    engine: EngineChoice,
    stop: &AtomicBool,
) -> Result<Option<PreconditionRecord>> {
    let p = job.workload.precondition;
    if !p.purge && p.fill == 0 {
        return Ok(None);
    }
    if p.purge {
        target.trim(0, span)?;
    }
    let mut record = PreconditionRecord {
        purged: p.purge,
        fill_passes: p.fill,
        fill_bytes: 0,
        fill_seconds: 0.0,
    };
    if p.fill > 0 {
        const BLOCK: u64 = 128 * 1024;
        let fill = Workload::simple(
            0,
            Pattern::Sequential,
            BLOCK,
            Span::Bytes(span),
            4,
            Length::Count(span / BLOCK * p.fill as u64),
        );
        let discard = |_: u32| -> Box<dyn SampleSink + Send> { Box::new(engine::Discard) };
        let seed = crate::workload::derive_seed(job.seed, &["fill"]);
        let (out, _) = engine::run(
            &fill,
            span,
            seed,
            target,
            engine,
            &discard,
            &|_| {},
            stop,
            None,
        )?;

        record.fill_bytes = out.bytes;
        record.fill_seconds = out.end_ns as f64 / 1e9;
    }
    Ok(Some(record))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;
    use std::path::Path;

    /// What a block device with this firmware reports.
    fn device(firmware: &str) -> TargetInfo {
        let identity = BTreeMap::from([
            ("firmware".to_string(), firmware.to_string()),
            ("serial".to_string(), "S1".to_string()),
        ]);
        TargetInfo {
            kind: TargetKind::BlockDevice,
            path: Some("/dev/sdx".into()),
            capacity: 1 << 30,
            logical_block: 512,
            physical_block: 4096,
            identity,
        }
    }

    fn drive(firmware: Option<&str>) -> DriveSpec {
        let fw = firmware
            .map(|f| format!("firmware: \"{f}\"\n"))
            .unwrap_or_default();
        let text = format!("id: d\nvendor: V\nmodel: M\ncapacity: 1GB\n{fw}path: /dev/sdx\n");
        crate::config::from_yaml(Path::new("drives/d.yaml"), &text).unwrap()
    }

    #[test]
    fn firmware_comes_from_the_device_unless_the_drive_file_names_it() {
        // Left out: the device's firmware, so a firmware update files results anew.
        assert_eq!(
            resolve_firmware(&drive(None), &device("0002")).unwrap(),
            ("0002".to_string(), "device")
        );
        // Named and matching.
        assert_eq!(
            resolve_firmware(&drive(Some("0002")), &device("0002")).unwrap(),
            ("0002".to_string(), "drive file")
        );
        // Named and different: say so and stop.
        let e = resolve_firmware(&drive(Some("0001")), &device("0002"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("names firmware \"0001\" but the device reports \"0002\""),
            "{e}"
        );
    }

    #[test]
    fn a_simulated_drive_runs_what_comes_before_the_last_job_to_store_in_each_suite() {
        use Action::*;
        let jobs = [
            ("a", true),
            ("a", false),
            ("a", false),
            ("a", true),
            ("b", false),
            ("b", false),
        ];
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
        let real = [("a", false), ("a", false)];
        assert_eq!(actions(&real, &[true, false], false), [Keep, Store]);
    }
}
