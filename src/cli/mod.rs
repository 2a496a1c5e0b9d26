//! The command line: parses arguments, calls the library's stages, prints results and
//! progress, and turns errors into messages and exit codes. Here the arguments and the
//! commands that fit in a few lines; `progress` has `roundup run`'s plan and progress
//! bars, `tables` the summary and drive listings, `trace` the trace commands.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand};
use roundup::io::EngineChoice;
use roundup::lab::{self, Lab};
use roundup::plan::{self, Selection};
use roundup::run::{self, RunOptions};
use roundup::units::Counted;
use roundup::{render, Error};

/// `println!` that returns an error when standard output cannot be written (a full disk)
/// instead of panicking; a closed pipe ends the process quietly (see `main`).
macro_rules! outln {
    ($($arg:tt)*) => {
        writeln!(std::io::stdout(), $($arg)*)
            .map_err(|e| anyhow::anyhow!("cannot write to standard output: {e}"))?
    };
}

/// `outln!` for what a command says about its work (the plan, what a render wrote), which
/// `--quiet` leaves out; what was asked for (a summary, statistics, JSON) uses `outln!`.
macro_rules! info {
    ($($arg:tt)*) => {
        if !$crate::cli::quiet() {
            outln!($($arg)*);
        }
    };
}

mod commentary;
mod progress;
mod tables;
mod trace;

use progress::{print_plan, run_plan, say};
use tables::{drives, summary, SummaryFormat};

static STOP: AtomicBool = AtomicBool::new(false);
static QUIET: AtomicBool = AtomicBool::new(false);

/// Whether `--quiet` (or a JSON report) asked for nothing but results and errors.
fn quiet() -> bool {
    QUIET.load(Ordering::Relaxed)
}

