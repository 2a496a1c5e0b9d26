//! Many benches, one dataset: fio as an engine (its figures against fio's own JSON and
//! against roundup's io_uring engine), two `fio --server` benches on 127.0.0.1 (one killed
//! mid-run, `--resume` after its restart), sharded runs merged byte for byte into one run's
//! results and site, `merge`'s refusals, and the DuckDB queries of docs/scale-out.md.

mod common;

use std::fs;
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{files, stderr, stdout, TestLab, TINY_SUITE};

/// A suite for real targets: a timed random write (fio's IOPS over a whole second), and a
/// mixed, multi-threaded job of an I/O count with a mix of block sizes, long enough (about
/// a second) that one stall of the shared disk does not decide the engines' comparison
/// (3,000 a thread, a sixth of a second, parted them 3.7 times once: 2026-12-06).
const FIO_SUITE: &str = "name: f\ntitle: fio suite\nseed: 7\ntests:\n  - id: random-write-4k\n    title: 4KB Random Write\n    operation: write\n    pattern: random\n    block_size: 4KiB\n    span: 32MiB\n    queue_depth: 4\n    duration: 1500ms\n    metric: iops\n  - id: mixed\n    title: Mixed 70/30\n    operation: {read: 70, write: 30}\n    pattern: random\n    block_size: {4KiB: 60, 16KiB: 40}\n    span: 32MiB\n    queue_depth: 2\n    threads: 2\n    count: 15000\n    metric: iops\n";

fn has_fio() -> bool {
    let ok = Command::new("fio")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        common::skip_without_tool("fio is not installed");
    }
    ok
}

fn file_drive(lab: &TestLab, id: &str, extra: &str) {
    let target = lab.path().join(format!("{id}.img"));
    lab.write(
        &format!("drives/{id}.yaml"),
        &format!(
            "id: {id}\nvendor: Test\nmodel: {id}\ncapacity: 64MiB\npath: {}\nsize: 64MiB\n{extra}",
            target.display()
        ),
    );
}

/// The job folder of `drive`'s `test` (firmware unknown, variant base, repeat 1).
fn job_dir(lab: &TestLab, drive: &str, test: &str) -> PathBuf {
    lab.path().join(format!(
        "results/drive={drive}/firmware=unknown/suite=f/test={test}/variant=base/repeat=1"
    ))
}

fn summary(lab: &TestLab) -> Vec<serde_json::Value> {
    let out = lab.roundup(&["summary", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    serde_json::from_str(&stdout(&out)).unwrap()
}

fn row<'a>(rows: &'a [serde_json::Value], drive: &str, test: &str) -> &'a serde_json::Value {
    rows.iter()
        .find(|r| r["drive"] == drive && r["test"] == test)
        .unwrap_or_else(|| panic!("no {drive} {test} in {rows:?}"))
}

fn f(v: &serde_json::Value) -> f64 {
    v.as_f64().unwrap()
}

