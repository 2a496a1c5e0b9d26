//! One job on its drive's target: preconditioning before the first repeat, the engine
//! streaming samples to the store, and the manifest written last (so a job's earlier
//! results are replaced only once the new ones are complete).

use std::sync::atomic::AtomicBool;

use crate::engine::{self, EngineJob, Reporting, SampleSink};
use crate::error::{Error, Result};
use crate::io::EngineChoice;
use crate::plan::Job;
use crate::store::{
    self, FileRef, JobManifest, PreconditionRecord, SampleWriter, MANIFEST, MANIFEST_FORMAT,
};
use crate::target::{Target, TargetKind};
use crate::workload::{Length, Pattern, Span, Workload};

use super::preflight::CheckedJob;
use super::schedule::{job_dir, DriveRun};
use super::{RunContext, GIT_REVISION};

/// A job to run on a drive: the checked job, its plan hash, and whether its results are
/// stored (or it runs for the simulated drive's state only).
pub(crate) struct JobToRun<'a> {
    pub checked: &'a CheckedJob<'a>,
    pub hash: &'a str,
    pub store: bool,
}

pub(super) fn now_rfc3339() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// What the engine did in a stored job, for its manifest.
pub(super) struct Measured {
    pub ran: engine::Ran,
    pub engine: EngineChoice,
    pub precondition: Option<PreconditionRecord>,
    pub started_at: Option<String>,
    pub written: store::Written,
}

/// Runs one job on its drive's target: stored (its earlier results replaced only once the
/// new ones are complete), or for the drive's state only.
pub(crate) fn run_job(ctx: &RunContext, drive: &mut DriveRun, planned: &JobToRun) -> Result<()> {
    let CheckedJob {
        index,
        job,
        span,
        trace,
    } = *planned.checked;
    let dir = job_dir(ctx.lab, &drive.firmware.name, job);
    ctx.obs.job_started(index, ctx.total, job);
    // A simulated drive's results are the same whenever and wherever they are computed,
    // so its manifest records neither (and stays byte-identical from run to run).
    let simulated = drive.target.info().kind == TargetKind::Simulated;
    // The test's interval: the drive idles before the test (and its preconditioning).
    if job.repeat == 1 && job.workload.interval_ns > 0 {
        drive.target.idle(job.workload.interval_ns, ctx.stop);
    }
    let started_at = (!simulated).then(now_rfc3339);
    let engine = ctx.opts.engine.unwrap_or(job.engine);
    let precondition = if job.repeat == 1 {
        precondition(drive.target.as_mut(), job, span, engine, ctx.stop)?
    } else {
        None
    };
    if planned.store {
        store::remove_stale_temps(&dir);
    }
    // A job run for the drive's state only keeps no samples.
    let writer = planned
        .store
        .then(|| SampleWriter::create(&dir, &job.id, !simulated, job.workload.samples))
        .transpose()?;
    let sink = |t: u32| -> Box<dyn SampleSink + Send> {
        match &writer {
            Some(w) => Box::new(w.sink(t)),
            None => Box::new(engine::Discard),
        }
    };
    let ran = engine::run(
        &EngineJob {
            workload: &job.workload,
            span,
            seed: job.seed,
            engine,
            trace: trace.map(|t| &t.trace),
        },
        drive.target.as_mut(),
        &Reporting {
            sink: &sink,
            progress: &|t| ctx.obs.job_tick(job, t),
            stop: ctx.stop,
        },
    )?;
    let Some(writer) = writer else {
        return Ok(());
    };
    // The earlier results stay whole until the new ones are: a job stopped or failed
    // half-way loses nothing.
    store::invalidate(&dir)?;
    let written = writer.finish()?;
    for kept in &ran.kept {
        store::write_atomic(&dir.join(kept.name), &kept.bytes)?;
    }
    let measured = Measured {
        ran,
        engine,
        precondition,
        started_at,
        written,
    };
    let manifest = manifest(ctx, drive, planned, measured);
    let json = serde_json::to_vec_pretty(&manifest).map_err(|e| Error::Store {
        path: dir.join(MANIFEST),
        message: e.to_string(),
    })?;
    store::write_atomic(&dir.join(MANIFEST), &json)?;
    ctx.obs.job_finished(job, &manifest);
    Ok(())
}

/// The manifest of a stored job: what ran, on what, from which files, and what it
/// measured; a simulated drive's records no host or wall clock.
pub(super) fn manifest(
    ctx: &RunContext,
    drive: &DriveRun,
    planned: &JobToRun,
    m: Measured,
) -> JobManifest {
    let job = planned.checked.job;
    let suite = &ctx.lab.suites[&job.suite];
    let info = drive.target.info().clone();
    let simulated = info.kind == TargetKind::Simulated;
    JobManifest {
        format: MANIFEST_FORMAT,
        job: job.id.clone(),
        drive: job.drive.clone(),
        drive_name: drive.drive.spec.display_name(),
        firmware: drive.firmware.name.clone(),
        firmware_source: drive.firmware.source.to_string(),
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
        of_repeats: job.of_repeats,
        engine: m.ran.engine.to_string(),
        engine_requested: m.engine.word().to_string(),
        engine_options: job.workload.io.clone(),
        seed: job.seed,
        suite_seed: suite.spec.seed,
        plan_hash: planned.hash.to_string(),
        roundup_version: env!("CARGO_PKG_VERSION").to_string(),
        git_revision: GIT_REVISION.to_string(),
        suite_file: FileRef {
            path: suite.file.display().to_string(),
            sha256: suite.sha256.clone(),
        },
        drive_file: FileRef {
            path: drive.drive.file.display().to_string(),
            sha256: drive.drive.sha256.clone(),
        },
        trace_file: planned.checked.trace.map(|t| t.file.clone()),
        host: (!simulated).then(store::this_host),
        clock: if simulated {
            "virtual".into()
        } else {
            "monotonic".into()
        },
        target: info,
        started_at: m.started_at,
        finished_at: (!simulated).then(now_rfc3339),
        warmup_ns: job.workload.warmup_ns,
        passes: match job.workload.length {
            crate::workload::Length::Passes(n) => Some(n),
            _ => None,
        },
        precondition: m.precondition,
        outcome: m.ran.outcome,
        samples: job.workload.samples,
        samples_rows: m.written.rows,
        samples_writes: job.workload.samples.rows().then_some(m.written.writes),
        samples_sha256: m.written.sha256,
        histogram: m.written.histogram,
        extra: m.ran.extra,
    }
}

/// Purges and fills the span as the test asks, before its first repeat.
pub(super) fn precondition(
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
        // 128 KiB requests; a span smaller than that in one request of its whole logical
        // blocks (it wrote nothing, and fio refused it).
        let lb = (target.info().logical_block as u64).max(1);
        let block = (128 * 1024).min(span / lb * lb).max(lb);
        let fill = Workload::simple(
            0,
            Pattern::Sequential,
            block,
            Span::Bytes(span),
            4,
            Length::Count(span / block * p.fill as u64),
        );
        let discard = |_: u32| -> Box<dyn SampleSink + Send> { Box::new(engine::Discard) };
        let ran = engine::run(
            &EngineJob {
                workload: &fill,
                span,
                seed: crate::rng::derive_seed(job.seed, &["fill"]),
                engine,
                trace: None,
            },
            target,
            &Reporting {
                sink: &discard,
                progress: &|_| {},
                stop,
            },
        )?;
        record.fill_bytes = ran.outcome.bytes;
        record.fill_seconds = ran.outcome.end_ns as f64 / 1e9;
    }
    Ok(Some(record))
}
