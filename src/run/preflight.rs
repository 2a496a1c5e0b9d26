//! The preflight: what would stop a run, found before anything runs and with nothing
//! created or written (`run --dry-run` stops here). Every trace is read, every simulated
//! drive built, every file and device probed read-only, and every job checked against what
//! its target reports; then, for a real run, the targets are opened.

use std::collections::BTreeMap;

use crate::config::sha256_file;
use crate::drive::DriveSpec;
use crate::error::{Error, Result};
use crate::io::EngineChoice;
use crate::lab::Lab;
use crate::plan::{Job, Plan};
use crate::store::FileRef;
use crate::target::{self, AlignedBuf, Target, TargetInfo, TargetKind};
use crate::trace::{ImportOptions, Trace};
use crate::units::{SizeLabel, SizeRounded};
use crate::workload::{TraceInput, Workload};

use super::schedule::{state_bytes, DriveRun};
use super::RunOptions;

/// The trace a replay test plays, and the file it comes from (the trace, or the profile
/// a generated one follows).
pub(crate) struct LoadedTrace {
    pub trace: Trace,
    pub file: FileRef,
}

/// Every trace of a plan, by where it comes from; `None` for one that could not be read.
pub(crate) type Traces<'a> = BTreeMap<&'a TraceInput, Option<LoadedTrace>>;

/// A job that fits its drive.
pub(crate) struct CheckedJob<'a> {
    /// Its number in the plan, from 1.
    pub index: usize,
    /// The job.
    pub job: &'a Job,
    /// The bytes of the target it covers.
    pub span: u64,
    /// The trace it plays, for a replay.
    pub trace: Option<&'a LoadedTrace>,
}

/// One drive's jobs in a plan: the plan's jobs from index `first` (from 0).
#[derive(Clone, Copy)]
pub(crate) struct DriveJobs<'a> {
    pub first: usize,
    pub jobs: &'a [Job],
}

impl DriveJobs<'_> {
    /// Whether any of the jobs writes (how the target must be opened).
    pub fn writes(&self) -> bool {
        self.jobs.iter().any(|j| j.workload.writes())
    }
}

/// The firmware a drive's results are filed under, and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Firmware {
    /// The revision.
    pub name: String,
    /// `drive file`, `device` or `unknown`.
    pub source: &'static str,
}

/// A test that does not fit a drive: the test's key at fault and what is wrong with it.
#[derive(Debug, Clone, PartialEq)]
pub struct Misfit {
    /// The key of the test (`span`, `block_size`, `align`, `queue_depth`).
    pub key: &'static str,
    /// What is wrong, naming the drive.
    pub message: String,
}

/// Checks a workload against drive `drive`'s target and returns the span in bytes.
pub fn check_workload(
    drive: &str,
    info: &TargetInfo,
    w: &Workload,
) -> std::result::Result<u64, Misfit> {
    let span = w.span.resolve(info.capacity);
    let lb = info.logical_block as u64;
    let misfit = |key, message| Err(Misfit { key, message });
    if span > info.capacity {
        return misfit(
            "span",
            format!(
                "expected at most the {} drive {drive} offers, found {}",
                SizeRounded(info.capacity),
                SizeLabel(span)
            ),
        );
    }
    if span < w.block_size.max() {
        return misfit(
            "span",
            format!(
                "expected at least the block size {} on drive {drive}, found {}",
                SizeLabel(w.block_size.max()),
                SizeLabel(span)
            ),
        );
    }
    if w.replay.is_some() {
        // A trace's requests are aligned to the logical block as they are played.
        return Ok(span);
    }
    for (size, _) in &w.block_size.0 {
        if size % lb != 0 {
            return misfit(
                "block_size",
                format!(
                    "expected a multiple of drive {drive}'s logical block size ({lb} B), found {}",
                    SizeLabel(*size)
                ),
            );
        }
    }
    if w.align % lb != 0 {
        return misfit(
            "align",
            format!(
                "expected a multiple of drive {drive}'s logical block size ({lb} B), found {}",
                SizeLabel(w.align)
            ),
        );
    }
    Ok(span)
}

