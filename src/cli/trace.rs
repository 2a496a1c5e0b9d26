//! `roundup trace`: statistics of a trace, and its export to fio or Parquet.

use std::io::Write as _;
use std::path::Path;

use anyhow::{bail, Result};
use roundup::store;
use roundup::units::figure;

use super::TraceCommand;

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

/// Whether `out` is named as a Parquet file: roundup's own trace format is written there.
fn is_parquet(out: &Path) -> bool {
    out.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("parquet"))
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
    // On standard error, so that statistics (JSON too) are all that standard output holds.
    if !super::quiet() {
        eprintln!("wrote {} requests to {}", t.requests.len(), out.display());
    }
    Ok(())
}

/// Runs a `roundup trace` command.
pub(super) fn run(cmd: &TraceCommand, lab: &Path) -> Result<()> {
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
            // A file named on the command line is where the shell is; a name, the lab's.
            let root = if Path::new(profile).is_file() {
                Path::new(".")
            } else {
                lab
            };
            let p = roundup::trace::load_profile(root, profile)?;
            let t = roundup::trace::generate(&p, *seed);
            if let Some(out) = out {
                write_trace(&t, out, is_parquet(out), device)?;
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
            let to_roundup = match to.as_deref() {
                None => is_parquet(out),
                Some("roundup") => true,
                Some("fio") => false,
                Some(other) => bail!("--to: expected fio or roundup, found {other:?}"),
            };
            let t = import.load(file)?;
            write_trace(&t, out, to_roundup, device)
        }
    }
}
