//! The real traces in shared/traces import with the counts their files hold, export and
//! read back, and malformed input is reported by line.

mod common;

use std::io::Read;
use std::path::{Path, PathBuf};

use common::{fio_log, read_parquet, stderr, stdout, written_flushed_half_trimmed, TestLab};
use roundup::store::import_trace;
use roundup::trace::{stats, Format, ImportOptions, TraceOp};

fn shared(name: &str) -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/traces")
        .join(name);
    if p.exists() {
        Some(p)
    } else {
        eprintln!(
            "skipped: {} is not here (shared/ lies beside the repository)",
            p.display()
        );
        None
    }
}

fn text(p: &Path) -> String {
    let bytes = std::fs::read(p).unwrap();
    if bytes.starts_with(&[0x1f, 0x8b]) {
        let mut s = String::new();
        flate2::read::MultiGzDecoder::new(bytes.as_slice())
            .read_to_string(&mut s)
            .unwrap();
        s
    } else {
        String::from_utf8(bytes).unwrap()
    }
}

#[test]
fn mqsim_traces_import_with_their_counts() {
    for name in ["mqsim-tpcc-small.trace", "mqsim-wsrch-small.trace"] {
        let Some(p) = shared(name) else { return };
        let raw = text(&p);
        let lines: Vec<Vec<&str>> = raw
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| l.split_whitespace().collect())
            .collect();
        let reads = lines.iter().filter(|f| f[4] == "1").count();
        let t = import_trace(&p, &ImportOptions::default()).unwrap();
        assert_eq!(t.format, Format::Mqsim, "{name}");
        assert_eq!(t.requests.len(), lines.len(), "{name}");
        assert_eq!(
            t.requests.iter().filter(|r| r.op == TraceOp::Read).count(),
            reads,
            "{name}"
        );
        let bytes: u64 = lines
            .iter()
            .map(|f| f[3].parse::<u64>().unwrap() * 512)
            .sum();
        assert_eq!(t.requests.iter().map(|r| r.len as u64).sum::<u64>(), bytes);
        let first: u64 = lines[0][0].parse().unwrap();
        let last: u64 = lines[lines.len() - 1][0].parse().unwrap();
        assert_eq!(
            t.requests.last().unwrap().time_ns,
            last - first,
            "times in ns from the first request"
        );
    }
}

#[test]
fn blkreplay_traces_import_with_their_counts() {
    for name in ["windows-shared-server.load.gz", "windows-mssql.load.gz"] {
        let Some(p) = shared(name) else { return };
        let raw = text(&p);
        let data: Vec<Vec<&str>> = raw
            .lines()
            .map(str::trim)
            .filter(|l| l.contains(';') && !l.starts_with("start"))
            .map(|l| l.split(';').map(str::trim).collect())
            .collect();
        let t = import_trace(&p, &ImportOptions::default()).unwrap();
        assert_eq!(t.format, Format::Blkreplay);
        assert_eq!(t.requests.len(), data.len(), "{name}");
        let writes = data.iter().filter(|f| f[3] == "W").count();
        assert_eq!(
            t.requests.iter().filter(|r| r.op == TraceOp::Write).count(),
            writes,
            "{name}"
        );
        let s = stats(&t);
        assert_eq!(s.reads + s.writes, data.len() as u64);
    }
}