/// The firmware to file a drive's results under.
pub(crate) fn resolve_firmware(spec: &DriveSpec, info: &TargetInfo) -> Result<Firmware> {
    let reported = info.identity.get("firmware").cloned();
    let firmware = |name: String, source| Ok(Firmware { name, source });
    match (&spec.firmware, reported) {
        (Some(fw), Some(dev)) if info.kind == TargetKind::BlockDevice && *fw != dev => {
            Err(Error::Target(target::TargetError::FirmwareMismatch {
                drive: spec.id.0.clone(),
                named: fw.clone(),
                reported: dev,
            }))
        }
        (Some(fw), _) => firmware(fw.clone(), "drive file"),
        (None, Some(dev)) if info.kind == TargetKind::BlockDevice => firmware(dev, "device"),
        (None, _) => firmware("unknown".into(), "unknown"),
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
/// would otherwise exhaust the machine in the middle of a run. A target whose slots need
/// no buffers of their requests (`buffers` false: a model that reads no byte written)
/// gets tokens that allocate nothing, and passes.
fn check_buffers(
    job: &Job,
    trace: Option<&Trace>,
    span: u64,
    logical_block: u64,
    memory: Option<u64>,
    buffers: bool,
) -> std::result::Result<(), Misfit> {
    if !buffers {
        return Ok(());
    }
    let w = &job.workload;
    let largest = match trace {
        Some(t) => crate::workload::placed_len(&t.requests, span, logical_block),
        None => w.block_size.max(),
    };
    let slots = w.threads as u64 * w.queue_depth as u64;
    let bytes = slots.saturating_mul(AlignedBuf::footprint(largest));
    match memory {
        Some(memory) if bytes > memory / 2 => Err(Misfit {
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

/// Checks that a real target's engine can run the job, before any job of the run is: fio
/// (asked, or on a bench) what [`crate::engine::fio::refusal`] allows, psync and io_uring
/// what [`target::engine_refusal`] allows (`auto` falls back to psync only where the kernel
/// has no io_uring, which the run checks).
fn check_engine(
    drive: &str,
    w: &Workload,
    trace: Option<&Trace>,
    info: &TargetInfo,
    engine: EngineChoice,
) -> std::result::Result<(), Misfit> {
    let misfit = |key, why: &str| Misfit {
        key,
        message: format!("on drive {drive}, {why}"),
    };
    if info.kind == TargetKind::Simulated {
        return Ok(());
    }
    let refusal = if engine == EngineChoice::Fio || info.identity.contains_key("bench") {
        crate::engine::fio::refusal(w, trace, info)
    } else {
        target::engine_refusal(info, engine, w.threads, w.queue_depth, &w.io.ring)
    };
    match refusal {
        Some((key, why)) => Err(misfit(key, &why)),
        None => Ok(()),
    }
}

/// Every trace the plan's replay tests play, read once; one that cannot be read is a
/// problem of the first job that plays it.
fn load_traces<'a>(lab: &Lab, plan: &'a Plan, problems: &mut Vec<String>) -> Traces<'a> {
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

/// What the checks of a drive's jobs share: the lab (to point at a test's key), the
/// traces, this machine's memory, and where problems go.
pub(crate) struct Checker<'a, 'p> {
    pub lab: &'a Lab,
    pub traces: &'a Traces<'a>,
    pub memory: Option<u64>,
    /// The run's engine for every real target (`run --engine`), over the jobs'.
    pub engine: Option<EngineChoice>,
    pub problems: &'p mut Vec<String>,
}

impl<'a> Checker<'a, '_> {
    /// Checks one drive's jobs against what its target reports (`looks_at_data`: whether
    /// it reads the data written, so that the engine gives its slots buffers of their
    /// requests, [`crate::engine::needs_buffers`]). A job that does not fit is a problem
    /// pointed at the test's key in its suite, once for all its repeats.
    pub fn check(
        &mut self,
        info: &TargetInfo,
        looks_at_data: bool,
        drive: DriveJobs<'a>,
    ) -> Vec<CheckedJob<'a>> {
        let buffers = crate::engine::needs_buffers(info.kind, looks_at_data);
        let mut checked = Vec::new();
        for (k, job) in drive.jobs.iter().enumerate() {
            let trace = job
                .workload
                .replay
                .as_ref()
                .and_then(|r| self.traces.get(&r.trace).and_then(Option::as_ref));
            let lb = info.logical_block as u64;
            let engine = self.engine.unwrap_or(job.engine);
            let fits = check_workload(&job.drive, info, &job.workload)
                .and_then(|span| {
                    check_buffers(job, trace.map(|t| &t.trace), span, lb, self.memory, buffers)
                        .map(|_| span)
                })
                .and_then(|span| {
                    check_engine(
                        &job.drive,
                        &job.workload,
                        trace.map(|t| &t.trace),
                        info,
                        engine,
                    )
                    .map(|_| span)
                });
            match fits {
                Ok(span) => checked.push(CheckedJob {
                    index: drive.first + k + 1,
                    job,
                    span,
                    trace,
                }),
                Err(m) => self.misfit(job, m),
            }
        }
        checked
    }

    /// Records a misfit at the test's key; a key a variant sets is pointed at in
    /// `variants:` (the message says which value).
    fn misfit(&mut self, job: &Job, m: Misfit) {
        let key = if job
            .variant
            .settings
            .iter()
            .any(|(d, _)| crate::suite::dimension_key(d) == m.key)
        {
            format!("variants.{}", m.key)
        } else {
            m.key.to_string()
        };
        let line = self
            .lab
            .test_key_error(&job.suite, &job.test, &key, m.message)
            .to_string();
        if !self.problems.contains(&line) {
            self.problems.push(line);
        }
    }
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
pub(crate) struct Probed<'a> {
    pub problems: Vec<String>,
    /// What does not stop the run: offered loads above a drive's link.
    pub warnings: Vec<String>,
    pub traces: Traces<'a>,
    pub drives: Vec<DriveJobs<'a>>,
    pub built: Vec<Option<Box<dyn Target>>>,
    pub memory: Option<u64>,
}

/// [`preflight`], keeping what it read and built for the run.
pub(crate) fn probe_plan<'a>(lab: &Lab, plan: &'a Plan, opts: &RunOptions) -> Probed<'a> {
    let mut problems = Vec::new();
    let memory = machine_memory();
    let traces = load_traces(lab, plan, &mut problems);
    let drives = by_drive(plan);
    let mut built = Vec::with_capacity(drives.len());
    for &drive in &drives {
        let mut checker = Checker {
            lab,
            traces: &traces,
            memory,
            engine: opts.engine,
            problems: &mut problems,
        };
        built.push(look_at(&mut checker, drive, opts));
    }
    problems.dedup();
    Probed {
        problems,
        warnings: link_warnings(lab, plan),
        traces,
        drives,
        built,
        memory,
    }
}

/// Each test whose offered load (`rate`) is more than a simulated drive's link carries,
/// once per test and variant value, at its key, naming the drives by link rate: they
/// cannot be offered it, and the QoS curve stops at their link.
fn link_warnings(lab: &Lab, plan: &Plan) -> Vec<String> {
    use crate::drive::TargetSpec;
    use std::collections::{BTreeMap, BTreeSet};
    /// A test's offered load over the links of some drives: link rate (bytes/s) → drives.
    struct Over<'a> {
        suite: &'a str,
        test: &'a str,
        key: &'static str,
        rate: String,
        offered: f64,
        links: BTreeMap<u64, BTreeSet<&'a str>>,
    }
    let mut over: Vec<Over> = Vec::new();
    for job in &plan.jobs {
        let Some(rate) = job.workload.rate else {
            continue;
        };
        let link = match lab.drives.get(&job.drive).map(|d| &d.spec.target) {
            Some(TargetSpec::Ssd(s)) => s.host_link_rate.unwrap_or(s.link_rate).0,
            Some(TargetSpec::Hdd(h)) => h.link_rate.0,
            Some(TargetSpec::Sim(s)) => s.link_rate.0,
            _ => continue,
        };
        let offered = match rate {
            crate::workload::RateLimit::Iops(r) => r * job.workload.block_size.mean(),
            crate::workload::RateLimit::BytesPerSecond(b) => b,
        };
        if offered <= link {
            continue;
        }
        let key = if job.variant.settings.iter().any(|(d, _)| d == "rate") {
            "variants.rate"
        } else {
            "rate"
        };
        let rate = rate.label();
        let at = over
            .iter()
            .position(|o| (o.suite, o.test, o.key, &o.rate) == (&job.suite, &job.test, key, &rate));
        let o = match at {
            Some(i) => &mut over[i],
            None => {
                over.push(Over {
                    suite: &job.suite,
                    test: &job.test,
                    key,
                    rate,
                    offered,
                    links: BTreeMap::new(),
                });
                over.last_mut().expect("just pushed")
            }
        };
        o.links
            .entry(link as u64)
            .or_default()
            .insert(job.drive.as_str());
    }
    let mb = |b: f64| crate::units::figure(b / 1e6);
    over.iter()
        .map(|o| {
            let drives: usize = o.links.values().map(BTreeSet::len).sum();
            let what = if drives == 1 {
                let (link, names) = o.links.iter().next().expect("a drive");
                format!(
                    "is more than drive {}'s link carries ({} MB/s): it is offered what it \
                     cannot take",
                    names.iter().next().expect("a drive"),
                    mb(*link as f64)
                )
            } else {
                let by_link: Vec<String> = o
                    .links
                    .iter()
                    .map(|(link, names)| {
                        let names: Vec<&str> = names.iter().copied().collect();
                        format!("{} MB/s: {}", mb(*link as f64), names.join(", "))
                    })
                    .collect();
                format!(
                    "is more than the links of {drives} drives carry ({}): they are offered \
                     what they cannot take",
                    by_link.join("; ")
                )
            };
            lab.test_key_error(
                o.suite,
                o.test,
                o.key,
                format!("{} ({} MB/s) {what}", o.rate, mb(o.offered)),
            )
            .to_string()
        })
        .collect()
}

