//! The commands that print tables: `roundup summary` and `roundup drives`.

use std::io::Write as _;
use std::path::Path;

use anyhow::{bail, Result};
use roundup::analysis::JobSummary;
use roundup::drive::TargetSpec;
use roundup::store::JobManifest;
use roundup::target::device;
use roundup::units::figure;
use roundup::{analysis, render, store};

use super::{load, Select};

/// How `roundup summary` prints.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum SummaryFormat {
    Table,
    Json,
    Csv,
    Markdown,
}

/// `roundup summary`: the figures of every stored job the selection keeps.
pub(super) fn summary(lab_dir: &Path, select: &Select, format: SummaryFormat) -> Result<()> {
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
    let rows: Vec<&JobSummary> = rows.iter().map(|(_, s)| s).collect();
    match format {
        SummaryFormat::Json => outln!("{}", serde_json::to_string_pretty(&rows)?),
        SummaryFormat::Csv => print_csv(&rows)?,
        _ if rows.is_empty() => outln!("no results in {}", lab_dir.join("results").display()),
        SummaryFormat::Markdown => print_markdown(&summary_table(&rows))?,
        SummaryFormat::Table => print_aligned(&summary_table(&rows))?,
    }
    Ok(())
}

/// The summary at full precision, as CSV for a spreadsheet.
fn print_csv(rows: &[&JobSummary]) -> Result<()> {
    outln!("drive,firmware,suite,test,variant,repeat,iops,mb_per_s,lat_mean_us,lat_p50_us,lat_p99_us,lat_p999_us,lat_p9999_us,lat_p999999_us,lat_max_us,ios");
    for s in rows {
        let text = [&s.drive, &s.firmware, &s.suite, &s.test, &s.variant]
            .map(|t| render::csv_field(t))
            .join(",");
        // A percentile the job has too few I/Os for is an empty cell.
        let figures = [
            Some(s.iops),
            Some(s.mb_per_s),
            Some(s.lat_mean_us),
            Some(s.lat_p50_us),
            Some(s.lat_p99_us),
            Some(s.lat_p999_us),
            s.lat_p9999_us,
            s.lat_p999999_us,
            Some(s.lat_max_us),
        ]
        .map(|v| v.map(|v| v.to_string()).unwrap_or_default())
        .join(",");
        outln!("{text},{},{figures},{}", s.repeat, s.ios);
    }
    Ok(())
}

/// The first five columns of the summary are text, aligned left; the figures after them
/// right.
const TEXT: usize = 5;

const HEADER: [&str; 16] = [
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
    "p99.99 µs",
    "p99.9999 µs",
    "max µs",
    "I/Os",
];

/// The summary's cells, figures as the site shows them.
fn summary_table(rows: &[&JobSummary]) -> Vec<Vec<String>> {
    rows.iter()
        .map(|s| {
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
                s.lat_p9999_us.map_or("–".into(), figure),
                s.lat_p999999_us.map_or("–".into(), figure),
                figure(s.lat_max_us),
                s.ios.to_string(),
            ]
        })
        .collect()
}

/// The summary as a Markdown table: text columns aligned left, figures right; a `|` in a
/// name is escaped.
fn print_markdown(table: &[Vec<String>]) -> Result<()> {
    let cells = |r: Vec<&str>| {
        let r: Vec<String> = r.iter().map(|c| c.replace('|', "\\|")).collect();
        format!("| {} |", r.join(" | "))
    };
    outln!("{}", cells(HEADER.to_vec()));
    let rule: Vec<&str> = (0..HEADER.len())
        .map(|c| if c < TEXT { "---" } else { "---:" })
        .collect();
    outln!("|{}|", rule.join("|"));
    for r in table {
        outln!("{}", cells(r.iter().map(|s| s.as_str()).collect()));
    }
    Ok(())
}

/// The summary as a table in columns as wide as their longest entry.
fn print_aligned(table: &[Vec<String>]) -> Result<()> {
    let widths: Vec<usize> = (0..HEADER.len())
        .map(|c| {
            table
                .iter()
                .map(|r| r[c].chars().count())
                .chain([HEADER[c].chars().count()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: Vec<&str>| {
        cells
            .iter()
            .enumerate()
            .map(|(c, v)| {
                if c < TEXT {
                    format!("{v:<w$}", w = widths[c])
                } else {
                    format!("{v:>w$}", w = widths[c])
                }
            })
            .collect::<Vec<_>>()
            .join("  ")
    };
    outln!("{}", line(HEADER.to_vec()));
    for r in table {
        outln!("{}", line(r.iter().map(|s| s.as_str()).collect()));
    }
    Ok(())
}

/// `roundup drives`: the lab's drives, then the block devices the kernel reports.
pub(super) fn drives(lab_dir: &Path, json: bool) -> Result<()> {
    let lab = load(lab_dir)?;
    if json {
        return drives_json(&lab);
    }
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
                TargetSpec::Path(p) => match &p.bench {
                    Some(b) => format!("{} on bench {b}", p.path.display()),
                    None => p.path.display().to_string(),
                },
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
    // Each bench once: does its fio server answer, and which fio is it?
    let benches: std::collections::BTreeSet<&roundup::drive::Bench> = lab
        .drives
        .values()
        .filter_map(|d| match &d.spec.target {
            TargetSpec::Path(p) => p.bench.as_ref(),
            _ => None,
        })
        .collect();
    if !benches.is_empty() {
        outln!("benches:");
    }
    for b in benches {
        match roundup::target::fio::bench_version(b) {
            Ok(v) => outln!("  {b:<24} answers, {}", v.text),
            Err(e) => outln!("  {b:<24} does not answer: {e}"),
        }
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

/// `roundup drives --json`: the same three lists as objects.
fn drives_json(lab: &roundup::lab::Lab) -> Result<()> {
    let mut benches = std::collections::BTreeSet::new();
    let drives: Vec<serde_json::Value> = lab
        .drives
        .iter()
        .map(|(id, d)| {
            let s = &d.spec;
            let (kind, path, bench) = match &s.target {
                TargetSpec::Sim(_) => ("simulated", None, None),
                TargetSpec::Ssd(_) => ("simulated SSD", None, None),
                TargetSpec::Hdd(_) => ("simulated hard disk", None, None),
                TargetSpec::Path(p) => {
                    if let Some(b) = &p.bench {
                        benches.insert(b.clone());
                    }
                    (
                        "file or block device",
                        Some(p.path.display().to_string()),
                        p.bench.as_ref().map(|b| b.to_string()),
                    )
                }
            };
            serde_json::json!({
                "id": id,
                "name": s.display_name(),
                "firmware": s.firmware,
                "target": kind,
                "path": path,
                "bench": bench,
                "file": d.file.display().to_string(),
            })
        })
        .collect();
    let benches: Vec<serde_json::Value> = benches
        .iter()
        .map(|b| match roundup::target::fio::bench_version(b) {
            Ok(v) => serde_json::json!({"bench": b.to_string(), "answers": true, "fio": v.text}),
            Err(e) => serde_json::json!({"bench": b.to_string(), "answers": false, "error": e.to_string()}),
        })
        .collect();
    let out = serde_json::json!({
        "drives": drives,
        "benches": benches,
        "block_devices": device::inventory(),
    });
    println!("{}", serde_json::to_string_pretty(&out)?);
    Ok(())
}
