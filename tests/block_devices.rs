//! Real block devices: loop devices over sparse files. The suite runs on a blank device;
//! writes are refused on one carrying a filesystem or a partition table unless it is named
//! for destruction, and always on a mounted one. Skipped where the machine refuses loop
//! devices (not root, no loop driver).

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::{fio_log, stderr, stdout, written_flushed_half_trimmed, TestLab, TINY_SUITE};

/// A loop device over a sparse file, detached (and unmounted) when dropped.
struct Loop {
    dev: String,
    mount: Option<PathBuf>,
    _backing: tempfile::TempDir,
}

impl Loop {
    fn new(size: u64) -> Option<Loop> {
        let dir = tempfile::tempdir().ok()?;
        let file = dir.path().join("disk.img");
        fs::File::create(&file).ok()?.set_len(size).ok()?;
        let out = Command::new("losetup")
            .args(["-f", "--show"])
            .arg(&file)
            .output()
            .ok()?;
        if !out.status.success() {
            eprintln!(
                "skipped: losetup refused: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            );
            return None;
        }
        Some(Loop {
            dev: String::from_utf8_lossy(&out.stdout).trim().to_string(),
            mount: None,
            _backing: dir,
        })
    }

    fn name(&self) -> &str {
        self.dev.trim_start_matches("/dev/")
    }

    fn mkfs(&self) {
        let out = Command::new("mkfs.ext4")
            .args(["-q", "-F"])
            .arg(&self.dev)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    fn mount_at(&mut self, at: &Path) -> bool {
        fs::create_dir_all(at).unwrap();
        let ok = Command::new("mount")
            .arg(&self.dev)
            .arg(at)
            .status()
            .is_ok_and(|s| s.success());
        if ok {
            self.mount = Some(at.to_path_buf());
        }
        ok
    }
}

impl Drop for Loop {
    fn drop(&mut self) {
        if let Some(m) = &self.mount {
            let _ = Command::new("umount").arg(m).status();
        }
        let _ = Command::new("losetup").args(["-d", &self.dev]).status();
    }
}

fn drive(lab: &TestLab, id: &str, dev: &str, extra: &str) {
    lab.write(
        &format!("drives/{id}.yaml"),
        &format!("id: {id}\nvendor: Loop\nmodel: Device\ncapacity: 64MiB\npath: {dev}\n{extra}"),
    );
}

#[test]
fn suite_runs_on_a_blank_block_device() {
    let Some(dev) = Loop::new(64 << 20) else {
        return;
    };
    let lab = TestLab::new();
    lab.write("suites/tiny.yaml", TINY_SUITE);
    drive(&lab, "blank", &dev.dev, "");
    let out = lab.roundup(&["run"]);
    assert!(out.status.success(), "{}\n{}", stdout(&out), stderr(&out));
    let m = lab.path().join("results/drive=blank/firmware=unknown/suite=tiny/test=random-write-4k/variant=data-incompressible/repeat=1/manifest.json");
    let m: serde_json::Value = serde_json::from_slice(&fs::read(m).unwrap()).unwrap();
    assert_eq!(m["target"]["kind"], "block_device");
    assert_eq!(m["target"]["capacity"], 64u64 << 20);
    assert_eq!(m["target"]["identity"]["kernel_name"], dev.name());
    assert_eq!(m["samples_rows"], 2000);
    assert!(
        m["outcome"]["compressed_fraction"].as_f64().unwrap() > 0.99,
        "incompressible data written: {}",
        m["outcome"]
    );
}

#[test]
fn the_manifest_has_what_the_block_layer_counted_on_the_device() {
    // A loop device no one else uses: the kernel's counters over the measured part are the
    // job's requests, and the depth the device saw is at most the depth the engine kept
    // (an I/O the device has finished but the engine not yet reaped counts only there).
    let Some(dev) = Loop::new(64 << 20) else {
        return;
    };
    let lab = TestLab::new();
    lab.write("suites/tiny.yaml", TINY_SUITE);
    drive(&lab, "blank", &dev.dev, "");
    lab.sim_drive("sim", "Sim", "1", 4);
    let out = lab.roundup(&["run", "-q", "--test", "random-write-4k"]);
    assert!(out.status.success(), "{}\n{}", stdout(&out), stderr(&out));
    let manifest = |drive: &str, fw: &str| -> serde_json::Value {
        let m = lab.path().join(format!("results/drive={drive}/firmware={fw}/suite=tiny/test=random-write-4k/variant=data-incompressible/repeat=1/manifest.json"));
        serde_json::from_slice(&fs::read(m).unwrap()).unwrap()
    };
    let o = &manifest("blank", "unknown")["outcome"];
    let d = &o["device"];
    assert_eq!(d["name"], dev.name(), "{o}");
    let requests = d["requests"].as_u64().unwrap();
    // 2000 writes of 4 KiB; two in flight side by side may be merged into one request.
    assert!((1900..=2000).contains(&requests), "{o}");
    let depth = d["depth"].as_f64().unwrap();
    let kept = o["mean_depth"].as_f64().unwrap();
    assert!(depth > 0.0 && depth <= kept + 0.01 && kept <= 4.0, "{o}");
    let busy = d["busy"].as_f64().unwrap();
    assert!(busy > 0.0 && busy <= 1.0, "{o}");
    assert!(d["mean_latency_us"].as_f64().is_some(), "{o}");
    assert!(d["interval_ms"].as_f64().unwrap() > 0.0, "{o}");
    // A simulated drive has no device under it.
    let o = &manifest("sim", "1")["outcome"];
    assert!(o.get("device").is_none(), "{o}");
    // With fio as the engine: the counters over fio's run, and the depth its samples kept.
    let out = lab.roundup(&["run", "-q", "--test", "random-write-4k", "--engine", "fio"]);
    assert!(out.status.success(), "{}\n{}", stdout(&out), stderr(&out));
    let o = &manifest("blank", "unknown")["outcome"];
    let d = &o["device"];
    assert_eq!(d["name"], dev.name(), "{o}");
    assert!(
        (1900..=2000).contains(&d["requests"].as_u64().unwrap()),
        "{o}"
    );
    let kept = o["mean_depth"].as_f64().unwrap();
    assert!(kept > 0.0 && kept <= 4.0, "{o}");
}

#[test]
fn crystaldiskmark_runs_on_a_blank_block_device() {
    let Some(dev) = Loop::new(64 << 20) else {
        return;
    };
    let lab = TestLab::new();
    lab.write(
        "suites/crystaldiskmark-8.yaml",
        &common::shortened_suite("crystaldiskmark-8"),
    );
    drive(&lab, "blank", &dev.dev, "");
    let out = lab.roundup(&["run", "-q"]);
    assert!(out.status.success(), "{}\n{}", stdout(&out), stderr(&out));
    let rows: Vec<serde_json::Value> =
        serde_json::from_str(&stdout(&lab.roundup(&["summary", "--json"]))).unwrap();
    assert_eq!(rows.len(), 40);
    assert!(rows.iter().all(|r| r["mb_per_s"].as_f64().unwrap() > 0.0));
    let out = lab.roundup(&["render", "-q"]);
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn filesystem_partition_table_and_mounts_guard_the_data() {
    let Some(mut dev) = Loop::new(64 << 20) else {
        return;
    };
    dev.mkfs();
    let lab = TestLab::new();
    lab.write("suites/tiny.yaml", TINY_SUITE);
    drive(&lab, "fs", &dev.dev, "");
    let out = lab.roundup(&["run"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains(&format!(
            "refusing to write to {}: it carries an ext2/3/4 filesystem",
            dev.dev
        )),
        "{err}"
    );
    assert!(
        err.contains(&format!("destroy_data: {}", dev.name())),
        "the message says how to allow it: {err}"
    );
    assert!(!lab.path().join("results").exists(), "nothing ran");
    // The refused device is still looked at read-only: a test too large for it is reported
    // in the same look, with the refusal.
    lab.write(
        "suites/big.yaml",
        &TINY_SUITE
            .replace("name: tiny", "name: big")
            .replace("span: 16MiB", "span: 1GiB"),
    );
    let out = lab.roundup(&["run", "--dry-run", "--suite", "big"]);
    let err = stderr(&out);
    assert!(err.contains("it carries an ext2/3/4 filesystem"), "{err}");
    assert!(
        err.contains("suites/big.yaml:10:5: tests[0].span: expected at most the 64 MiB drive fs offers, found 1 GiB"),
        "{err}"
    );
    fs::remove_file(lab.path().join("suites/big.yaml")).unwrap();
    // Reads are allowed.
    let out = lab.roundup(&["run", "--test", "sequential-read-128k"]);
    assert!(out.status.success(), "{}", stderr(&out));
    // Naming another device does not allow it.
    drive(&lab, "fs", &dev.dev, "destroy_data: loop999\n");
    let out = lab.roundup(&["run", "--test", "random-write-4k"]);
    assert!(
        stderr(&out).contains("it carries an ext2/3/4 filesystem"),
        "{}",
        stderr(&out)
    );

    // Mounted: refused even when named for destruction.
    let mnt = lab.path().join("mnt");
    if dev.mount_at(&mnt) {
        drive(
            &lab,
            "fs",
            &dev.dev,
            &format!("destroy_data: {}\n", dev.name()),
        );
        let out = lab.roundup(&["run", "--test", "random-write-4k"]);
        assert!(
            stderr(&out).contains(&format!("is mounted at {}", mnt.display())),
            "{}",
            stderr(&out)
        );
        let _ = Command::new("umount").arg(&mnt).status();
        dev.mount = None;
    } else {
        eprintln!("skipped the mounted case: mount refused");
    }

    // Named for destruction and not mounted: the suite runs.
    drive(
        &lab,
        "fs",
        &dev.dev,
        &format!("destroy_data: {}\n", dev.name()),
    );
    let out = lab.roundup(&["run", "--test", "random-write-4k"]);
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn partition_table_guards_the_data() {
    let Some(dev) = Loop::new(64 << 20) else {
        return;
    };
    // An MBR boot signature.
    let mut sector = vec![0u8; 512];
    sector[510] = 0x55;
    sector[511] = 0xAA;
    {
        use std::os::unix::fs::FileExt;
        let f = fs::OpenOptions::new().write(true).open(&dev.dev).unwrap();
        f.write_all_at(&sector, 0).unwrap();
        f.sync_all().unwrap();
    }
    let lab = TestLab::new();
    lab.write("suites/tiny.yaml", TINY_SUITE);
    drive(&lab, "mbr", &dev.dev, "");
    let out = lab.roundup(&["run"]);
    assert!(
        stderr(&out).contains("it carries an MBR partition table"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn purge_discards_a_block_device() {
    let Some(dev) = Loop::new(64 << 20) else {
        return;
    };
    let lab = TestLab::new();
    lab.write(
        "suites/p.yaml",
        "name: p\ntitle: Purge\ntests:\n  - {id: r, title: R, operation: read, pattern: random, block_size: 4KiB, span: 16MiB, queue_depth: 4, count: 500, metric: iops, precondition: {purge: true, fill: 1}}\n",
    );
    drive(&lab, "blank", &dev.dev, "");
    let out = lab.roundup(&["run"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let m = lab.path().join(
        "results/drive=blank/firmware=unknown/suite=p/test=r/variant=base/repeat=1/manifest.json",
    );
    let m: serde_json::Value = serde_json::from_slice(&fs::read(m).unwrap()).unwrap();
    assert_eq!(m["precondition"]["purged"], true);
    assert_eq!(m["precondition"]["fill_bytes"], 16u64 << 20);
}

/// zram: a RAM-backed, compressing block device. Sized for the test and reset after it;
/// the tests that use it take turns (there is one `/dev/zram0`).
struct Zram {
    _turn: std::sync::MutexGuard<'static, ()>,
}

static ZRAM_TURN: std::sync::Mutex<()> = std::sync::Mutex::new(());

impl Zram {
    fn new(size: u64) -> Option<Zram> {
        let turn = ZRAM_TURN.lock().unwrap_or_else(|e| e.into_inner());
        let current = fs::read_to_string("/sys/block/zram0/disksize").ok()?;
        if current.trim() != "0" {
            eprintln!("skipped: /dev/zram0 is in use");
            return None;
        }
        if fs::write("/sys/block/zram0/disksize", size.to_string()).is_err() {
            eprintln!("skipped: cannot size /dev/zram0 (root needed)");
            return None;
        }
        Some(Zram { _turn: turn })
    }
}

impl Drop for Zram {
    fn drop(&mut self) {
        let _ = fs::write("/sys/block/zram0/reset", "1");
    }
}

/// Runs the lab with `engine` and returns the manifest of the first repeat of `job` (its
/// results folder below `results/`), served by that engine.
fn run_with(lab: &TestLab, engine: &str, job: &str) -> serde_json::Value {
    let out = lab.roundup(&["run", "--engine", engine]);
    assert!(out.status.success(), "{engine}: {}", stderr(&out));
    let m = lab
        .path()
        .join(format!("results/{job}/repeat=1/manifest.json"));
    let m: serde_json::Value = serde_json::from_slice(&fs::read(m).unwrap()).unwrap();
    assert_eq!(m["engine"], engine);
    m
}

#[test]
fn suite_runs_on_zram_with_both_engines() {
    let Some(_zram) = Zram::new(64 << 20) else {
        return;
    };
    let lab = TestLab::new();
    lab.write("suites/tiny.yaml", TINY_SUITE);
    drive(&lab, "zram", "/dev/zram0", "");
    for engine in ["io_uring", "psync"] {
        let m = run_with(
            &lab,
            engine,
            "drive=zram/firmware=unknown/suite=tiny/test=random-write-4k/variant=data-compressible",
        );
        assert_eq!(m["target"]["identity"]["kernel_name"], "zram0");
        // What "compressible" meant, measured on the data written.
        let f = m["outcome"]["compressed_fraction"].as_f64().unwrap();
        assert!(
            (f - 0.25).abs() < 0.05,
            "compressible data compressed to {f}"
        );
    }
}

#[test]
fn replays_a_trace_on_a_block_device() {
    let trace = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/traces/mqsim-tpcc-small.trace");
    if !trace.exists() {
        eprintln!("skipped: {} is not here", trace.display());
        return;
    }
    let Some(dev) = Loop::new(64 << 20) else {
        return;
    };
    let lab = TestLab::new();
    lab.write(
        "suites/r.yaml",
        &format!("name: r\ntitle: R\ntests:\n  - {{id: play, title: P, kind: replay, trace: {}, queue_depth: 8, span: full, metric: iops}}\n", trace.display()),
    );
    drive(&lab, "blank", &dev.dev, "");
    let out = lab.roundup(&["run"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let m = lab.path().join("results/drive=blank/firmware=unknown/suite=r/test=play/variant=base/repeat=1/manifest.json");
    let m: serde_json::Value = serde_json::from_slice(&fs::read(m).unwrap()).unwrap();
    assert_eq!(m["outcome"]["replay"]["issued"], 6999);
    assert_eq!(m["target"]["kind"], "block_device");
}

/// The bytes zram holds (before compression): the first field of its `mm_stat`.
fn zram_stored() -> u64 {
    let stat = fs::read_to_string("/sys/block/zram0/mm_stat").unwrap();
    stat.split_whitespace().next().unwrap().parse().unwrap()
}

#[test]
fn a_replayed_trim_discards_on_zram_with_both_engines() {
    let Some(_zram) = Zram::new(64 << 20) else {
        return;
    };
    let lab = TestLab::new();
    lab.write("traces/t.log", &fio_log(written_flushed_half_trimmed()));
    lab.write(
        "suites/r.yaml",
        "name: r\ntitle: R\ntests:\n  - {id: play, title: P, kind: replay, trace: traces/t.log, queue_depth: 4, span: full, metric: iops}\n",
    );
    drive(&lab, "zram", "/dev/zram0", "");
    for engine in ["io_uring", "psync"] {
        let m = run_with(
            &lab,
            engine,
            "drive=zram/firmware=unknown/suite=r/test=play/variant=base",
        );
        let r = &m["outcome"]["replay"];
        assert_eq!(
            (&r["issued"], &r["trims"], &r["flushes"]),
            (&256.into(), &1.into(), &1.into()),
            "{r}"
        );
        // Only the half that was not trimmed is still stored.
        assert_eq!(zram_stored(), 524288, "{engine}");
    }
}

/// zram's `mm_stat` fields: (bytes stored before compression, after, pages of one repeated
/// word, zeros among them).
fn zram_mm_stat() -> (u64, u64, u64) {
    let stat = fs::read_to_string("/sys/block/zram0/mm_stat").unwrap();
    let f: Vec<u64> = stat
        .split_whitespace()
        .map(|w| w.parse().unwrap())
        .collect();
    (f[0], f[1], f[5])
}

#[test]
fn a_replay_writes_its_tests_data_to_zram() {
    // A trace records where and how much, not what: the replay writes the test's `data`
    // (it wrote zeros before db0d20d, which zram keeps as same-filled pages, compressing
    // nothing). zram compresses what it is given: an anchor outside roundup.
    let Some(_zram) = Zram::new(64 << 20) else {
        return;
    };
    let lab = TestLab::new();
    let writes = (0..256u64).map(|i| (0, "write", i * 4096, 4096));
    lab.write("traces/t.log", &fio_log(writes));
    drive(&lab, "zram", "/dev/zram0", "");
    for (engine, data) in [
        ("io_uring", "incompressible"),
        ("psync", "compressible"),
        ("io_uring", "compressible"),
        ("psync", "incompressible"),
    ] {
        lab.write(
            "suites/r.yaml",
            &format!("name: r\ntitle: R\ntests:\n  - {{id: play, title: P, kind: replay, trace: traces/t.log, queue_depth: 4, span: full, metric: iops, data: {data}}}\n"),
        );
        run_with(
            &lab,
            engine,
            "drive=zram/firmware=unknown/suite=r/test=play/variant=base",
        );
        let (stored, compressed, same) = zram_mm_stat();
        assert_eq!((stored, same), (1 << 20, 0), "{engine} {data}");
        let ratio = compressed as f64 / stored as f64;
        if data == "incompressible" {
            assert!(ratio > 0.9, "{engine} {data}: zram kept {ratio:.2}");
        } else {
            assert!(ratio < 0.6, "{engine} {data}: zram kept {ratio:.2}");
        }
    }
}