/// The plan's jobs, drive by drive.
fn by_drive(plan: &Plan) -> Vec<DriveJobs<'_>> {
    let mut first = 0;
    plan.jobs
        .chunk_by(|a, b| a.drive == b.drive)
        .map(|jobs| {
            first += jobs.len();
            DriveJobs {
                first: first - jobs.len(),
                jobs,
            }
        })
        .collect()
}

/// The first look at one drive's target, with its jobs checked against what it reports:
/// a simulated drive is built (it touches nothing outside the process) and returned; a
/// file or device is probed, nothing created or written.
fn look_at<'a>(
    checker: &mut Checker<'a, '_>,
    drive: DriveJobs<'a>,
    opts: &RunOptions,
) -> Option<Box<dyn Target>> {
    let lab = checker.lab;
    let loaded = &lab.drives[&drive.jobs[0].drive];
    let spec = &loaded.spec;
    // A simulated drive whose state would not fit in the machine is not built: the
    // allocation would fail (or the kernel kill the run) part-way.
    let state = state_bytes(spec);
    if let Some(memory) = checker.memory.filter(|&m| state > m) {
        checker.problems.push(format!(
            "{}: drive {}'s simulated state (its map and blocks, about {}) would take more than \
             this machine's memory ({}): a larger `page`, or a smaller `capacity` or `raw_capacity`",
            loaded.file.display(),
            spec.id,
            SizeRounded(state),
            SizeRounded(memory)
        ));
        return None;
    }
    let writes = drive.writes();
    let probe = |writes| target::probe(spec, &lab.root, writes, &opts.destroy_data);
    let (info, target) = match probe(writes) {
        Ok(probed) => probed,
        Err(refused) => {
            // A target refused for writing (a device holding data, a file roundup did not
            // create) is still described read-only, so that the same look finds whatever
            // else would stop the run: the reviewer mends it all at once.
            match writes.then(|| probe(false)) {
                Some(Ok(probed)) => {
                    // Refused for writing only: said at the first test that writes.
                    let first = drive.jobs.iter().find(|j| j.workload.writes());
                    match first {
                        Some(job) => checker.misfit(
                            job,
                            Misfit {
                                key: writing_key(&job.workload),
                                message: format!(
                                    "this test writes to drive {}, and roundup may not: {refused}",
                                    job.drive
                                ),
                            },
                        ),
                        None => checker.problems.push(refused.to_string()),
                    }
                    probed
                }
                _ => {
                    checker.problems.push(refused.to_string());
                    return None;
                }
            }
        }
    };
    if let Err(e) = resolve_firmware(spec, &info) {
        checker.problems.push(e.to_string());
    }
    // A file or device (no model built here) has buffers the kernel reads and writes.
    let looks_at_data = target.as_ref().is_none_or(|t| t.needs_data());
    checker.check(&info, looks_at_data, drive);
    target
}