/// A replay's flushes reach fio as it reads them (`sync` with an offset and a length: a line
/// of three fields is a file's action to fio, and was refused as "bad iolog file action");
/// a trace with nothing but flushes (or trims, which fio 3.33 skips) is refused in words,
/// where fio said only "failed initializing iolog" (both found by benches/generated-runs.py),
/// and so is a replay onto a path with a space, both before any job runs.
#[test]
fn fio_replays_a_traces_flushes_and_refuses_one_of_flushes_alone() {
    if !has_fio() {
        return;
    }
    let lab = TestLab::new();
    let mut trace = String::from("fio version 3 iolog\n");
    for i in 0..40u64 {
        trace += &format!("{} /dev/sdb write {} 4096\n", i * 100, i * 8192);
        if i % 10 == 9 {
            trace += &format!("{} /dev/sdb sync\n", i * 100 + 50);
        }
    }
    lab.write("traces/t.log", &trace);
    lab.write(
        "traces/flushes.log",
        "fio version 3 iolog\n0 /dev/sdb sync\n10 /dev/sdb sync\n",
    );
    let suite = |trace: &str| {
        format!(
            "name: f\ntitle: F\nseed: 1\ntests:\n  - {{id: replay, title: Replay, kind: \
             replay, trace: traces/{trace}, queue_depth: 4, span: 32MiB, metric: iops}}\n"
        )
    };
    file_drive(&lab, "by-fio", "engine: fio\n");
    lab.write("suites/f.yaml", &suite("t.log"));
    let out = lab.roundup(&["run"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let replay = job_dir(&lab, "by-fio", "replay");
    let fio: serde_json::Value =
        serde_json::from_slice(&fs::read(replay.join("fio.json")).unwrap()).unwrap();
    let job = &fio["jobs"][0];
    assert_eq!(job["write"]["total_ios"], 40, "{job}");
    assert_eq!(job["sync"]["total_ios"], 4, "{}", job["sync"]);

    // Both refused by the preflight, at the test's key, before any job runs (until
    // 2026-12-06 the job failed when it came to them, found by benches/generated-runs.py).
    lab.write("suites/f.yaml", &suite("flushes.log"));
    let out = lab.roundup(&["run"]);
    let err = stderr(&out);
    assert!(!out.status.success());
    assert!(
        err.contains("suites/f.yaml:")
            && err
                .contains("trace: on drive by-fio, fio replays no trace without a read or a write"),
        "{err}"
    );
    lab.write("suites/f.yaml", &suite("t.log"));
    let spaced = lab.path().join("with space.img");
    lab.write(
        "drives/spaced.yaml",
        &format!(
            "id: spaced\nvendor: Test\nmodel: spaced\ncapacity: 64MiB\npath: {}\nsize: 64MiB\nengine: fio\n",
            spaced.display()
        ),
    );
    let out = lab.roundup(&["run", "--drive", "spaced"]);
    let err = stderr(&out);
    assert!(!out.status.success());
    assert!(
        err.contains("suites/f.yaml:")
            && err.contains("engine: on drive spaced, fio's iolog cannot name a file with spaces"),
        "{err}"
    );
    assert!(!lab.path().join("results/drive=spaced").exists());
}

#[test]
fn fio_engine_figures_equal_fios_own_and_agree_with_io_uring() {
    if !has_fio() {
        return;
    }
    let lab = TestLab::new();
    // A replay too: 2,000 reads and writes of 4 to 16 KiB, as fast as possible (fio's
    // read_iolog with the trace placed on the span).
    let trace = common::fio_log((0..2000u64).map(|i| {
        let op = if i % 3 == 0 { "write" } else { "read" };
        (i / 100, op, (i * 7919 % 4000) * 4096, 4096 << (i % 3))
    }));
    lab.write("traces/t.log", &trace);
    lab.write(
        "suites/f.yaml",
        &format!("{FIO_SUITE}  - {{id: replay, title: Replay, kind: replay, trace: traces/t.log, queue_depth: 4, span: 32MiB, metric: iops}}\n"),
    );
    file_drive(&lab, "by-fio", "engine: fio\n");
    file_drive(&lab, "by-uring", "engine: io_uring\n");
    let out = lab.roundup(&["run"]);
    assert!(out.status.success(), "{}\n{}", stdout(&out), stderr(&out));
    let mut rows = summary(&lab);
    // The replay went through fio's read_iolog: fio counts the latency of all but the
    // first few I/Os, and every one it counted is a sample.
    let replay = job_dir(&lab, "by-fio", "replay");
    let jobfile = fs::read_to_string(replay.join("job.fio")).unwrap();
    assert!(jobfile.contains("read_iolog="));
    // Its writes carry the test's data (incompressible: fresh random bytes each), not fio's
    // one buffer written again and again.
    assert!(jobfile.contains("refill_buffers=1"), "{jobfile}");
    let fio: serde_json::Value =
        serde_json::from_slice(&fs::read(replay.join("fio.json")).unwrap()).unwrap();
    let counted: f64 = ["read", "write"]
        .iter()
        .map(|d| f(&fio["jobs"][0][d]["lat_ns"]["N"]))
        .sum();
    let ios = f(&row(&rows, "by-fio", "replay")["ios"]);
    eprintln!("replay: {ios} samples, fio counted {counted}, the trace has 2000");
    assert_eq!(ios, counted);
    assert!((1996.0..=2000.0).contains(&ios), "{ios}");
    assert_eq!(f(&row(&rows, "by-uring", "replay")["ios"]), 2000.0);
    for test in ["random-write-4k", "mixed"] {
        let dir = job_dir(&lab, "by-fio", test);
        let m: serde_json::Value =
            serde_json::from_slice(&fs::read(dir.join("manifest.json")).unwrap()).unwrap();
        assert_eq!(m["engine"], "fio");
        assert!(
            m["extra"]["fio_version"]
                .as_str()
                .unwrap()
                .starts_with("fio-"),
            "{m}"
        );
        let job_file = fs::read_to_string(dir.join("job.fio")).unwrap();
        assert!(job_file.contains("direct=1") && job_file.contains("log_avg_msec=0"));
        // fio's own figures of the measured job, read and write added.
        let fio: serde_json::Value =
            serde_json::from_slice(&fs::read(dir.join("fio.json")).unwrap()).unwrap();
        let job = fio["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|j| j["jobname"] == "measure")
            .unwrap();
        let (mut n, mut iops, mut weighted, mut max) = (0.0, 0.0, 0.0, 0.0f64);
        for d in ["read", "write"] {
            let lat = &job[d]["lat_ns"];
            let k = f(&lat["N"]);
            n += k;
            iops += f(&job[d]["iops"]);
            if k > 0.0 {
                weighted += f(&lat["mean"]) * k;
                max = max.max(f(&lat["max"]));
            }
        }
        let ours = row(&rows, "by-fio", test);
        eprintln!(
            "{test}: I/Os {} / fio {n}; IOPS {:.1} / fio {iops:.1} = {:.5}; mean {:.4} µs / fio {:.4}; max {} µs / fio {}",
            ours["ios"],
            f(&ours["iops"]),
            f(&ours["iops"]) / iops,
            f(&ours["lat_mean_us"]),
            weighted / n / 1e3,
            f(&ours["lat_max_us"]),
            max / 1e3
        );
        assert_eq!(f(&ours["ios"]), n, "every I/O fio counted is a sample");
        // fio prints its mean to six decimals of a nanosecond; roundup keeps µs, so a
        // figure comes back in ns within a rounding of the last bit.
        let mean_ns = f(&ours["lat_mean_us"]) * 1e3;
        assert!(
            (mean_ns - weighted / n).abs() <= 1e-6 + 1e-12 * mean_ns,
            "mean {mean_ns} ns against fio's {}",
            weighted / n
        );
        assert_eq!((f(&ours["lat_max_us"]) * 1e3).round(), max);
        // fio's runtime is whole milliseconds, its I/O count the I/Os it issued.
        let tolerance = if test == "mixed" { 0.03 } else { 0.01 };
        assert!(
            (f(&ours["iops"]) / iops - 1.0).abs() < tolerance,
            "IOPS {} against fio's {iops}",
            ours["iops"]
        );
        if test == "random-write-4k" {
            // fio's percentiles are its histogram's bins: within 1/64 of the value.
            let pct = &job["write"]["lat_ns"]["percentile"];
            for (key, ours_us) in [("50.000000", "lat_p50_us"), ("99.000000", "lat_p99_us")] {
                let theirs = f(&pct[key]) / 1e3;
                let o = f(&ours[ours_us]);
                eprintln!("  {ours_us} {o:.2} / fio {theirs:.2}");
                assert!(
                    (o / theirs - 1.0).abs() <= 1.0 / 32.0,
                    "{ours_us} {o} vs {theirs}"
                );
            }
        }
    }
    // The same jobs through roundup's own io_uring engine: the same drive (a file on the
    // same file system), so the same figures within the noise of a shared machine. That
    // noise is the virtual disk's, shared with the tests beside this one: a run of 1.5 s
    // can lose two thirds of its IOPS to another's writes (0.36 on 2026-12-06, p99 4 ms).
    // So each engine keeps its best of up to three runs, alternated, as a benchmark on a
    // noisy machine would (a job run again overwrites its results, and the summary after
    // it holds every job's latest).
    for test in ["random-write-4k", "mixed"] {
        let mut best = [0.0f64; 2];
        for round in 0..3 {
            if round > 0 {
                for drive in ["by-uring", "by-fio"] {
                    let out = lab.roundup(&["run", "-q", "--drive", drive, "--test", test]);
                    assert!(out.status.success(), "{}", stderr(&out));
                }
                rows = summary(&lab);
            }
            for (i, drive) in ["by-fio", "by-uring"].into_iter().enumerate() {
                best[i] = best[i].max(f(&row(&rows, drive, test)["iops"]));
            }
            let ratio = best[0] / best[1];
            eprintln!(
                "{test}: fio engine / io_uring engine IOPS, best of {} runs each: {ratio:.3}",
                round + 1
            );
            if (0.4..2.5).contains(&ratio) {
                break;
            }
            assert!(round < 2, "{test}: {ratio}");
        }
        if test == "mixed" {
            // An I/O count: both engines do exactly as many.
            let (a, b) = (row(&rows, "by-fio", test), row(&rows, "by-uring", test));
            assert_eq!(a["ios"], b["ios"]);
        }
    }
}

#[test]
fn fio_missing_or_a_job_it_cannot_run_fails_and_stores_nothing() {
    if !has_fio() {
        return;
    }
    let lab = TestLab::new();
    lab.write(
        "suites/f.yaml",
        "name: f\ntitle: t\nseed: 1\ntests:\n  - {id: steady, title: Steady, operation: write, pattern: random, block_size: 4KiB, span: 8MiB, queue_depth: 1, duration: 1s, metric: iops, steady_state: {max_rounds: 5}}\n  - {id: plain, title: Plain, operation: read, pattern: random, block_size: 4KiB, span: 8MiB, queue_depth: 1, count: 100, metric: iops}\n",
    );
    file_drive(&lab, "by-fio", "engine: fio\n");
    // A job fio cannot run is refused before the run starts, pointing at its key: nothing
    // runs, nothing is stored.
    let out = lab.roundup(&["run"]);
    assert!(!out.status.success());
    let text = stdout(&out) + &stderr(&out);
    assert!(
        text.contains("tests[0].steady_state: on drive by-fio, a steady-state test"),
        "{text}"
    );
    assert!(!lab.path().join("results").exists());
    let out = lab.roundup(&["run", "--test", "plain"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(job_dir(&lab, "by-fio", "plain")
        .join("manifest.json")
        .exists());
    // No fio on PATH: the job fails saying so, nothing stored.
    fs::remove_dir_all(lab.path().join("results")).unwrap();
    let out = lab.roundup_env(&[("PATH", "/nonexistent")], &["run", "--test", "plain"]);
    assert!(!out.status.success());
    let text = stdout(&out) + &stderr(&out);
    assert!(text.contains("cannot run `fio`"), "{text}");
    assert!(!job_dir(&lab, "by-fio", "plain")
        .join("manifest.json")
        .exists());
    // A stand-in fio: too old, rejecting the job, or writing a log that does not parse.
    let bin = lab.path().join("bin");
    fs::create_dir_all(&bin).unwrap();
    let fake = bin.join("fio");
    fs::write(
        &fake,
        r#"#!/bin/sh
case "$1" in --version) echo "${FAKE_FIO_VERSION:-fio-3.33}"; exit 0;; esac
for a; do job="$a"; case "$a" in --output=*) out="${a#--output=}";; esac; done
if [ "$FAKE_FIO" = reject ]; then echo "fio: failed parsing bs=banana" >&2; exit 1; fi
prefix=$(sed -n 's/^write_lat_log=//p' "$job")
echo "12, 3x5, 1, 4096, 0, 0" > "${prefix}_lat.1.log"
echo '{"fio version": "fio-3.33", "jobs": [{"jobname": "measure", "error": 0, "read": {"total_ios": 1, "iops": 1.0, "lat_ns": {"N": 1, "mean": 345.0, "max": 345}}, "write": {"total_ios": 0, "iops": 0.0, "lat_ns": {"N": 0}}}]}' > "$out"
"#,
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt as _;
    fs::set_permissions(&fake, fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    for (env, expected) in [
        (("FAKE_FIO_VERSION", "fio-3.1"), "fio-3.1 is too old"),
        (
            ("FAKE_FIO", "reject"),
            "fio failed: fio: failed parsing bs=banana",
        ),
        (("FAKE_FIO", "bad-log"), "_lat.1.log:1: field 2 (latency)"),
    ] {
        let out = lab.roundup_env(&[("PATH", &path), env], &["run", "--test", "plain"]);
        assert!(!out.status.success());
        let text = stdout(&out) + &stderr(&out);
        assert!(text.contains(expected), "{expected}: {text}");
        assert!(!job_dir(&lab, "by-fio", "plain")
            .join("manifest.json")
            .exists());
    }
}

/// An `fio --server` on 127.0.0.1, stopped when dropped.
struct FioServer {
    child: Child,
    port: u16,
    stopped: bool,
}

impl FioServer {
    fn start(port: u16) -> FioServer {
        use std::os::unix::process::CommandExt as _;
        // Its own process group: the server forks a process per connection, and a bench
        // that goes away takes them all.
        let child = Command::new("fio")
            .arg(format!("--server=ip:127.0.0.1,{port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .expect("fio --server");
        let started = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "fio server did not start"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        FioServer {
            child,
            port,
            stopped: false,
        }
    }

    fn stop(&mut self) {
        if std::mem::replace(&mut self.stopped, true) {
            return;
        }
        let _ = Command::new("kill")
            .args(["-9", "--", &format!("-{}", self.child.id())])
            .status();
        let _ = self.child.wait();
    }
}

impl Drop for FioServer {
    fn drop(&mut self) {
        self.stop();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A replay on a bench onto a file that is not there yet: fio opens a replay's file without
/// creating it (a generated run failed so, "No such file or directory"), so the file is
/// created first, as a bench's other jobs create theirs.
#[test]
fn a_replay_on_a_bench_creates_its_file_first() {
    if !has_fio() {
        return;
    }
    let server = FioServer::start(free_port());
    let lab = TestLab::new();
    let mut trace = String::from("fio version 3 iolog\n");
    for i in 0..20u64 {
        trace += &format!("{} /dev/sdb read {} 4096\n", i * 100, i * 65536);
    }
    lab.write("traces/reads.log", &trace);
    lab.write(
        "suites/f.yaml",
        "name: f\ntitle: F\nseed: 1\ntests:\n  - {id: replay, title: Replay, kind: replay, \
         trace: traces/reads.log, queue_depth: 2, span: 32MiB, metric: iops}\n",
    );
    file_drive(
        &lab,
        "benched",
        &format!("bench: 127.0.0.1:{}\n", server.port),
    );
    let file = lab.path().join("benched.img");
    assert!(!file.exists());
    let out = lab.roundup(&["run"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(job_dir(&lab, "benched", "replay")
        .join("manifest.json")
        .exists());
    assert!(fs::metadata(&file).unwrap().len() >= 32 << 20);
}

#[test]
fn two_benches_fill_one_lab_and_a_bench_that_dies_fails_only_its_job() {
    if !has_fio() {
        return;
    }
    let mut servers = [FioServer::start(free_port()), FioServer::start(free_port())];
    let lab = TestLab::new();
    lab.write(
        "suites/f.yaml",
        "name: f\ntitle: t\nseed: 1\ntests:\n  - {id: short, title: Short, operation: write, pattern: random, block_size: 4KiB, span: 16MiB, queue_depth: 4, count: 2000, metric: iops}\n  - {id: long, title: Long, operation: read, pattern: random, block_size: 4KiB, span: 16MiB, queue_depth: 4, duration: 4s, metric: iops}\n",
    );
    for (k, s) in servers.iter().enumerate() {
        let id = format!("bench{}", k + 1);
        file_drive(&lab, &id, &format!("bench: 127.0.0.1:{}\n", s.port));
    }
    let out = lab.roundup(&["drives"]);
    let text = stdout(&out);
    for s in &servers {
        assert!(
            text.contains(&format!("127.0.0.1:{}", s.port)) && text.contains("answers, fio-"),
            "{text}"
        );
    }
    let out = lab.roundup(&["run"]);
    assert!(out.status.success(), "{}\n{}", stdout(&out), stderr(&out));
    let rows = summary(&lab);
    assert_eq!(rows.len(), 4, "{rows:?}");
    let m: serde_json::Value = serde_json::from_slice(
        &fs::read(job_dir(&lab, "bench2", "short").join("manifest.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        m["extra"]["bench"],
        format!("127.0.0.1:{}", servers[1].port)
    );
    assert_eq!(f(&row(&rows, "bench2", "short")["ios"]), 2000.0);

    // Again, with bench 2's server killed while its long job runs.
    fs::remove_dir_all(lab.path().join("results")).unwrap();
    let run = Command::new(env!("CARGO_BIN_EXE_roundup"))
        .arg("--lab")
        .arg(lab.path())
        .arg("run")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let long = job_dir(&lab, "bench2", "long");
    let started = Instant::now();
    while !long.exists() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the long job never started"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(1500));
    servers[1].stop();
    let out = run.wait_with_output().unwrap();
    assert!(!out.status.success());
    let text = stdout(&out) + &stderr(&out);
    let named = format!("bench 127.0.0.1:{}", servers[1].port);
    eprintln!("{text}");
    assert!(text.contains(&named), "{text}");
    // Bench 1's results are whole; bench 2's long job is not stored.
    for test in ["short", "long"] {
        assert!(job_dir(&lab, "bench1", test).join("manifest.json").exists());
    }
    assert!(!long.join("manifest.json").exists());
    // The bench is back: --resume runs what is missing, and only that.
    let port = servers[1].port;
    servers[1] = FioServer::start(port);
    let out = lab.roundup(&["run", "--resume"]);
    assert!(out.status.success(), "{}\n{}", stdout(&out), stderr(&out));
    assert!(long.join("manifest.json").exists());
    assert!(stdout(&out).contains("1 job completed"), "{}", stdout(&out));
    assert_eq!(summary(&lab).len(), 4);
}

#[test]
fn a_remote_block_device_needs_destroy_data() {
    let lab = TestLab::new();
    lab.write("suites/tiny.yaml", TINY_SUITE);
    lab.write(
        "drives/far.yaml",
        "id: far\nvendor: V\nmodel: M\ncapacity: 1GB\npath: /dev/sdz\nsize: 1GB\nbench: 127.0.0.1:1\n",
    );
    let out = lab.roundup(&["run"]);
    assert!(!out.status.success());
    let text = stderr(&out);
    assert!(
        text.contains("refusing to write to /dev/sdz") && text.contains("destroy_data"),
        "{text}"
    );
    // A bench's drive must say its size, on an absolute path.
    lab.write(
        "drives/far.yaml",
        "id: far\nvendor: V\nmodel: M\ncapacity: 1GB\npath: /dev/sdz\nbench: 127.0.0.1\n",
    );
    let out = lab.roundup(&["check"]);
    assert!(stderr(&out).contains("size: expected the size of /dev/sdz on bench 127.0.0.1:8765"));
}

/// The demo suite, shortened (every duration a second or half a second), on every
/// simulated drive of the lab, selected up to its sequential write.
fn demo_lab() -> TestLab {
    let lab = TestLab::new();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for entry in fs::read_dir(root.join("drives")).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        lab.write(
            &format!("drives/{name}"),
            &fs::read_to_string(entry.path()).unwrap(),
        );
    }
    for entry in fs::read_dir(root.join("suites/profiles"))
        .unwrap()
        .flatten()
    {
        let name = entry.file_name().to_string_lossy().to_string();
        lab.write(
            &format!("suites/profiles/{name}"),
            &fs::read_to_string(entry.path()).unwrap(),
        );
    }
    let demo = fs::read_to_string(root.join("suites/demo.yaml"))
        .unwrap()
        .replace("duration: 2m", "duration: 1s")
        .replace("duration: 5s", "duration: 500ms");
    lab.write("suites/demo.yaml", &demo);
    lab
}

const DEMO_TESTS: [&str; 8] = [
    "--test",
    "latency-write-4k",
    "--test",
    "random-write-4k",
    "--test",
    "random-read-4k",
    "--test",
    "sequential-write-128k",
];

fn same_tree(a: &Path, b: &Path) {
    let fa = files(a);
    assert_eq!(fa, files(b), "{} and {}", a.display(), b.display());
    assert!(!fa.is_empty());
    for f in &fa {
        assert!(
            fs::read(a.join(f)).unwrap() == fs::read(b.join(f)).unwrap(),
            "{f:?} differs"
        );
    }
}

#[test]
fn three_shards_merge_into_one_runs_results_and_site_byte_for_byte() {
    let one = demo_lab();
    let out = one.roundup(&[&["run", "-q"][..], &DEMO_TESTS].concat());
    assert!(out.status.success(), "{}", stderr(&out));
    let shards: Vec<TestLab> = (1..=3)
        .map(|k| {
            let lab = demo_lab();
            let shard = format!("{k}/3");
            let out = lab.roundup(&[&["run", "-q", "--shard", &shard][..], &DEMO_TESTS].concat());
            assert!(out.status.success(), "{}", stderr(&out));
            lab
        })
        .collect();
    // Each drive in exactly one shard.
    let drives = |lab: &TestLab| -> Vec<String> {
        let mut d: Vec<String> = fs::read_dir(lab.path().join("results"))
            .map(|r| {
                r.flatten()
                    .map(|e| e.file_name().to_string_lossy().to_string())
                    .collect()
            })
            .unwrap_or_default();
        d.sort();
        d
    };
    let mut union: Vec<String> = shards.iter().flat_map(drives).collect();
    union.sort();
    assert_eq!(union, drives(&one));
    assert!(shards.iter().all(|s| !drives(s).is_empty()));

    let merged = demo_lab();
    let sources: Vec<String> = shards
        .iter()
        .map(|s| s.path().join("results").display().to_string())
        .collect();
    let args: Vec<&str> = ["merge"]
        .into_iter()
        .chain(sources.iter().map(String::as_str))
        .collect();
    let out = merged.roundup(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    same_tree(&one.path().join("results"), &merged.path().join("results"));
    // Merging the same folders again changes nothing.
    let out = merged.roundup(&args);
    assert!(
        stdout(&out).contains("merge: 0 added, 0 replaced"),
        "{}",
        stdout(&out)
    );
    for lab in [&one, &merged] {
        let out = lab.roundup(&["render", "-q"]);
        assert!(out.status.success(), "{}", stderr(&out));
    }
    same_tree(&one.path().join("site"), &merged.path().join("site"));
    duckdb_queries_of_the_docs_match_the_summary(&merged);
}

/// The SQL blocks of docs/scale-out.md, run by DuckDB in the lab, against `summary --json`.
fn duckdb_queries_of_the_docs_match_the_summary(lab: &TestLab) {
    let has = Command::new("python3")
        .args(["-c", "import duckdb"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has {
        common::skip_without_tool("python3 with duckdb is not installed");
        return;
    }
    let queries = common::doc_blocks("scale-out.md", "sql");
    assert_eq!(queries.len(), 2, "the docs show two queries");
    lab.write("iops.sql", &queries[0]);
    lab.write("p99.sql", &queries[1]);
    let out = lab.roundup(&["summary", "--json"]);
    lab.write("summary.json", &stdout(&out));
    let script = r#"
import json, os, duckdb
con = duckdb.connect()
rows = json.load(open('summary.json'))
iops = {tuple(r[:5]): r[5] for r in con.execute(open('iops.sql').read()).fetchall()}
p99 = {tuple(r[:6]): r[6] for r in con.execute(open('p99.sql').read()).fetchall()}
by_test = {}
empty = 0
for r in rows:
    key = (r['drive'], r['firmware'], r['suite'], r['test'], r['variant'])
    folder = 'results/drive={}/firmware={}/suite={}/test={}/variant={}/repeat={}'.format(*key, r['repeat'])
    if not os.path.exists(folder + '/samples.parquet'):
        # A test that keeps a histogram (`samples: histogram`) has no rows to query.
        assert os.path.exists(folder + '/histogram.parquet'), folder
        assert key not in iops
        empty += 1
        continue
    by_test.setdefault(key, []).append(r['iops'])
    if r['ios'] == 0:
        # A job that completed no I/O in its time (a stalled drive) has no rows.
        empty += 1
        assert key + (str(r['repeat']),) not in p99
        continue
    theirs = p99[key + (str(r['repeat']),)]
    assert abs(theirs - r['lat_p99_us']) <= 1e-9 * theirs, (r, theirs)
for k, ours in by_test.items():
    if 0 in ours:
        continue
    mean = sum(ours) / len(ours)
    assert abs(iops[k] - mean) <= 1e-9 * mean, (k, iops[k], mean)
print(len(rows), len(iops), len(p99) + empty)
"#;
    let out = Command::new("python3")
        .args(["-c", script])
        .current_dir(lab.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let counts: Vec<usize> = stdout(&out)
        .split_whitespace()
        .map(|n| n.parse().unwrap())
        .collect();
    assert!(
        counts[0] > 50 && counts[1] > 0 && counts[2] == counts[0],
        "{counts:?}"
    );
}

#[test]
fn merge_refuses_conflicts_and_damaged_files_and_copies_nothing() {
    let make = |seed: u32| {
        let lab = TestLab::new();
        lab.write(
            "suites/tiny.yaml",
            &TINY_SUITE.replace("seed: 7", &format!("seed: {seed}")),
        );
        lab.sim_drive("sim-a", "Alpha", "A1", 4);
        let out = lab.roundup(&["run", "-q"]);
        assert!(out.status.success(), "{}", stderr(&out));
        lab
    };
    let (a, b) = (make(7), make(8));
    let dest = TestLab::new();
    dest.write("suites/tiny.yaml", TINY_SUITE);
    dest.sim_drive("sim-a", "Alpha", "A1", 4);
    let ra = a.path().join("results").display().to_string();
    let rb = b.path().join("results").display().to_string();
    // The same jobs with other seeds: a conflict naming both folders; nothing copied.
    let out = dest.roundup(&["merge", &ra, &rb]);
    assert!(!out.status.success());
    let text = stderr(&out);
    assert!(
        text.contains(&ra) && text.contains(&rb) && text.contains("--prefer"),
        "{text}"
    );
    assert!(files(&dest.path().join("results")).is_empty());
    // --prefer names the winner.
    let out = dest.roundup(&["merge", &ra, &rb, "--prefer", &rb]);
    assert!(out.status.success(), "{}", stderr(&out));
    same_tree(&b.path().join("results"), &dest.path().join("results"));
    // The destination's own jobs conflict with a: kept with --prefer on the destination.
    let own = dest.path().join("results").display().to_string();
    let out = dest.roundup(&["merge", &ra]);
    assert!(!out.status.success());
    let out = dest.roundup(&["merge", &ra, "--prefer", &own]);
    assert!(
        stdout(&out).contains("0 added, 0 replaced, 0 already there, 3 kept"),
        "{}",
        stdout(&out)
    );
    // --prefer newer: of two sources, the one run last.
    let c = make(10);
    let rc = c.path().join("results").display().to_string();
    let newer = TestLab::new();
    newer.write("suites/tiny.yaml", TINY_SUITE);
    let out = newer.roundup(&["merge", &ra, &rc, "--prefer", "newer"]);
    assert!(out.status.success(), "{}", stderr(&out));
    same_tree(&c.path().join("results"), &newer.path().join("results"));
    // A truncated samples file in a source: refused with its name, nothing copied.
    let damaged = make(9);
    let samples = files(&damaged.path().join("results"))
        .into_iter()
        .find(|p| p.ends_with("samples.parquet"))
        .unwrap();
    let path = damaged.path().join("results").join(&samples);
    let bytes = fs::read(&path).unwrap();
    fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    let fresh = TestLab::new();
    fresh.write("suites/tiny.yaml", TINY_SUITE);
    let out = fresh.roundup(&[
        "merge",
        &damaged.path().join("results").display().to_string(),
    ]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains(&path.display().to_string()),
        "{}",
        stderr(&out)
    );
    assert!(files(&fresh.path().join("results")).is_empty());
}
