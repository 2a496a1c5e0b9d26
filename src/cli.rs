//! The command line: parses arguments, calls the library's stages, prints results and
//! progress, and turns errors into messages and exit codes.

use std::collections::HashMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand};
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

use roundup::drive::TargetSpec;
use roundup::engine::Tick;
use roundup::lab::Lab;
use roundup::plan::{self, Job, Plan, Selection};
use roundup::run::{self, Observer, RunOptions};
use roundup::store::JobManifest;
use roundup::target::{device, EngineChoice};
use roundup::units::{figure, Counted, DurationLabel};
use roundup::{analysis, render, store, Error};

/// `println!` that returns an error when standard output cannot be written (a full disk)
/// instead of panicking; a closed pipe ends the process quietly (see `main`).
macro_rules! outln {
    ($($arg:tt)*) => {
        writeln!(std::io::stdout(), $($arg)*)
            .map_err(|e| anyhow::anyhow!("cannot write to standard output: {e}"))?
    };
}

static STOP: AtomicBool = AtomicBool::new(false);

/// Reproducible review reports for storage drives.
#[derive(Parser)]
#[command(name = "roundup", version, about, long_about = None)]
struct Cli {
    /// The lab folder (suites/, drives/, commentary/; results/ and site/ are written here).
    #[arg(long, global = true, default_value = ".")]
    lab: PathBuf,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Validate every suite, drive and commentary file of the lab.
    Check,
    /// Expand suites × drives × variants × repeats into jobs and run them.
    Run {
        #[command(flatten)]
        select: Select,
        /// Print the plan and its estimated duration, then stop.
        #[arg(long)]
        dry_run: bool,
        /// Run only the jobs whose complete results are missing.
        #[arg(long)]
        resume: bool,
        /// The I/O engine for real drives, overriding suites and drive files.
        #[arg(long, value_name = "auto|io_uring|psync")]
        engine: Option<EngineChoice>,
        /// Allow write tests to destroy the data on the block device with this serial (or
        /// kernel name, for devices without one). Repeatable.
        #[arg(long = "destroy-data", value_name = "SERIAL")]
        destroy_data: Vec<String>,
    },
    /// List the lab's drives and the block devices the kernel reports.
    Drives,
    /// Work with block I/O traces (import, statistics, export).
    #[command(subcommand)]
    Trace(TraceCommand),
    /// The reviewer's commentary files.
    #[command(subcommand)]
    Commentary(CommentaryCommand),
    /// Print IOPS, MB/s and latency percentiles of every stored job.
    Summary {
        #[command(flatten)]
        select: Select,
        /// Print a JSON array for scripts.
        #[arg(long, conflicts_with_all = ["csv", "markdown"])]
        json: bool,
        /// Print CSV for a spreadsheet, every figure at full precision.
        #[arg(long, conflicts_with = "markdown")]
        csv: bool,
        /// Print a Markdown table to paste into a review, figures as the site shows them.
        #[arg(long)]
        markdown: bool,
    },
    /// Build the static site in site/ from results/ and commentary/.
    Render {
        #[command(flatten)]
        compare: CompareArgs,
    },
    /// Run the demo suite on the lab's drives and render the site.
    Demo,
    /// Serve site/ on localhost for a quick look.
    Serve {
        /// Port on 127.0.0.1 (0 picks a free one).
        #[arg(long, default_value_t = 8000)]
        port: u16,
    },
}

/// Drive-vs-drive pages beyond those review.yaml names.
#[derive(clap::Args, Clone, Default)]
struct CompareArgs {
    /// Also write a drive-vs-drive page for these two drive ids (the first as a share of
    /// the second); repeatable.
    #[arg(long = "compare", value_name = "A,B", value_parser = parse_pair)]
    pairs: Vec<(String, String)>,
}