/// The key of a test that says it writes: a fill's `passes`, a writing `operation`, else
/// its `precondition` (or, for a replay, its `trace`).
fn writing_key(w: &Workload) -> &'static str {
    if matches!(w.length, crate::workload::Length::Passes(_)) {
        "passes"
    } else if w.operation.writes() && w.replay.is_none() {
        "operation"
    } else if w.replay.is_some() {
        "trace"
    } else {
        "precondition"
    }
}

/// Opens every drive the preflight passed (`built`: the simulated ones it built, taken as
/// they are) and checks its jobs against what the opened target reports.
pub(crate) fn open_drives<'a>(
    checker: &mut Checker<'a, '_>,
    drives: Vec<DriveJobs<'a>>,
    built: Vec<Option<Box<dyn Target>>>,
    opts: &RunOptions,
) -> Result<Vec<DriveRun<'a>>> {
    let lab = checker.lab;
    let mut runs = Vec::new();
    for (drive, sim) in drives.into_iter().zip(built) {
        let loaded = &lab.drives[&drive.jobs[0].drive];
        let writes = drive.writes();
        let opened = match sim {
            Some(t) => Ok(t),
            None => target::open(&loaded.spec, &lab.root, writes, &opts.destroy_data),
        };
        match opened.and_then(|t| resolve_firmware(&loaded.spec, t.info()).map(|fw| (t, fw))) {
            Ok((target, firmware)) => {
                let jobs = checker.check(target.info(), target.needs_data(), drive);
                runs.push(DriveRun {
                    drive: loaded,
                    target,
                    writes,
                    firmware,
                    jobs,
                });
            }
            Err(e) => checker.problems.push(e.to_string()),
        }
    }
    if !checker.problems.is_empty() {
        checker.problems.dedup();
        return Err(Error::Preflight(std::mem::take(checker.problems)));
    }
    Ok(runs)
}

