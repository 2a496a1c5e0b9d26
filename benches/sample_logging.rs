//! Does writing the raw samples slow the engine? Runs the same job with sample logging off
//! (a sink that drops samples) and on (the store's Parquet writer), alternating, and prints
//! the IOPS of each and the ratio. The goal: logging on within 3% of logging off.
//!
//!   cargo bench --bench sample_logging -- [--target PATH] [--seconds N] [--rounds N] [--qd N]
//!
//! Without --target it sets up /dev/zram0 (1 GiB, filled with random data; root needed) and
//! resets it at the end. With `--synthetic IOPS` the target is a device in this process that
//! serves exactly that many I/Os a second in real time (one at a time, each completing on the
//! clock, no system calls): whether the logging keeps up with a drive of that speed (the goal
//! at 1,000,000 IOPS, the fastest NVMe drives' 4 KiB random reads).

use std::fs;
use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::AtomicBool;

use roundup::drive::PathTarget;
use roundup::engine::{self, Discard, EngineJob, Reporting, SampleSink};
use roundup::error::Result;
use roundup::io::EngineChoice;
use roundup::io::{Command as IoCommand, IoRequest};
use roundup::store::SampleWriter;
use roundup::target::{
    AlignedBuf, Completion, FileTarget, IoQueue, Target, TargetInfo, TargetKind,
};
use roundup::workload::{IoOptions, Length, Pattern, SampleKeep, Span, Workload};

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
    let synthetic: Option<f64> = arg(&args, "--synthetic").and_then(|s| s.parse().ok());
    let mut zram = false;
    let target = match arg(&args, "--target") {
        _ if synthetic.is_some() => PathBuf::from("synthetic"),
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
    let mut t: Box<dyn Target> = match synthetic {
        Some(iops) => Box::new(Paced::new(iops)),
        None => {
            Box::new(FileTarget::open("bench", &target, &spec, false, &[]).expect("open target"))
        }
    };
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
            engine::run(&job, t.as_mut(), &report).expect("run")
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
        match synthetic {
            Some(iops) => format!("a device in this process serving {iops:.0} IOPS"),
            None => target.display().to_string(),
        },
        m_on / m_off
    );
    drop(t);
    if zram {
        let _ = fs::write("/sys/block/zram0/reset", "1");
    }
}

/// A device in this process serving `interval_ns` per I/O, one at a time, on the real clock.
struct Paced {
    info: TargetInfo,
    interval_ns: u64,
}

impl Paced {
    fn new(iops: f64) -> Paced {
        Paced {
            info: TargetInfo {
                kind: TargetKind::Simulated,
                path: None,
                capacity: 1 << 30,
                logical_block: 512,
                physical_block: 4096,
                identity: Default::default(),
            },
            interval_ns: (1e9 / iops).round().max(1.0) as u64,
        }
    }
}

impl Target for Paced {
    fn info(&self) -> &TargetInfo {
        &self.info
    }
    fn needs_data(&self) -> bool {
        false
    }
    fn trim(&mut self, _offset: u64, _len: u64) -> Result<()> {
        Ok(())
    }
    fn queues(
        &mut self,
        _threads: u32,
        _depth: u32,
        _engine: EngineChoice,
        _io: &IoOptions,
    ) -> Result<Vec<Box<dyn IoQueue + Send + '_>>> {
        Ok(vec![Box::new(PacedQueue {
            origin: std::time::Instant::now(),
            interval_ns: self.interval_ns,
            free_at: 0,
            pending: std::collections::VecDeque::new(),
        })])
    }
}

/// The paced device's queue: each I/O completes `interval_ns` after the one before (or
/// after its submit, if the device was idle).
struct PacedQueue {
    origin: std::time::Instant,
    interval_ns: u64,
    free_at: u64,
    pending: std::collections::VecDeque<(u64, u32, AlignedBuf)>,
}

impl PacedQueue {
    /// Moves every completion due by now to `out`; how many.
    fn due(&mut self, out: &mut Vec<Completion>) -> usize {
        let now = self.now();
        let mut n = 0;
        while self.pending.front().is_some_and(|p| p.0 <= now) {
            let (done_ns, slot, buf) = self.pending.pop_front().expect("a pending I/O");
            out.push(Completion {
                slot,
                buf,
                done_ns,
                error: None,
            });
            n += 1;
        }
        n
    }
}

impl IoQueue for PacedQueue {
    fn now(&self) -> u64 {
        self.origin.elapsed().as_nanos() as u64
    }
    fn engine(&self) -> &'static str {
        "paced"
    }
    fn submit(&mut self, slot: u32, _req: IoRequest, buf: AlignedBuf) -> Result<()> {
        let done = self.now().max(self.free_at) + self.interval_ns;
        self.free_at = done;
        self.pending.push_back((done, slot, buf));
        Ok(())
    }
    fn reap(&mut self, out: &mut Vec<Completion>) -> Result<()> {
        while self.due(out) == 0 {
            std::hint::spin_loop();
        }
        Ok(())
    }
    fn wait_until(&mut self, until: u64, out: &mut Vec<Completion>) -> Result<()> {
        while self.now() < until && self.due(out) == 0 {
            std::hint::spin_loop();
        }
        Ok(())
    }
    fn command(&mut self, _cmd: IoCommand) -> Result<()> {
        Ok(())
    }
}