impl CompareArgs {
    /// The render options, once each pair names two different drives of the lab.
    fn options(&self, lab: &Lab) -> Result<render::Options> {
        for (a, b) in &self.pairs {
            for id in [a, b] {
                if !lab.drives.contains_key(id) {
                    let known: Vec<&str> = lab.drives.keys().map(String::as_str).collect();
                    bail!(
                        "--compare {a},{b}: no drive {id:?} in the lab; expected one of: {}",
                        known.join(", ")
                    );
                }
            }
            if a == b {
                bail!("--compare {a},{b}: expected two different drives");
            }
        }
        Ok(render::Options {
            compare: self.pairs.clone(),
        })
    }
}

fn parse_pair(s: &str) -> std::result::Result<(String, String), String> {
    match s.split_once(',') {
        Some((a, b)) if !a.trim().is_empty() && !b.trim().is_empty() && !b.contains(',') => {
            Ok((a.trim().to_string(), b.trim().to_string()))
        }
        _ => Err(format!("expected two drive ids as A,B, found {s:?}")),
    }
}

#[derive(Subcommand)]
enum CommentaryCommand {
    /// Add every missing slot to commentary/PAGE.md (all pages when none is named), each
    /// with the fingerprint of its chart's figures and a sentence drafted from them. What
    /// is already written is kept as it is.
    Init {
        /// A page id such as suites/demo, drives/ocz-vertex-120 or
        /// compare/ocz-vertex-120-vs-intel-x25m-g2-160.
        page: Option<String>,
        #[command(flatten)]
        compare: CompareArgs,
    },
}