/// Reproducible review reports for storage drives.
#[derive(Parser)]
#[command(name = "roundup", version, about, long_about = None)]
struct Cli {
    /// The lab folder (suites/, drives/, commentary/; results/ and site/ are written here).
    #[arg(long, global = true, default_value = ".")]
    lab: PathBuf,
    /// Print only results and errors: no plan, progress bars or lists of files written.
    #[arg(long, short, global = true)]
    quiet: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Validate every suite, drive and commentary file of the lab, and the stored results.
    Check,
    /// Expand suites × drives × variants × repeats into jobs and run them.
    ///
    /// A simulated drive starts each suite as its drive file describes it; the jobs of the
    /// suite before a selected (`--test`) or missing (`--resume`) one run too, unstored,
    /// so that every job's results are those of a whole run.
    Run {
        #[command(flatten)]
        select: Select,
        /// Print the plan and its estimated duration, then what would stop the run before
        /// it starts (targets refused or missing, tests that do not fit a drive,
        /// unreadable traces), creating and writing nothing; exit 1 if anything would.
        #[arg(long)]
        dry_run: bool,
        /// Run only the jobs whose complete results are missing (on a simulated drive, the
        /// jobs of the suite before a missing one also run, unstored, for the drive's state).
        #[arg(long)]
        resume: bool,
        /// The I/O engine for real drives, overriding suites and drive files.
        #[arg(long, value_name = "auto|io_uring|psync|fio")]
        engine: Option<EngineChoice>,
        /// Run only part K of N of the plan (whole drives, dealt out in turn by id), so that
        /// N machines running 1/N … N/N into their own results folders together run the
        /// whole plan once; `roundup merge` brings the folders together.
        #[arg(long, value_name = "K/N")]
        shard: Option<plan::Shard>,
        /// Allow write tests to destroy the data on the block device with this serial (or
        /// kernel name, for devices without one). Repeatable.
        #[arg(long = "destroy-data", value_name = "SERIAL")]
        destroy_data: Vec<String>,
        /// Simulate drives in parallel only while their states, together, are estimated to
        /// fit in this much memory (e.g. 1GiB; a drive that needs more runs alone). Default:
        /// no limit.
        #[arg(long, value_name = "SIZE", value_parser = roundup::units::parse_size)]
        memory: Option<u64>,
        /// Print what the run did as JSON (jobs completed, kept, run for the state, failed
        /// with the reason), and nothing else on standard output.
        #[arg(long)]
        json: bool,
    },
    /// List the lab's drives, whether their benches answer, and the block devices the
    /// kernel reports.
    Drives {
        /// Print JSON for scripts: `drives`, `benches` and `block_devices`.
        #[arg(long)]
        json: bool,
    },
    /// Merge results folders (the shards of a run, another bench's or lab's results) into
    /// this lab's results/: jobs already there with the same content are skipped, a job
    /// held with other content is an error naming both places unless `--prefer` says
    /// which wins; every source is checked before anything is copied.
    Merge {
        /// Results folders to merge in.
        #[arg(required = true, value_name = "DIR")]
        dirs: Vec<PathBuf>,
        /// On a conflict, keep the job that finished last (`newer`) or the one from this
        /// folder (a source, or the lab's results/).
        #[arg(long, value_name = "newer|DIR")]
        prefer: Option<String>,
    },
    /// Work with block I/O traces: statistics, generation from a profile, conversion.
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
        /// List every file written or removed, charts too (by default the pages are
        /// listed and the charts counted).
        #[arg(long, short)]
        verbose: bool,
        /// Also export every chart as a PNG file, 1200 px wide (for publishing; without
        /// it, the site's "PNG" button has the reader's browser draw one).
        #[arg(long)]
        png: bool,
    },
    /// Run the demo suite on the lab's drives and render the site.
    Demo {
        /// Simulate drives in parallel only while their states, together, are estimated
        /// to fit in this much memory: the default keeps the demo's peak near 1 GiB, where
        /// the 160-256 GB drives (750-850 MB each) run alone; more lets them run beside
        /// others.
        #[arg(long, value_name = "SIZE", value_parser = roundup::units::parse_size, default_value = "800MiB")]
        memory: u64,
    },
    /// Serve site/ on localhost for a quick look.
    Serve {
        /// Port on 127.0.0.1 (0 picks a free one).
        #[arg(long, default_value_t = 8000)]
        port: u16,
    },
    /// Print a completion script for a shell: `roundup completions bash >
    /// /etc/bash_completion.d/roundup`, or `source <(roundup completions bash)`.
    Completions {
        /// bash, zsh, fish, elvish or powershell.
        shell: clap_complete::Shell,
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
                    bail!("--compare {a},{b}: {}", lab::no_such("drive", id, &known));
                }
            }
            if a == b {
                bail!("--compare {a},{b}: expected two different drives");
            }
        }
        Ok(render::Options {
            compare: self.pairs.clone(),
            ..render::Options::default()
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
    /// List the slots written against other figures than their charts show now (after a
    /// re-run, say), each with where it is and a sentence drafted from the figures now.
    Stale {
        /// A page id; every page when none is named.
        page: Option<String>,
        #[command(flatten)]
        compare: CompareArgs,
    },
    /// Record that slots, re-read, hold for the figures their charts show now: their
    /// fingerprints are set to those figures and their words left as they are. Every stale
    /// slot of PAGE (of every page when none is named), or only the SLOTs named.
    Accept {
        /// A page id; every page when none is named.
        page: Option<String>,
        /// Slot ids of the page (`## SLOT` in its file).
        #[arg(requires = "page")]
        slots: Vec<String>,
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
        /// Profile name (light, heavy, gaming, or any in the lab's suites/profiles/) or a path.
        #[arg(long)]
        profile: String,
        /// Seed of the generator.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Write it here: roundup's Parquet trace for `.parquet`, else fio iolog v3.
        #[arg(long, short)]
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
        /// fio (iolog v3) or roundup (Parquet); when left out, roundup for an OUT named
        /// `.parquet`, else fio.
        #[arg(long)]
        to: Option<String>,
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
        let t = roundup::store::import_trace(file, &opts)?;
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
    let json_run = matches!(cli.command, Command::Run { json: true, .. });
    QUIET.store(cli.quiet || json_run, Ordering::Relaxed);
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
        Command::Check => check(&cli.lab),
        Command::Drives { json } => drives(&cli.lab, *json),
        Command::Serve { port } => serve(&cli.lab, *port),
        Command::Trace(t) => trace::run(t, &cli.lab),
        Command::Commentary(CommentaryCommand::Init { page, compare }) => {
            commentary::init(&cli.lab, page.as_deref(), compare)
        }
        Command::Commentary(CommentaryCommand::Stale { page, compare }) => {
            commentary::stale(&cli.lab, page.as_deref(), compare)
        }
        Command::Commentary(CommentaryCommand::Accept {
            page,
            slots,
            compare,
        }) => commentary::accept(&cli.lab, page.as_deref(), slots, compare),

        Command::Merge { dirs, prefer } => merge(&cli.lab, dirs, prefer.as_deref()),
        Command::Run {
            select,
            dry_run,
            resume,
            engine,
            shard,
            destroy_data,
            memory,
            json,
        } => run_command(
            &cli.lab,
            &select.selection(),
            *shard,
            RunOptions {
                resume: *resume,
                engine: *engine,
                destroy_data: destroy_data.clone(),
                memory: *memory,
            },
            RunReport {
                dry_run: *dry_run,
                json: *json,
            },
        ),
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
        Command::Render {
            compare,
            verbose,
            png,
        } => {
            let lab = load(&cli.lab)?;
            let opts = render::Options {
                png: *png,
                ..compare.options(&lab)?
            };
            do_render(&lab, &opts, *verbose)
        }
        Command::Demo { memory } => demo(&cli.lab, *memory),
        Command::Completions { shell } => {
            use clap::CommandFactory;
            let mut out = Vec::new();
            clap_complete::generate(*shell, &mut Cli::command(), "roundup", &mut out);
            std::io::stdout()
                .write_all(&out)
                .context("cannot write to standard output")
        }
    }
}

/// How `roundup run` reports: `--dry-run` (the plan and the preflight only), `--json`.
#[derive(Clone, Copy)]
struct RunReport {
    dry_run: bool,
    json: bool,
}

/// `roundup check`: the lab loads, every file valid, and every stored job's files are the
/// bytes its manifest hashed, in the job's own folder.
fn check(lab_dir: &Path) -> Result<()> {
    let lab = load(lab_dir)?;
    for w in lab.warnings(&[]) {
        eprintln!("warning: {w}");
    }
    let (jobs, mut problems) = roundup::store::scan(&lab.results_dir());
    let stored = jobs.len() + problems.len();
    problems.extend(jobs.iter().flat_map(|job| job.check_files()));
    if !problems.is_empty() {
        bail!(
            "{} in {} ({} stored); render and summary leave those jobs out, and `roundup \
             run --resume` runs a damaged one again:\n{}",
            Counted(problems.len(), "problem"),
            lab.results_dir().display(),
            Counted(stored, "job"),
            problems.join("\n")
        );
    }
    let results = if stored > 0 {
        format!(", {} with their files whole", Counted(stored, "stored job"))
    } else {
        String::new()
    };
    info!(
        "lab {} is valid: {}, {}, {}{results}",
        lab_dir.display(),
        Counted(lab.suites.len(), "suite"),
        Counted(lab.drives.len(), "drive"),
        Counted(lab.commentary.len(), "commentary file"),
    );
    Ok(())
}

/// `roundup serve`: the site on 127.0.0.1.
fn serve(lab_dir: &Path, port: u16) -> Result<()> {
    let site = lab_dir.join("site");
    if !site.join("index.html").is_file() {
        bail!(
            "{} has no site yet: run `roundup render` (or `roundup demo`) first",
            site.display()
        );
    }
    roundup::serve::serve(&site, port, |url| {
        say(format_args!(
            "serving {} at {url} (Ctrl-C to stop)",
            site.display()
        ));
        let _ = std::io::stdout().flush();
    })?;
    Ok(())
}

/// `roundup run`: the plan printed, then run (or, with `--dry-run`, only checked).
fn run_command(
    lab_dir: &Path,
    selection: &Selection,
    shard: Option<plan::Shard>,
    opts: RunOptions,
    report: RunReport,
) -> Result<()> {
    let lab = load(lab_dir)?;
    // A run that names drives does not go by the suites' `drives:`.
    if selection.drives.is_empty() {
        for w in lab.warnings(&selection.suites) {
            eprintln!("warning: {w}");
        }
    }
    let mut plan = plan::expand(&lab, selection)?;
    if let Some(shard) = shard {
        plan = plan.shard(shard);
        info!(
            "shard {shard}: {} of the plan",
            Counted(plan.jobs.len(), "job")
        );
    }
    print_plan(&lab, &plan, &opts, report.dry_run)?;
    if report.dry_run {
        // What would stop the run before it starts, found without writing.
        let problems = run::preflight(&lab, &plan, &opts);
        if !problems.is_empty() {
            bail!(
                "the run would stop before it starts:\n{}",
                problems.join("\n")
            );
        }
        return Ok(());
    }
    run_plan(&lab, &plan, &opts, report.json)
}

/// `roundup merge DIR...`: results folders into the lab's results/.
fn merge(lab_dir: &Path, dirs: &[PathBuf], prefer: Option<&str>) -> Result<()> {
    use roundup::store::merge::{self, Prefer};
    let lab = load(lab_dir)?;
    let results = lab.results_dir();
    let prefer = prefer.map(|p| match p {
        "newer" => Prefer::Newer,
        dir => Prefer::Dir(PathBuf::from(dir)),
    });
    if let Some(Prefer::Dir(d)) = &prefer {
        let known = dirs.iter().any(|s| s == d) || d == &results;
        if !known {
            bail!(
                "--prefer: expected newer, the lab's results folder or one of the folders to \
                 merge, found {}",
                d.display()
            );
        }
    }
    std::fs::create_dir_all(&results).with_context(|| results.display().to_string())?;
    let report = merge::merge(&results, dirs, prefer.as_ref())?;
    for job in &report.added {
        info!("added     {job}");
    }
    for job in &report.replaced {
        info!("replaced  {job}");
    }
    outln!(
        "merge: {} added, {} replaced, {} already there, {} kept as they were; results in {}",
        report.added.len(),
        report.replaced.len(),
        report.identical,
        report.kept,
        results.display()
    );
    Ok(())
}

/// `roundup demo`: the demo suite on every drive (and `demo-fill`, where the lab has it: an
/// NVMe-era drive's SLC-cache chart beside a classic drive's), then the site.
fn demo(lab_dir: &Path, memory: u64) -> Result<()> {
    let started = Instant::now();
    let lab = load(lab_dir)?;
    let mut suites = vec!["demo".to_string()];
    if lab.suites.contains_key("demo-fill") {
        suites.push("demo-fill".into());
    }
    let sel = Selection {
        suites,
        ..Default::default()
    };
    let plan = plan::expand(&lab, &sel).context("the demo needs suites/demo.yaml in the lab")?;
    // A first look keeps to a gigabyte by default: the simulated drives' states within 800
    // MiB (the rest of the process takes about 100 MB), so that the largest (a 256 GB
    // drive's map is most of that) run beside small ones, not two at once.
    let opts = RunOptions {
        memory: Some(memory),
        ..RunOptions::default()
    };
    print_plan(&lab, &plan, &opts, false)?;
    run_plan(&lab, &plan, &opts, false)?;
    do_render(&lab, &render::Options::default(), false)?;
    let index = lab.site_dir().join("index.html");
    let index = std::fs::canonicalize(&index).unwrap_or(index);
    info!(
        "demo finished in {:.1} s; open file://{}",
        started.elapsed().as_secs_f64(),
        index.display()
    );
    Ok(())
}

/// Renders the site and says what changed: every page written or removed, and the charts
/// too with `verbose` (counted otherwise: a re-run drive redraws hundreds); the stale slots
/// counted by page (named with `verbose`).
fn do_render(lab: &Lab, opts: &render::Options, verbose: bool) -> Result<()> {
    let report = render::render(lab, opts)?;
    for p in &report.problems {
        eprintln!("warning: {p}");
    }
    for s in &report.orphan_slots {
        eprintln!("warning: {s}");
    }
    // One line a page: `commentary init` drafts a slot for every chart, and one drive's
    // new figures can make hundreds stale; `commentary stale` says where each is.
    let mut stale = report.stale_slots.clone();
    stale.sort_by(|a, b| a.0.cmp(&b.0));
    for run in stale.chunk_by(|a, b| a.0 == b.0) {
        let ids = run.iter().map(|(_, s)| s.as_str()).collect::<Vec<_>>();
        let (page, many) = (&run[0].0, ids.len() > 1);
        eprintln!(
            "stale: {page}: {} written against other figures{}",
            Counted(ids.len(), "slot"),
            if verbose || !many {
                format!(": {}", ids.join(", "))
            } else {
                String::new()
            }
        );
    }
    if !stale.is_empty() {
        eprintln!(
            "stale: `roundup commentary stale` lists them with the figures now; \
             `roundup commentary accept PAGE [SLOT]...` records those you have re-read"
        );
    }
    let chart = |p: &&std::path::PathBuf| !verbose && p.starts_with("charts");
    let (charts_written, charts_removed) = (
        report.written.iter().filter(chart).count(),
        report.removed.iter().filter(chart).count(),
    );
    for w in report.written.iter().filter(|p| !chart(p)) {
        info!("wrote site/{}", w.display());
    }
    for r in report.removed.iter().filter(|p| !chart(p)) {
        info!("removed site/{} (no longer rendered)", r.display());
    }
    if charts_written + charts_removed > 0 {
        info!(
            "charts: {charts_written} drawn, {charts_removed} removed in site/charts/ \
             (`render --verbose` lists them)"
        );
    }
    info!(
        "render: {} written, {} unchanged, {} removed, in {}",
        Counted(report.written.len(), "file"),
        report.unchanged,
        report.removed.len(),
        lab.site_dir().display()
    );
    Ok(())
}