/// Reads (or generates) the trace a replay test plays, and hashes the file it comes from.
fn load_trace(lab: &Lab, input: &TraceInput) -> Result<LoadedTrace> {
    let trace = read_trace(lab, input)?;
    let file = trace_file(lab, input)?;
    Ok(LoadedTrace { trace, file })
}

/// The file a replay's trace comes from (the trace, or the profile a generated one
/// follows), with its SHA-256.
pub(crate) fn trace_file(lab: &Lab, input: &TraceInput) -> Result<FileRef> {
    let path = match input {
        TraceInput::File { path, .. } => lab.root.join(path),
        TraceInput::Generate { profile, .. } => {
            crate::trace::find_profile(&lab.root, profile).unwrap_or_else(|| lab.root.join(profile))
        }
    };
    let sha256 = sha256_file(&path).map_err(|e| Error::io(&path, e))?;
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
        TraceInput::File { path, format } => crate::store::import_trace(
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::TraceOp;
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

    fn firmware(name: &str, source: &'static str) -> Firmware {
        Firmware {
            name: name.into(),
            source,
        }
    }

    /// A file target: on a bench when `bench` is given.
    fn file(bench: Option<&str>) -> TargetInfo {
        let identity = bench
            .map(|b| BTreeMap::from([("bench".to_string(), b.to_string())]))
            .unwrap_or_default();
        TargetInfo {
            kind: TargetKind::File,
            identity,
            ..device("1")
        }
    }

    #[test]
    fn what_an_engine_cannot_run_is_named_by_its_key() {
        use crate::workload::{Burst, Length, Pattern, ReplaySpec, Span, TraceInput};
        let plain = Workload::simple(0, Pattern::Random, 4096, Span::Full, 4, Length::Count(10));
        let key = |w: &Workload, info: &TargetInfo, engine| {
            check_engine("d", w, None, info, engine)
                .err()
                .map(|m| m.key)
        };
        let (here, far, near) = (
            file(None),
            file(Some("192.0.2.1:8765")),
            file(Some("127.0.0.1:8765")),
        );
        assert_eq!(key(&plain, &here, EngineChoice::Fio), None);
        let replay = Workload {
            replay: Some(ReplaySpec {
                trace: TraceInput::File {
                    path: "t.log".into(),
                    format: None,
                },
                mode: Default::default(),
                time_scale: 1.0,
                max_idle: None,
                remap: Default::default(),
            }),
            ..plain.clone()
        };
        // Another machine's bench cannot read the iolog; this machine's can.
        assert_eq!(key(&replay, &far, EngineChoice::Auto), Some("trace"));
        assert_eq!(key(&replay, &near, EngineChoice::Auto), None);
        assert_eq!(key(&replay, &here, EngineChoice::Fio), None);
        // What fio's iolog cannot hold: a trace of flushes alone, a path with a space.
        let request = |op| crate::trace::TraceRequest {
            time_ns: 0,
            op,
            offset: 0,
            len: 4096,
            complete_ns: None,
            qd: None,
            process: None,
        };
        let trace = |ops: &[TraceOp]| Trace {
            requests: ops.iter().map(|&op| request(op)).collect(),
            format: crate::trace::Format::Blkparse,
            skipped: 0,
            devices: Vec::new(),
        };
        let traced = |t: &Trace, info: &TargetInfo, engine| {
            check_engine("d", &replay, Some(t), info, engine)
                .err()
                .map(|m| m.key)
        };
        let flushes = trace(&[TraceOp::Flush, TraceOp::Trim]);
        let writes = trace(&[TraceOp::Flush, TraceOp::Write]);
        assert_eq!(traced(&flushes, &here, EngineChoice::Fio), Some("trace"));
        assert_eq!(traced(&flushes, &near, EngineChoice::Auto), Some("trace"));
        assert_eq!(traced(&flushes, &here, EngineChoice::IoUring), None);
        assert_eq!(traced(&writes, &here, EngineChoice::Fio), None);
        let spaced = TargetInfo {
            path: Some("/tmp/a b.img".into()),
            ..here.clone()
        };
        assert_eq!(traced(&writes, &spaced, EngineChoice::Fio), Some("engine"));
        assert_eq!(traced(&writes, &spaced, EngineChoice::IoUring), None);
        // Polled completions on fio need poll queues, as on io_uring.
        let mut hipri = plain.clone();
        hipri.io.ring.hipri = true;
        let no_poll = TargetInfo {
            identity: BTreeMap::from([("io_poll".to_string(), "0".to_string())]),
            ..here.clone()
        };
        assert_eq!(key(&hipri, &no_poll, EngineChoice::Fio), Some("io_uring"));
        assert_eq!(key(&hipri, &here, EngineChoice::Fio), None);
        // Bursts on fio, asked or on a bench; not on io_uring.
        let bursts = Workload {
            burst: Some(Burst {
                bytes: 1 << 20,
                duty_cycle: 0.2,
            }),
            ..plain.clone()
        };
        assert_eq!(key(&bursts, &here, EngineChoice::Fio), Some("burst"));
        assert_eq!(key(&bursts, &near, EngineChoice::Auto), Some("burst"));
        assert_eq!(key(&bursts, &here, EngineChoice::IoUring), None);
        // Ring options on psync, and depths past what each engine holds.
        let mut ring = plain.clone();
        ring.io.ring.fixed_files = true;
        assert_eq!(key(&ring, &here, EngineChoice::Psync), Some("io_uring"));
        let deep = Workload {
            queue_depth: 40_000,
            ..plain.clone()
        };
        assert_eq!(key(&deep, &here, EngineChoice::Psync), Some("queue_depth"));
        assert_eq!(key(&deep, &here, EngineChoice::Fio), Some("queue_depth"));
        assert_eq!(key(&deep, &here, EngineChoice::IoUring), None);
        // A model runs whatever its queue is given.
        let model = TargetInfo {
            kind: TargetKind::Simulated,
            ..here.clone()
        };
        assert_eq!(key(&deep, &model, EngineChoice::Psync), None);
    }

    #[test]
    fn firmware_comes_from_the_device_unless_the_drive_file_names_it() {
        // Left out: the device's firmware, so a firmware update files results anew.
        assert_eq!(
            resolve_firmware(&drive(None), &device("0002")).unwrap(),
            firmware("0002", "device")
        );
        // Named and matching.
        assert_eq!(
            resolve_firmware(&drive(Some("0002")), &device("0002")).unwrap(),
            firmware("0002", "drive file")
        );
        // Named and different: say so and stop.
        let e = resolve_firmware(&drive(Some("0001")), &device("0002")).unwrap_err();
        assert!(
            matches!(
                e,
                Error::Target(target::TargetError::FirmwareMismatch { .. })
            ),
            "{e:?}"
        );
        let e = e.to_string();
        assert!(
            e.contains("names firmware \"0001\" but the device reports \"0002\""),
            "{e}"
        );
    }
}