#[derive(Subcommand)]
enum TraceCommand {
    /// Print what a review prints about a trace: counts, bytes, sizes, sequential share,
    /// queue depth, footprint, duration.
    Stats {
        /// The trace file.
        file: PathBuf,
        #[command(flatten)]
        import: ImportArgs,
        /// Print JSON for scripts.
        #[arg(long)]
        json: bool,
    },
    /// Generate a storage-bench trace from a profile (suites/profiles/NAME.yaml) and print
    /// its statistics.
    Gen {
        /// Profile name (light, heavy, gaming, or any in suites/profiles/) or a path.
        #[arg(long)]
        profile: String,
        /// Seed of the generator.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Write it here: roundup's Parquet trace for `.parquet`, else fio iolog v3.
        #[arg(long)]
        out: Option<PathBuf>,
        /// For an fio iolog: the device or file it replays on.
        #[arg(long, default_value = "/dev/sdX")]
        device: String,
        /// Print the statistics as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Convert a trace to fio's iolog v3 (replayable with fio --read_iolog) or to roundup's

    /// own Parquet trace file.
    Convert {
        /// The trace file.
        file: PathBuf,
        /// Where to write it.
        out: PathBuf,
        #[command(flatten)]
        import: ImportArgs,
        /// fio (iolog v3) or roundup (Parquet).
        #[arg(long, default_value = "fio")]
        to: String,
        /// For fio: the device or file the iolog replays on.
        #[arg(long, default_value = "/dev/sdX")]
        device: String,
    },
}

#[derive(clap::Args)]
struct ImportArgs {
    /// The format (blkparse, msr, spc, disksim, mqsim, blkreplay, fio2, fio3, roundup);
    /// detected from the content when left out.
    #[arg(long)]
    format: Option<roundup::trace::Format>,
    /// Skip malformed lines and report how many, instead of stopping at the first.
    #[arg(long)]
    skip_bad: bool,
    /// blkparse: take the queue (Q) events instead of the issue (D) events.
    #[arg(long)]
    queue_events: bool,
}

impl ImportArgs {
    fn load(&self, file: &Path) -> Result<roundup::trace::Trace> {
        let opts = roundup::trace::ImportOptions {
            format: self.format,
            skip_bad: self.skip_bad,
            queue_events: self.queue_events,
        };
        let t = roundup::trace::import_file(file, &opts)?;
        if t.skipped > 0 {
            eprintln!(
                "warning: {}: {} malformed lines skipped",
                file.display(),
                t.skipped
            );
        }
        Ok(t)
    }
}

#[derive(clap::Args, Default)]
struct Select {
    /// A suite to include (repeatable; default all).
    #[arg(long = "suite", value_name = "SUITE")]
    suites: Vec<String>,
    /// A drive to include (repeatable; default all).
    #[arg(long = "drive", value_name = "DRIVE")]
    drives: Vec<String>,
    /// A test to include (repeatable; default all).
    #[arg(long = "test", value_name = "TEST")]
    tests: Vec<String>,
}

impl Select {
    fn selection(&self) -> Selection {
        Selection {
            suites: self.suites.clone(),
            drives: self.drives.clone(),
            tests: self.tests.clone(),
        }
    }
}

/// Runs the command line; returns the process exit code.
pub fn main() -> i32 {
    let cli = Cli::parse();
    let _ = ctrlc::set_handler(|| {
        if STOP.swap(true, Ordering::SeqCst) {
            std::process::exit(130);
        }
        eprintln!("\nstopping: completed jobs are kept; `roundup run --resume` runs the rest (Ctrl-C again to quit at once)");
    });
    match dispatch(&cli) {
        Ok(()) => 0,
        Err(e) => {
            if matches!(e.downcast_ref::<Error>(), Some(Error::Interrupted)) {
                eprintln!("interrupted: completed jobs are in results/; run `roundup run --resume` to finish");
                return 130;
            }
            eprintln!("error: {e:#}");
            1
        }
    }
}

fn load(lab: &Path) -> Result<Lab> {
    match Lab::load(lab) {
        Ok(l) => Ok(l),
        Err(Error::Input(errors)) => {
            for e in &errors {
                eprintln!("{e}");
            }
            bail!(
                "{} in the lab at {}; nothing was run",
                Counted(errors.len(), "problem"),
                lab.display()
            )
        }
        Err(e) => Err(e.into()),
    }
}

fn dispatch(cli: &Cli) -> Result<()> {
    match &cli.command {
        Command::Check => {
            let lab = load(&cli.lab)?;
            outln!(
                "lab {} is valid: {}, {}, {}",
                cli.lab.display(),
                Counted(lab.suites.len(), "suite"),
                Counted(lab.drives.len(), "drive"),
                Counted(lab.commentary.len(), "commentary file")
            );
            Ok(())
        }
        Command::Drives => drives(&cli.lab),
        Command::Serve { port } => {
            let site = cli.lab.join("site");
            if !site.join("index.html").is_file() {
                bail!(
                    "{} has no site yet: run `roundup render` (or `roundup demo`) first",
                    site.display()
                );
            }
            roundup::serve::serve(&site, *port, |url| {
                say(format_args!(
                    "serving {} at {url} (Ctrl-C to stop)",
                    site.display()
                ));
                let _ = std::io::stdout().flush();
            })?;
            Ok(())
        }
        Command::Trace(t) => trace(t),
        Command::Commentary(CommentaryCommand::Init { page, compare }) => {
            commentary_init(&cli.lab, page.as_deref(), compare)
        }

        Command::Run {
            select,
            dry_run,
            resume,
            engine,
            destroy_data,
        } => {
            let lab = load(&cli.lab)?;
            let plan = plan::expand(&lab, &select.selection())?;
            print_plan(&lab, &plan, *dry_run)?;
            if *dry_run {
                return Ok(());
            }
            let opts = RunOptions {
                resume: *resume,
                engine: *engine,
                destroy_data: destroy_data.clone(),
            };
            run_plan(&lab, &plan, &opts)
        }
        Command::Summary {
            select,
            json,
            csv,
            markdown,
        } => {
            let format = match (*json, *csv, *markdown) {
                (true, _, _) => SummaryFormat::Json,
                (_, true, _) => SummaryFormat::Csv,
                (_, _, true) => SummaryFormat::Markdown,
                _ => SummaryFormat::Table,
            };
            summary(&cli.lab, select, format)
        }
        Command::Render { compare } => {
            let lab = load(&cli.lab)?;
            do_render(&lab, &compare.options(&lab)?)
        }
        Command::Demo => {
            let started = Instant::now();
            let lab = load(&cli.lab)?;
            let sel = Selection {
                suites: vec!["demo".into()],
                ..Default::default()
            };
            let plan =
                plan::expand(&lab, &sel).context("the demo needs suites/demo.yaml in the lab")?;
            print_plan(&lab, &plan, false)?;
            run_plan(&lab, &plan, &RunOptions::default())?;
            do_render(&lab, &render::Options::default())?;
            let index = lab.site_dir().join("index.html");
            let index = std::fs::canonicalize(&index).unwrap_or(index);
            outln!(
                "demo finished in {:.1} s; open file://{}",
                started.elapsed().as_secs_f64(),
                index.display()
            );
            Ok(())
        }
    }
}

fn print_plan(lab: &Lab, plan: &Plan, detailed: bool) -> Result<()> {
    // Jobs with a wall-clock estimate, jobs on a drive model (its simulated time is known,
    // not how long the model takes), and jobs that run to an I/O count or a trace's end.
    let (mut timed, mut wall, mut modelled, mut virt, mut open) = (0, 0.0, 0, 0.0, 0);
    for job in &plan.jobs {
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
                    format!("{} simulated, ~{:.1} s", DurationLabel((v * 1e9) as u64), w)
                }
                (None, Some(w)) => format!("~{}", DurationLabel((w * 1e9) as u64)),
                (Some(v), None) => format!("{} simulated", DurationLabel((v * 1e9) as u64)),
                _ if job.workload.replay.is_some() => "as long as its trace".into(),
                _ => "until its I/O count".into(),
            };
            outln!("{:<64} {}  [{}]", job.id, job.workload.describe(), when);
        }
    }
    let drives: std::collections::BTreeSet<&str> =
        plan.jobs.iter().map(|j| j.drive.as_str()).collect();
    let mut line = format!(
        "plan: {} on {}",
        Counted(plan.jobs.len(), "job"),
        Counted(drives.len(), "drive")
    );
    if virt > 0.0 {
        line.push_str(&format!(
            ", {} of simulated drive time",
            DurationLabel((virt * 1e9) as u64)
        ));
    }
    let mut parts = Vec::new();
    if timed > 0 {
        parts.push(format!(
            "{timed} estimated at {}",
            DurationLabel((wall.max(0.0) * 1e9) as u64)
        ));
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

struct Bars {
    multi: MultiProgress,
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
            (Some(r), Some(roundup::suite::ReplayMode::Timed)) => {
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
                "done {:<60} {:>10} IOPS {:>9} MB/s{took}{replay}",
                job.id,
                figure(iops),
                figure(mbs)
            ))
        });
    }
    fn job_skipped(&self, job: &Job) {
        self.multi
            .suspend(|| say(format_args!("kept {} (complete)", job.id)));
    }
    fn job_failed(&self, job: &Job, e: &Error) {
        if let Some(bar) = self.bars.lock().expect("bars").remove(&job.id) {
            bar.finish_and_clear();
        }
        self.multi.suspend(|| {
            let _ = writeln!(std::io::stderr(), "FAILED {}: {e}", job.id);
        });
    }
}

