//! Does writing the raw samples slow the engine? Runs the same job with sample logging off
//! (a sink that drops samples) and on (the store's Parquet writer), alternating, and prints
//! the IOPS of each and the ratio. The goal: logging on within 3% of logging off.
//!
//!   cargo bench --bench sample_logging -- [--target PATH] [--seconds N] [--rounds N] [--qd N]
//!
//! Without --target it sets up /dev/zram0 (1 GiB, filled with random data; root needed) and
//! resets it at the end.

use std::fs;
use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::AtomicBool;

use roundup::drive::PathTarget;
use roundup::engine::{self, Discard, EngineJob, Reporting, SampleSink};
use roundup::io::EngineChoice;
use roundup::store::SampleWriter;
use roundup::target::{FileTarget, Target};
use roundup::workload::{Length, Pattern, SampleKeep, Span, Workload};

/// Each engine loop's sample sink.
type Sink<'a> = dyn Fn(u32) -> Box<dyn SampleSink + Send + 'a> + Sync + 'a;

fn arg(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let seconds: u64 = arg(&args, "--seconds")
        .and_then(|s| s.parse().ok())
        .unwrap_or(5);
    let rounds: usize = arg(&args, "--rounds")
        .and_then(|s| s.parse().ok())
        .unwrap_or(5);
    let qd: u32 = arg(&args, "--qd")
        .and_then(|s| s.parse().ok())
        .unwrap_or(32);
    let mut zram = false;
    let target = match arg(&args, "--target") {
        Some(t) => PathBuf::from(t),
        None => {
            let size = fs::read_to_string("/sys/block/zram0/disksize").unwrap_or_default();
            if size.trim() != "0" {
                eprintln!("skipped: /dev/zram0 is missing or in use; pass --target PATH");
                return;
            }
            fs::write("/sys/block/zram0/disksize", (1u64 << 30).to_string())
                .expect("set zram size (root needed)");
            zram = true;
            let ok = Command::new("dd")
                .args([
                    "if=/dev/urandom",
                    "of=/dev/zram0",
                    "bs=1M",
                    "count=1024",
                    "oflag=direct",
                ])
                .output()
                .is_ok_and(|o| o.status.success());
            assert!(ok, "filling zram failed");
            PathBuf::from("/dev/zram0")
        }
    };
    let spec = PathTarget {
        path: target.clone(),
        size: None,
        overwrite: false,
        destroy_data: None,
        engine: None,
        bench: None,
    };
    let mut t = FileTarget::open("bench", &target, &spec, false, &[]).expect("open target");
    let span = t.info().capacity.min(1 << 30);
    let w = Workload::simple(
        100,
        Pattern::Random,
        4096,
        Span::Bytes(span),
        qd,
        Length::Duration(seconds * 1_000_000_000),
    );
    let stop = AtomicBool::new(false);
    let out_dir = tempfile::tempdir().expect("temp dir");
    let (mut off, mut on) = (Vec::new(), Vec::new());
    for r in 0..rounds {
        let job = EngineJob {
            workload: &w,
            span,
            seed: r as u64,
            engine: EngineChoice::Auto,
            trace: None,
        };
        let mut run = |sink: &Sink| {
            let report = Reporting {
                sink,
                progress: &|_| {},
                stop: &stop,
            };
            engine::run(&job, &mut t, &report).expect("run")
        };
        let o = run(&|_| Box::new(Discard)).outcome;
        off.push(o.ios as f64 / (o.measured_ns as f64 / 1e9));
        let writer = SampleWriter::create(
            &out_dir.path().join(r.to_string()),
            "bench",
            true,
            SampleKeep::Raw,
        )
        .expect("writer");
        let ran = run(&|t| Box::new(writer.sink(t)));
        let (o, engine_used) = (ran.outcome, ran.engine);
        writer.finish().expect("finish");
        on.push(o.ios as f64 / (o.measured_ns as f64 / 1e9));
        println!(
            "round {}: logging off {:.0} IOPS, on {:.0} IOPS ({engine_used})",
            r + 1,
            off[r],
            on[r]
        );
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(|a, b| a.partial_cmp(b).unwrap());
        v[v.len() / 2]
    };
    let (m_off, m_on) = (median(&mut off), median(&mut on));
    println!(
        "4 KiB random read QD{qd} on {}: logging off {m_off:.0} IOPS, on {m_on:.0} IOPS: on/off = {:.3} (goal ≥ 0.97)",
        target.display(),
        m_on / m_off
    );
    drop(t);
    if zram {
        let _ = fs::write("/sys/block/zram0/reset", "1");
    }
}