#[test]
fn exports_read_back_the_same_requests() {
    let Some(p) = shared("windows-mssql.load.gz") else {
        return;
    };
    let t = import_trace(&p, &ImportOptions::default()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let pq = dir.path().join("mssql.parquet");
    roundup::store::write_trace(&t, &pq).unwrap();
    let back = import_trace(&pq, &ImportOptions::default()).unwrap();
    assert_eq!(back.format, Format::Roundup);
    assert_eq!(back.requests, t.requests);
    // fio iolog v3 keeps microseconds: same requests, times truncated to the microsecond.
    let fio = dir.path().join("mssql.iolog");
    std::fs::write(&fio, t.to_fio_iolog("/dev/sdX")).unwrap();
    let back = import_trace(&fio, &ImportOptions::default()).unwrap();
    assert_eq!(back.format, Format::Fio3);
    assert_eq!(back.requests.len(), t.requests.len());
    for (a, b) in back.requests.iter().zip(&t.requests) {
        assert_eq!((a.op, a.offset, a.len), (b.op, b.offset, b.len));
        assert!(b.time_ns - a.time_ns < 1_000 + 1);
    }
}

/// A trace recorded on several devices keeps their layout through roundup's Parquet file
/// (until 2026-12-06 `trace convert` dropped it: the converted MQSim traces' statistics
/// lost their "devices" line, and a replay's manifest would have too).
#[test]
fn a_parquet_trace_keeps_the_layout_of_several_devices() {
    let dir = tempfile::tempdir().unwrap();
    let text = dir.path().join("two.trace");
    std::fs::write(
        &text,
        "0.0 0 0 8 1\n0.5 1 0 8 0\n1.0 0 16 8 1\n2.0 1 2048 8 1\n",
    )
    .unwrap();
    let t = import_trace(&text, &ImportOptions::default()).unwrap();
    assert_eq!(t.devices.len(), 2, "{:?}", t.devices);
    let pq = dir.path().join("two.parquet");
    roundup::store::write_trace(&t, &pq).unwrap();
    let back = import_trace(&pq, &ImportOptions::default()).unwrap();
    assert_eq!(back.devices, t.devices);
    assert_eq!(back.requests, t.requests);
    assert_eq!(stats(&back).devices, stats(&t).devices);
    // One device: no layout is written, none read back.
    let one = dir.path().join("one.trace");
    std::fs::write(&one, "0.0 0 0 8 1\n1.0 0 16 8 1\n").unwrap();
    let t = import_trace(&one, &ImportOptions::default()).unwrap();
    roundup::store::write_trace(&t, &pq).unwrap();
    assert!(import_trace(&pq, &ImportOptions::default())
        .unwrap()
        .devices
        .is_empty());
}

#[test]
fn a_parquet_trace_is_checked_as_a_text_trace_is() {
    // Written by another tool: a read of no bytes (which a simulated drive would wait on
    // for ever), a request past 2^64 bytes, times out of order: each refused at its row.
    let dir = tempfile::tempdir().unwrap();
    let request = |time_ns, offset, len| roundup::trace::TraceRequest {
        time_ns,
        op: TraceOp::Read,
        offset,
        len,
        complete_ns: None,
        qd: None,
        process: None,
    };
    for (requests, expected) in [
        (
            vec![request(0, 0, 4096), request(1, 4096, 0)],
            "row 1: expected a request size above zero, found 0",
        ),
        (
            vec![request(0, u64::MAX - 100, 4096)],
            "row 0: expected a request that ends below 2^64 bytes",
        ),
        (
            vec![request(5, 0, 4096), request(1, 0, 4096)],
            "row 1: time goes backwards",
        ),
    ] {
        let t = roundup::trace::Trace {
            requests,
            format: Format::Roundup,
            skipped: 0,
            devices: Vec::new(),
        };
        let p = dir.path().join("t.parquet");
        roundup::store::write_trace(&t, &p).unwrap();
        let e = import_trace(&p, &ImportOptions::default())
            .unwrap_err()
            .to_string();
        assert!(e.contains(expected), "{e}");
    }
    // `trace convert` writes Parquet where the output is named so, unless told otherwise.
    let lab = TestLab::new();
    lab.write(
        "t.log",
        &fio_log([(0, "read", 0, 4096), (1, "write", 8192, 4096)]),
    );
    for (out, args, parquet) in [
        ("t.parquet", &[][..], true),
        ("t.iolog", &[][..], false),
        ("u.parquet", &["--to", "fio"][..], false),
    ] {
        let (input, output) = (lab.path().join("t.log"), lab.path().join(out));
        let mut cmd = vec![
            "trace",
            "convert",
            input.to_str().unwrap(),
            output.to_str().unwrap(),
        ];
        cmd.extend_from_slice(args);
        let o = lab.roundup(&cmd);
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(
            stderr(&o),
            format!("wrote 2 requests to {}\n", output.display())
        );
        let bytes = std::fs::read(&output).unwrap();
        assert_eq!(bytes.starts_with(b"PAR1"), parquet, "{out} {args:?}");
        // `--quiet` leaves out the list of files written.
        cmd.push("-q");
        let o = lab.roundup(&cmd);
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!((stdout(&o), stderr(&o)), (String::new(), String::new()));
    }
}

#[test]
fn trace_commands_and_their_errors() {
    let lab = TestLab::new();
    lab.write(
        "t.trace",
        "0.0 0 1 8 1\n0.5 0 9 16 0\n1.0 0 2 x 1\n1.5 0 3 8 1\n",
    );
    let path = lab.path().join("t.trace");
    let p = path.to_str().unwrap();
    let out = lab.roundup(&["trace", "stats", p]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains(&format!(
            "{p}:3:9: expected a whole number for the size in sectors, found \"x\""
        )),
        "{}",
        stderr(&out)
    );
    // Converting a trace onto itself would lose it.
    let before = std::fs::read(&path).unwrap();
    let out = lab.roundup(&["trace", "convert", p, p, "--skip-bad"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("the output is the trace being converted; give another path"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read(&path).unwrap(), before);
    // A file that is not there: its path and the system's reason, once.
    let missing = lab.path().join("nothing.trace");
    let out = lab.roundup(&["trace", "stats", missing.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out).trim_end(),
        format!(
            "error: {}: No such file or directory (os error 2)",
            missing.display()
        )
    );
    let out = lab.roundup(&["trace", "stats", p, "--skip-bad", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("1 malformed lines skipped"));
    let s: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (
            s["requests"].as_u64(),
            s["reads"].as_u64(),
            s["writes"].as_u64()
        ),
        (Some(3), Some(2), Some(1))
    );
    assert_eq!(s["format"], "disksim");
    for key in [
        "sizes",
        "sequential_percent",
        "average_qd",
        "footprint_bytes",
        "duration_s",
    ] {
        assert!(s.get(key).is_some(), "{key}");
    }
    let out = lab.roundup(&["trace", "stats", p, "--format", "msr"]);
    assert!(
        stderr(&out).contains(":1: expected 7 fields"),
        "{}",
        stderr(&out)
    );
    let out = lab.roundup(&["trace", "stats", p, "--format", "cobol"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("unknown trace format \"cobol\""),
        "{}",
        stderr(&out)
    );
    let iolog = lab.path().join("t.iolog");
    let out = lab.roundup(&[
        "trace",
        "convert",
        p,
        iolog.to_str().unwrap(),
        "--skip-bad",
        "--device",
        "/dev/sdb",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("wrote 3 requests"));
    let text = std::fs::read_to_string(&iolog).unwrap();
    assert!(
        text.starts_with(
            "fio version 3 iolog\n0 /dev/sdb add\n0 /dev/sdb open\n0 /dev/sdb read 512 4096\n"
        ),
        "{text}"
    );
}

fn replay_suite(trace: &Path, extra: &str) -> String {
    format!("name: r\ntitle: Replay\ntests:\n  - {{id: play, title: Playback, kind: replay, trace: {}, queue_depth: 4, span: full, metric: iops{extra}}}\n", trace.display())
}

fn manifest(lab: &TestLab, drive: &str, fw: &str) -> serde_json::Value {
    let p = lab.path().join(format!(
        "results/drive={drive}/firmware={fw}/suite=r/test=play/variant=base/repeat=1/manifest.json"
    ));
    serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap()
}

/// One sample of a replay job.
struct Played {
    read: bool,
    offset: u64,
    submit_ns: u64,
    latency_ns: u64,
}

/// The samples of the replay job of `drive`.
fn replay_samples(lab: &TestLab, drive: &str, fw: &str) -> Vec<Played> {
    let df = read_parquet(&lab.path().join(format!(
        "results/drive={drive}/firmware={fw}/suite=r/test=play/variant=base/repeat=1/samples.parquet"
    )));
    let ops = df
        .column("op")
        .unwrap()
        .cast(&polars::prelude::DataType::String)
        .unwrap();
    let ops = ops.str().unwrap();
    let u64s = |name: &str| df.column(name).unwrap().u64().unwrap().clone();
    let (offsets, submits, lats) = (u64s("offset"), u64s("submit_ns"), u64s("latency_ns"));
    (0..df.height())
        .map(|i| Played {
            read: ops.get(i) == Some("read"),
            offset: offsets.get(i).unwrap(),
            submit_ns: submits.get(i).unwrap(),
            latency_ns: lats.get(i).unwrap(),
        })
        .collect()
}

#[test]
fn replays_a_real_trace_on_a_simulated_drive_and_a_file() {
    let Some(p) = shared("mqsim-tpcc-small.trace") else {
        return;
    };
    let lab = TestLab::new();
    lab.write("suites/r.yaml", &replay_suite(&p, ""));
    lab.sim_drive("sim-a", "Alpha", "A1", 8);
    lab.file_drive("scratch", "32MiB");
    let out = lab.roundup(&["run"]);
    assert!(out.status.success(), "{}", stderr(&out));
    for (drive, fw) in [("sim-a", "A1"), ("scratch", "unknown")] {
        let m = manifest(&lab, drive, fw);
        let r = &m["outcome"]["replay"];
        assert_eq!(r["issued"], 6999, "{drive}: {r}");
        assert_eq!(m["samples_rows"], 6999);
        // Reads and writes: the analysis reads the `op` column of such a job.
        let writes = m["samples_writes"].as_u64().unwrap();
        assert!(writes > 0 && writes < 6999, "{writes}");
        // The trace reaches 232 GB; both targets are smaller, so offsets were remapped.
        assert!(r["remapped"].as_u64().unwrap() > 6000, "{r}");
        // No depth recorded in the trace: the playback ran at up to the test's QD4.
        let qd = r["average_qd"].as_f64().unwrap();
        assert!(qd > 1.0 && qd <= 4.0, "{qd}");
    }
    let out = lab.roundup(&["summary", "--json"]);
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rows.len(), 2);
    assert!(rows.iter().all(|r| r["iops"].as_f64().unwrap() > 0.0));
}

#[test]
fn replays_trims_and_flushes_on_simulated_drives_and_a_file() {
    // 1 MiB written, a flush, the first half trimmed, then every 4 KiB read back.
    let log = fio_log(
        written_flushed_half_trimmed().chain((0..256).map(|i| (2, "read", i * 4096, 4096))),
    );
    let lab = TestLab::new();
    lab.write("traces/t.log", &log);
    lab.write(
        "suites/r.yaml",
        &replay_suite(Path::new("traces/t.log"), ""),
    );
    lab.write(
        "drives/ssd.yaml",
        "id: ssd\nvendor: Acme\nmodel: Small\ncapacity: 256MiB\nfirmware: \"1\"\nssd:\n  link_rate: 280MB/s\n  command_overhead: 10us\n  channels: 2\n  dies_per_channel: 2\n  channel_rate: 40MB/s\n  page: 4KiB\n  pages_per_block: 32\n  read: 50us\n  program: 900us\n  erase: 3500us\n  raw_capacity: 288MiB\n  buffer: 256KiB\n  ftl: page\n  remap: true\n",
    );
    lab.repo_drive("samsung-spinpoint-f1-1tb");
    let file = lab.file_drive("scratch", "32MiB");
    let out = lab.roundup(&["run"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        stdout(&out).matches("  1 trim, 1 flush\n").count(),
        3,
        "{}",
        stdout(&out)
    );
    for (drive, fw) in [
        ("ssd", "1"),
        ("samsung-spinpoint-f1-1tb", "1AA01113"),
        ("scratch", "unknown"),
    ] {
        let r = &manifest(&lab, drive, fw)["outcome"]["replay"];
        assert_eq!(
            (&r["issued"], &r["trims"], &r["flushes"]),
            (&512.into(), &1.into(), &1.into()),
            "{drive}: {r}"
        );
    }
    // The trace file is recorded with its hash, and a changed trace is played again.
    let m = manifest(&lab, "ssd", "1");
    assert_eq!(m["trace_file"]["path"], "traces/t.log");
    assert_eq!(
        m["trace_file"]["sha256"].as_str().unwrap(),
        roundup::config::sha256_file(&lab.path().join("traces/t.log")).unwrap()
    );
    let out = lab.roundup(&["run", "--resume", "--drive", "ssd"]);
    assert!(
        stdout(&out).contains("0 jobs completed, 1 kept"),
        "{}",
        stdout(&out)
    );
    lab.write("traces/t.log", &format!("{log}2000 t read 0 4096\n"));
    let out = lab.roundup(&["run", "--resume", "--drive", "ssd"]);
    assert!(
        stdout(&out).contains("1 job completed, 0 kept"),
        "{}",
        stdout(&out)
    );
    lab.write("traces/t.log", &log);
    let out = lab.roundup(&["run", "--drive", "ssd"]);
    assert!(out.status.success(), "{}", stderr(&out));
    // The simulated SSD reads a trimmed page without touching its NAND.
    let samples = replay_samples(&lab, "ssd", "1");
    let (mut trimmed, mut kept) = (Vec::new(), Vec::new());
    for s in samples.iter().filter(|s| s.read) {
        if s.offset < 524288 {
            trimmed.push(s.latency_ns as f64);
        } else {
            kept.push(s.latency_ns as f64);
        }
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    assert_eq!((trimmed.len(), kept.len()), (128, 128));
    assert!(
        mean(&trimmed) * 2.0 < mean(&kept),
        "reads of trimmed pages {:.0} ns, of written ones {:.0} ns",
        mean(&trimmed),
        mean(&kept)
    );
    // The simulated disk writes its cache out at the flush: the reads start only then.
    let samples = replay_samples(&lab, "samsung-spinpoint-f1-1tb", "1AA01113");
    let written = samples
        .iter()
        .filter(|s| !s.read)
        .map(|s| s.submit_ns + s.latency_ns)
        .max();
    let first_read = samples.iter().filter(|s| s.read).map(|s| s.submit_ns).min();
    let gap = first_read.unwrap() - written.unwrap();
    assert!(gap > 5_000_000, "the flush took {gap} ns");
    // The file's trimmed half is a hole again: its first data lies after it.
    use std::os::fd::AsRawFd;
    let f = std::fs::File::open(&file).unwrap();
    // SAFETY: lseek on an open descriptor.
    let data = unsafe { libc::lseek(f.as_raw_fd(), 0, libc::SEEK_DATA) };
    assert_eq!(data, 524288, "the first data of the file");
}

#[test]
fn the_simulated_disk_reaches_a_far_read_while_near_ones_keep_coming() {
    // 2,000 reads in the disk's first 64 MiB keep its queue full; the sixth read of the trace
    // lies near its end. An elevator reaches it at the end of its sweep; nearest-first
    // would leave it waiting until every near read was done.
    let mut x: u64 = 2009;
    let log = fio_log((0..2000u64).map(|i| {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let offset = if i == 5 {
            900_000_000_000 / 4096 * 4096
        } else {
            (x >> 33) % (64 << 20) / 4096 * 4096
        };
        (0, "read", offset, 4096)
    }));
    let lab = TestLab::new();
    lab.write("traces/t.log", &log);
    lab.write(
        "suites/r.yaml",
        &replay_suite(Path::new("traces/t.log"), ""),
    );
    let disk = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("drives/samsung-spinpoint-f1-1tb.yaml"),
    )
    .unwrap();
    lab.write("drives/samsung-spinpoint-f1-1tb.yaml", &disk);
    let out = lab.roundup(&["run"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let samples = replay_samples(&lab, "samsung-spinpoint-f1-1tb", "1AA01113");
    let far = samples.iter().find(|s| s.offset > 1 << 30).unwrap();
    let end = samples
        .iter()
        .map(|s| s.submit_ns + s.latency_ns)
        .max()
        .unwrap();
    assert!(end > 5_000_000_000, "the near reads took {end} ns");
    assert!(
        far.latency_ns < 500_000_000,
        "the far read waited {} ms of the {} ms the near ones took",
        far.latency_ns / 1_000_000,
        end / 1_000_000
    );
}

#[test]
fn a_timed_trim_waits_for_the_queue_to_drain_and_its_lateness_is_recorded() {
    // Eight 128 KiB writes due at once, a trim due 1 ms later, a read due at 1 s.
    let log = fio_log(
        (0..8)
            .map(|i| (0, "write", i * 131072, 131072))
            .chain([(1, "trim", 0, 1048576), (1000, "read", 0, 4096)]),
    );
    let lab = TestLab::new();
    lab.write("traces/t.log", &log);
    lab.write(
        "suites/r.yaml",
        &replay_suite(Path::new("traces/t.log"), ", mode: timed, time_scale: 1"),
    );
    // One unit: a write of 128 KiB is 32 stripes of 200 µs plus 102 µs at 40 MB/s, 9.7 ms,
    // and the eight take 78 ms, the last four issued as the first four complete (the
    // last 39 ms late), so the trim is reached with four writes in flight.
    lab.sim_drive("slow", "Slow", "1", 1);
    let out = lab.roundup(&["run"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let m = manifest(&lab, "slow", "1");
    let r = &m["outcome"]["replay"];
    assert_eq!((&r["issued"], &r["trims"]), (&9.into(), &1.into()), "{r}");
    // The trim goes once the writes are done, 77 ms after its time: the latest issue (not
    // held until the read's deadline, which would leave the writes' 39 ms the latest).
    let lag = r["lag_max_us"].as_f64().unwrap();
    assert!((70_000.0..85_000.0).contains(&lag), "{lag} µs");
    let end_s = m["outcome"]["end_ns"].as_f64().unwrap() / 1e9;
    assert!((1.0..1.01).contains(&end_s), "{end_s} s");

    // A trim of less than a block is dropped; the read after it still waits for its time.
    lab.write(
        "traces/t.log",
        "fio version 3 iolog\n0 t add\n0 t read 0 4096\n10000 t trim 0 100\n500000 t read 4096 4096\n",
    );
    let out = lab.roundup(&["run"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let reads = replay_samples(&lab, "slow", "1");
    assert_eq!(reads.len(), 2);
    assert!(
        reads[1].submit_ns >= 500_000_000,
        "{} ns",
        reads[1].submit_ns
    );
}

#[test]
fn timed_replay_records_lag_and_aligns_for_large_blocks() {
    let Some(p) = shared("windows-shared-server.load.gz") else {
        return;
    };
    let lab = TestLab::new();
    // An hour of recording, played 1000 times faster.
    lab.write(
        "suites/r.yaml",
        &replay_suite(&p, ", mode: timed, time_scale: 1000"),
    );
    lab.sim_drive_with_block("sim-4k", "4KiB");
    let out = lab.roundup(&["run"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let m = manifest(&lab, "sim-4k", "1");
    let r = &m["outcome"]["replay"];
    assert_eq!(r["issued"], 1371);
    // Sizes of 512 B to 3.5 KiB on a 4 KiB-sector drive are widened.
    assert!(r["aligned"].as_u64().unwrap() > 100, "{r}");
    assert!(r["lag_max_us"].as_f64().is_some());
    // Issued at the recorded times: the playback lasts about the recording / 1000.
    let end_s = m["outcome"]["end_ns"].as_f64().unwrap() / 1e9;
    assert!((3.5..3.7).contains(&end_s), "{end_s} s");
}

#[test]
fn replay_tests_check_their_inputs() {
    let lab = TestLab::new();
    lab.sim_drive("sim-a", "Alpha", "A1", 8);
    lab.write(
        "suites/r.yaml",
        &replay_suite(Path::new("traces/missing.trace"), ""),
    );
    // `check` finds it, at its key, and nothing runs.
    for cmd in ["check", "run"] {
        let out = lab.roundup(&[cmd]);
        assert_eq!(out.status.code(), Some(1));
        assert!(
            stderr(&out).contains("suites/r.yaml:4:47: tests[0].trace: expected a trace file (a path in the lab), found none at traces/missing.trace"),
            "{}",
            stderr(&out)
        );
    }
    assert!(!lab.path().join("results").exists(), "nothing ran");
    lab.write(
        "suites/r.yaml",
        "name: r\ntitle: R\ntests:\n  - id: play\n    title: P\n    kind: replay\n    trace: {generate: {profile: nowhere, seed: 1}}\n    queue_depth: 4\n    span: full\n    metric: iops\n",
    );
    let out = lab.roundup(&["check"]);
    assert!(
        stderr(&out).contains("suites/r.yaml:7:24: tests[0].trace.generate.profile: expected a profile in suites/profiles/nowhere.yaml"),
        "{}",
        stderr(&out)
    );
    // A profile that is there is checked too, in its own file.
    lab.write("suites/profiles/nowhere.yaml", "reads: 10\n");
    let out = lab.roundup(&["check"]);
    assert!(
        stderr(&out).contains("suites/profiles/nowhere.yaml:"),
        "{}",
        stderr(&out)
    );
    lab.write(
        "suites/r.yaml",
        &replay_suite(Path::new("x.trace"), ", operation: read"),
    );
    let out = lab.roundup(&["check"]);
    assert!(
        stderr(&out).contains("operation: a replay test plays its trace, whole"),
        "{}",
        stderr(&out)
    );
    lab.write("suites/r.yaml", "name: r\ntitle: R\ntests:\n  - {id: play, title: P, kind: replay, queue_depth: 4, span: full, metric: iops}\n");
    let out = lab.roundup(&["check"]);
    assert!(
        stderr(&out).contains("missing field `trace`"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn generated_storage_bench_traces_meet_their_profiles() {
    let lab = Path::new(env!("CARGO_MANIFEST_DIR"));
    for name in ["light", "heavy", "gaming"] {
        let p = roundup::trace::load_profile(lab, name).unwrap();
        for seed in [1, 2] {
            let t = roundup::trace::generate(&p, seed);
            let s = stats(&t);
            assert_eq!(
                (s.reads, s.writes),
                (p.reads.0, p.writes.0),
                "{name}: exact counts"
            );
            for (size, weight) in &p.sizes.0 {
                let got = s
                    .sizes
                    .iter()
                    .find(|z| z.bytes as u64 == *size)
                    .map(|z| z.percent)
                    .unwrap_or(0.0);
                assert!(
                    (got - *weight as f64).abs() <= 1.0,
                    "{name}: {size} B at {got}%, profile {weight}%"
                );
            }
            assert!(
                (s.sequential_percent - p.sequential.0 * 100.0).abs() <= 2.0,
                "{name}: sequential {}%",
                s.sequential_percent
            );
            let qd = s.average_qd.unwrap();
            assert!(
                (qd - p.queue_depth).abs() <= 0.05 * p.queue_depth,
                "{name}: QD {qd}"
            );
            assert!(s.max_offset <= p.footprint.0, "{name}: footprint");
        }
        let a = roundup::trace::generate(&p, 7);
        assert_eq!(
            a,
            roundup::trace::generate(&p, 7),
            "{name}: same seed, same trace"
        );
        assert_ne!(
            a.requests,
            roundup::trace::generate(&p, 8).requests,
            "{name}: another seed, another trace"
        );
    }
}

#[test]
fn suites_replay_generated_traces() {
    let lab = TestLab::new();
    let profiles = Path::new(env!("CARGO_MANIFEST_DIR")).join("suites/profiles/light.yaml");
    lab.write(
        "suites/profiles/light.yaml",
        &std::fs::read_to_string(profiles).unwrap(),
    );
    lab.write(
        "suites/r.yaml",
        "name: r\ntitle: Replay\ntests:\n  - {id: play, title: Light, kind: replay, trace: {generate: {profile: light, seed: 3}}, queue_depth: 32, span: full, metric: iops}\n",
    );
    lab.sim_drive("sim-a", "Alpha", "A1", 8);
    let out = lab.roundup(&["run", "--dry-run"]);
    let plan = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        plan.contains("[as long as its trace]")
            && plan.contains("1 until an I/O count or a trace's end"),
        "{plan}"
    );
    let out = lab.roundup(&["run"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let m = manifest(&lab, "sim-a", "A1");
    assert_eq!(m["outcome"]["replay"]["issued"], 57769);
    // The profile it follows is recorded with its hash.
    assert_eq!(m["trace_file"]["path"], "suites/profiles/light.yaml");
    assert_eq!(
        m["trace_file"]["sha256"].as_str().unwrap(),
        roundup::config::sha256_file(&lab.path().join("suites/profiles/light.yaml")).unwrap()
    );
    assert!(
        m["workload"]
            .as_str()
            .unwrap()
            .contains("replay of the light profile (seed 3)"),
        "{}",
        m["workload"]
    );
    // The playback keeps the recorded queue depths: never more in flight than the trace's deepest.
    let samples = lab.path().join(
        "results/drive=sim-a/firmware=A1/suite=r/test=play/variant=base/repeat=1/samples.parquet",
    );
    let df = common::read_parquet(&samples);
    use polars::prelude::ChunkAgg;
    let qd = df.column("qd").unwrap().u32().unwrap().clone();
    let p = roundup::trace::load_profile(lab.path(), "light").unwrap();
    let deepest = roundup::trace::generate(&p, 3)
        .requests
        .iter()
        .filter_map(|r| r.qd)
        .max()
        .unwrap();
    assert!(
        qd.max().unwrap() <= deepest,
        "in flight {} > recorded {deepest}",
        qd.max().unwrap()
    );
    let mean = qd.into_no_null_iter().map(|q| q as f64).sum::<f64>() / 57769.0;
    assert!(
        mean < 8.0,
        "the recorded depths (average 6.09) limit the playback, not the test's 32: {mean}"
    );

    let out = lab.roundup(&["trace", "gen", "--profile", "nope"]);
    assert!(
        stderr(&out).contains("cannot read the profile"),
        "{}",
        stderr(&out)
    );
    // A name is looked up in the lab given with --lab (not where the command runs), and a
    // near miss is named.
    let light = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/suites/profiles/light.yaml"
    ))
    .unwrap();
    lab.write("suites/profiles/mine.yaml", &light);
    let out = lab.roundup(&["trace", "gen", "--profile", "mine", "--seed", "1"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = lab.roundup(&["trace", "gen", "--profile", "mien"]);
    assert!(
        stderr(&out).contains("profiles here: light, mine; did you mean \"mine\"?"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_replay_of_large_writes_runs_on_a_compressing_drive() {
    // A replay's operation says nothing of its writes: a model that compresses what it is
    // written (SandForce) is still handed buffers as large as the trace's requests, filled
    // with the data the test names (zeros would compress to nothing).
    let lab = TestLab::new();
    let log = fio_log((0..64).map(|i| (i, "write", i * (1 << 20), 1 << 20)));
    lab.write("traces/big.log", &log);
    lab.write(
        "suites/r.yaml",
        "name: r\ntitle: R\ntests:\n  - {id: play, title: P, kind: replay, trace: traces/big.log, queue_depth: 8, span: full, metric: iops, variants: {data: [compressible, incompressible]}}\n",
    );
    assert!(lab
        .repo_drive("ocz-vertex-le-100")
        .contains("compression: true"));
    let out = lab.roundup(&["run", "-q", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let run: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(run["completed"], 2, "{run}");
    let dir = "results/drive=ocz-vertex-le-100/firmware=1.0/suite=r/test=play";
    let fraction = |variant: &str| {
        let m = lab
            .path()
            .join(format!("{dir}/variant={variant}/repeat=1/manifest.json"));
        let m: serde_json::Value = serde_json::from_slice(&std::fs::read(&m).unwrap()).unwrap();
        m["outcome"]["compressed_fraction"].as_f64().unwrap()
    };
    let (compressible, incompressible) = (
        fraction("data-compressible"),
        fraction("data-incompressible"),
    );
    assert!((compressible - 0.25).abs() < 0.05, "{compressible}");
    assert!(incompressible > 0.99, "{incompressible}");
}