/// Prints a line of progress. Progress is best-effort: output that cannot be written
/// (stdout on a full disk) must not stop the work, whose results are the point.
fn say(line: std::fmt::Arguments) {
    let _ = writeln!(std::io::stdout(), "{line}");
}

fn run_plan(lab: &Lab, plan: &Plan, opts: &RunOptions) -> Result<()> {
    let bars = Bars {
        multi: MultiProgress::with_draw_target(ProgressDrawTarget::stderr()),
        bars: Mutex::new(HashMap::new()),
    };
    let started = Instant::now();
    let summary = run::run(lab, plan, opts, &bars, &STOP)?;
    outln!(
        "run: {} completed, {} kept from earlier runs, {} failed, in {:.1} s; results in {}",
        Counted(summary.completed, "job"),
        summary.skipped,
        summary.failed.len(),
        started.elapsed().as_secs_f64(),
        lab.results_dir().display()
    );
    if !summary.failed.is_empty() {
        for (id, e) in &summary.failed {
            eprintln!("{id}: {e}");
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

fn do_render(lab: &Lab, opts: &render::Options) -> Result<()> {
    let report = render::render(lab, opts)?;
    for p in &report.problems {
        eprintln!("warning: {p}");
    }
    for s in &report.orphan_slots {
        eprintln!("warning: {s}");
    }
    for s in &report.stale_slots {
        eprintln!("stale: {s}");
    }
    for w in &report.written {
        outln!("wrote site/{}", w.display());
    }
    for r in &report.removed {
        outln!("removed site/{} (no longer rendered)", r.display());
    }
    outln!(
        "render: {} written, {} unchanged, {} removed, in {}",
        Counted(report.written.len(), "file"),
        report.unchanged,
        report.removed.len(),
        lab.site_dir().display()
    );
    Ok(())
}

/// How `roundup summary` prints.
#[derive(Clone, Copy, PartialEq)]
enum SummaryFormat {
    Table,
    Json,
    Csv,
    Markdown,
}

fn summary(lab_dir: &Path, select: &Select, format: SummaryFormat) -> Result<()> {
    let (jobs, problems) = store::scan(&lab_dir.join("results"));
    let keep = |m: &JobManifest| {
        (select.suites.is_empty() || select.suites.contains(&m.suite))
            && (select.drives.is_empty() || select.drives.contains(&m.drive))
            && (select.tests.is_empty() || select.tests.contains(&m.test))
    };
    let stored = jobs.len();
    let jobs: Vec<_> = jobs.into_iter().filter(|j| keep(&j.manifest)).collect();
    let (rows, more) = analysis::summarize(&jobs);
    for p in problems.iter().chain(&more) {
        eprintln!("warning: {p}");
    }
    if jobs.is_empty() && stored > 0 {
        bail!(
            "none of the {stored} stored jobs matches the selection (--suite, --drive, --test); \
             `roundup summary` lists them all"
        );
    }
    if format == SummaryFormat::Json {
        let list: Vec<_> = rows.iter().map(|(_, s)| s).collect();
        outln!("{}", serde_json::to_string_pretty(&list)?);
        return Ok(());
    }
    if format == SummaryFormat::Csv {
        outln!("drive,firmware,suite,test,variant,repeat,iops,mb_per_s,lat_mean_us,lat_p50_us,lat_p99_us,lat_p999_us,lat_max_us,ios");
        for (_, s) in &rows {
            let text = [&s.drive, &s.firmware, &s.suite, &s.test, &s.variant]
                .map(|t| render::csv_field(t))
                .join(",");
            let figures = [
                s.iops,
                s.mb_per_s,
                s.lat_mean_us,
                s.lat_p50_us,
                s.lat_p99_us,
                s.lat_p999_us,
                s.lat_max_us,
            ]
            .map(|v| v.to_string())
            .join(",");
            outln!("{text},{},{figures},{}", s.repeat, s.ios);
        }
        return Ok(());
    }
    if rows.is_empty() {
        outln!("no results in {}", lab_dir.join("results").display());
        return Ok(());
    }
    let header = [
        "drive",
        "firmware",
        "suite",
        "test",
        "variant",
        "r",
        "IOPS",
        "MB/s",
        "mean µs",
        "p50 µs",
        "p99 µs",
        "p99.9 µs",
        "max µs",
        "I/Os",
    ];
    let table: Vec<Vec<String>> = rows
        .iter()
        .map(|(_, s)| {
            vec![
                s.drive.clone(),
                s.firmware.clone(),
                s.suite.clone(),
                s.test.clone(),
                s.variant.clone(),
                s.repeat.to_string(),
                figure(s.iops),
                figure(s.mb_per_s),
                figure(s.lat_mean_us),
                figure(s.lat_p50_us),
                figure(s.lat_p99_us),
                figure(s.lat_p999_us),
                figure(s.lat_max_us),
                s.ios.to_string(),
            ]
        })
        .collect();
    let widths: Vec<usize> = (0..header.len())
        .map(|c| {
            table
                .iter()
                .map(|r| r[c].chars().count())
                .chain([header[c].chars().count()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: Vec<&str>| {
        cells
            .iter()
            .enumerate()
            .map(|(c, v)| {
                if c < 5 {
                    format!("{v:<w$}", w = widths[c])
                } else {
                    format!("{v:>w$}", w = widths[c])
                }
            })
            .collect::<Vec<_>>()
            .join("  ")
    };
    if format == SummaryFormat::Markdown {
        // Text columns aligned left, figures right; a `|` in a name is escaped.
        let cells = |r: Vec<&str>| {
            let r: Vec<String> = r.iter().map(|c| c.replace('|', "\\|")).collect();
            format!("| {} |", r.join(" | "))
        };
        outln!("{}", cells(header.to_vec()));
        let rule: Vec<&str> = (0..header.len())
            .map(|c| if c < 5 { "---" } else { "---:" })
            .collect();
        outln!("|{}|", rule.join("|"));
        for r in &table {
            outln!("{}", cells(r.iter().map(|s| s.as_str()).collect()));
        }
        return Ok(());
    }
    outln!("{}", line(header.to_vec()));
    for r in &table {
        outln!("{}", line(r.iter().map(|s| s.as_str()).collect()));
    }
    Ok(())
}

fn drives(lab_dir: &Path) -> Result<()> {
    let lab = load(lab_dir)?;
    outln!("drives in the lab:");
    // Columns as wide as their longest entry, so that a long name does not push its row out.
    let rows: Vec<[String; 4]> = lab
        .drives
        .iter()
        .map(|(id, d)| {
            let s = &d.spec;
            let target = match &s.target {
                TargetSpec::Sim(_) => "simulated".to_string(),
                TargetSpec::Ssd(_) => "simulated SSD".to_string(),
                TargetSpec::Hdd(_) => "simulated hard disk".to_string(),
                TargetSpec::Path(p) => p.path.display().to_string(),
            };
            let firmware = s.firmware.as_deref().unwrap_or("(from device)");
            [id.clone(), s.display_name(), firmware.to_string(), target]
        })
        .collect();
    let width = |i: usize| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0);
    let (w0, w1, w2) = (width(0), width(1), width(2));
    for [id, name, firmware, target] in &rows {
        outln!("  {id:<w0$}  {name:<w1$}  firmware {firmware:<w2$}  {target}");
    }
    let found = device::inventory();
    outln!("block devices:");
    if found.is_empty() {
        outln!("  none reported by the kernel");
    }
    for d in &found {
        let get = |k: &str| d.get(k).map(String::as_str).unwrap_or("-");
        let bytes: f64 = get("capacity_bytes").parse().unwrap_or(0.0);
        let kind = if get("rotational") == "1" {
            "rotational"
        } else {
            "solid-state"
        };
        outln!(
            "  {:<14} {:>9.1} GB  {:<28} serial {:<22} firmware {:<10} {kind}, {}/{} B blocks, scheduler {}{}",
            get("path"),
            bytes / 1e9,
            get("model"),
            get("serial"),
            get("firmware"),
            get("logical_block_size"),
            get("physical_block_size"),
            get("scheduler"),
            d.get("backing_file").map(|b| format!(", backed by {b}")).unwrap_or_default()
        );
    }
    Ok(())
}

fn print_stats(name: &str, s: &roundup::trace::TraceStats, json: bool) -> Result<()> {
    if json {
        outln!("{}", serde_json::to_string_pretty(s)?);
        return Ok(());
    }
    outln!("{name} ({} format)", s.format);
    outln!(
        "  requests     {} ({} reads, {} writes, {} trims, {} flushes)",
        s.requests,
        s.reads,
        s.writes,
        s.trims,
        s.flushes
    );
    outln!(
        "  data         {} MB read, {} MB written",
        figure(s.read_bytes as f64 / 1e6),
        figure(s.write_bytes as f64 / 1e6)
    );
    let sizes: Vec<String> = s
        .sizes
        .iter()
        .take(8)
        .map(|z| format!("{} {}%", z.label, figure(z.percent)))
        .collect();
    outln!(
        "  sizes        {}{}",
        sizes.join(", "),
        if s.sizes.len() > 8 { ", ..." } else { "" }
    );
    outln!(
        "  sequential   {}% of data requests",
        figure(s.sequential_percent)
    );
    match s.average_qd {
        Some(q) => outln!("  average QD   {} (from {})", figure(q), s.qd_source),
        None => outln!("  average QD   {}", s.qd_source),
    }
    outln!(
        "  footprint    {} MB touched, up to offset {} MB",
        figure(s.footprint_bytes as f64 / 1e6),
        figure(s.max_offset as f64 / 1e6)
    );
    if !s.devices.is_empty() {
        let names: Vec<&str> = s.devices.iter().map(|d| d.name.as_str()).collect();
        outln!(
            "  devices      {} ({}), laid out one after another",
            s.devices.len(),
            names.join(", ")
        );
    }
    outln!("  duration     {} s", figure(s.duration_s));
    Ok(())
}

fn write_trace(
    t: &roundup::trace::Trace,
    out: &Path,
    to_roundup: bool,
    device: &str,
) -> Result<()> {
    if to_roundup {
        store::write_trace(t, out)?;
    } else {
        store::write_atomic(out, t.to_fio_iolog(device).as_bytes())?;
    }
    eprintln!("wrote {} requests to {}", t.requests.len(), out.display());
    Ok(())
}

fn trace(cmd: &TraceCommand) -> Result<()> {
    match cmd {
        TraceCommand::Stats { file, import, json } => {
            let t = import.load(file)?;
            print_stats(
                &file.display().to_string(),
                &roundup::trace::stats(&t),
                *json,
            )
        }
        TraceCommand::Gen {
            profile,
            seed,
            out,
            device,
            json,
        } => {
            let p = roundup::trace::load_profile(Path::new("."), profile)?;
            let t = roundup::trace::generate(&p, *seed);
            if let Some(out) = out {
                write_trace(
                    &t,
                    out,
                    out.extension().is_some_and(|e| e == "parquet"),
                    device,
                )?;
            }
            print_stats(
                &format!("{} (seed {seed})", p.title),
                &roundup::trace::stats(&t),
                *json,
            )
        }
        TraceCommand::Convert {
            file,
            out,
            import,
            to,
            device,
        } => {
            // Writing over the trace being read would lose it.
            let same = std::fs::canonicalize(file)
                .ok()
                .is_some_and(|f| std::fs::canonicalize(out).is_ok_and(|o| o == f));
            if same {
                bail!(
                    "{}: the output is the trace being converted; give another path",
                    out.display()
                );
            }
            let t = import.load(file)?;
            match to.as_str() {
                "fio" | "roundup" => write_trace(&t, out, to == "roundup", device),
                other => bail!("--to: expected fio or roundup, found {other:?}"),
            }
        }
    }
}

fn commentary_init(lab_dir: &Path, only: Option<&str>, compare: &CompareArgs) -> Result<()> {
    let lab = load(lab_dir)?;
    let plans = render::slot_plans(&lab, &compare.options(&lab)?)?;
    if let Some(p) = only {
        if !plans.contains_key(p) {
            let known: Vec<&str> = plans.keys().map(String::as_str).collect();
            bail!("no page {p:?} with results; pages: {}", known.join(", "));
        }
    }
    for (page, slots) in plans
        .iter()
        .filter(|(p, _)| only.is_none_or(|o| o == p.as_str()))
    {
        let path = lab.root.join("commentary").join(format!("{page}.md"));
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let existing = lab.commentary.get(page).map(|c| &c.spec);
        let (new_text, added) = roundup::commentary::merge(existing, &text, slots);
        if added.is_empty() {
            outln!("commentary/{page}.md: all {} slots present", slots.len());
            continue;
        }
        store::write_atomic(&path, new_text.as_bytes())?;
        outln!(
            "commentary/{page}.md: added {} of {} slots",
            added.len(),
            slots.len()
        );
    }
    Ok(())
}
