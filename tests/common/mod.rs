//! Builds small labs in temporary folders for the integration tests.
#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub const SIM_DRIVE: &str = "id: {id}\nvendor: Acme\nmodel: {model}\ncapacity: 16GB\ncontroller: Acme C1\nfirmware: \"{fw}\"\nsim:\n  model: simple\n  units: {units}\n  stripe: 4KiB\n  read_latency: 50us\n  write_latency: 200us\n  read_rate: 100MB/s\n  write_rate: 40MB/s\n  link_rate: 280MB/s\n  command_overhead: 20us\n";

/// The fenced blocks of the repository's `docs/NAME` whose fence names `lang` (```sql, ```sh),
/// in order: what a page shows, for a test to run.
pub fn doc_blocks(name: &str, lang: &str) -> Vec<String> {
    let doc = fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("docs")
            .join(name),
    )
    .unwrap();
    doc.split(&format!("```{lang}\n"))
        .skip(1)
        .map(|b| b.split("```").next().unwrap().to_string())
        .collect()
}

/// The shipped `suites/NAME.yaml` made short enough for a test: runs of 150 ms, 200 ms of
/// idle between tests, a 16 MiB test file; every other key as shipped.
pub fn shortened_suite(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("suites/{name}.yaml"));
    let text = std::fs::read_to_string(path).unwrap();
    for key in ["duration: 5s", "interval: 5s", "span: 1GiB"] {
        assert!(
            text.contains(key),
            "suites/{name}.yaml no longer has {key:?}"
        );
    }
    text.replace("duration: 5s", "duration: 150ms")
        .replace("interval: 5s", "interval: 200ms")
        .replace("span: 1GiB", "span: 16MiB")
}

pub const TINY_SUITE: &str = "name: tiny\ntitle: Tiny suite\nseed: 7\ntests:\n  - id: random-write-4k\n    title: 4KB Random Write\n    operation: write\n    pattern: random\n    block_size: 4KiB\n    span: 16MiB\n    queue_depth: 4\n    count: 2000\n    metric: mb_per_s\n    variants:\n      data: [compressible, incompressible]\n  - id: sequential-read-128k\n    title: 128KB Sequential Read\n    operation: read\n    pattern: sequential\n    block_size: 128KiB\n    span: full\n    queue_depth: 1\n    count: 200\n    metric: mb_per_s\n";

/// A lab folder with the given suites and drives.
pub struct TestLab {
    pub dir: tempfile::TempDir,
}

impl TestLab {
    pub fn new() -> TestLab {
        let dir = tempfile::tempdir().expect("temp dir");
        for d in ["suites", "drives", "commentary"] {
            fs::create_dir_all(dir.path().join(d)).unwrap();
        }
        TestLab { dir }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn write(&self, rel: &str, text: &str) -> &Self {
        let p = self.path().join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
        self
    }

    pub fn sim_drive(&self, id: &str, model: &str, fw: &str, units: u32) -> &Self {
        let text = SIM_DRIVE
            .replace("{id}", id)
            .replace("{model}", model)
            .replace("{fw}", fw)
            .replace("{units}", &units.to_string());
        self.write(&format!("drives/{id}.yaml"), &text)
    }

    /// A simulated drive reporting `logical_block` (e.g. `4KiB`), striped by the same size.
    pub fn sim_drive_with_block(&self, id: &str, logical_block: &str) -> &Self {
        let text = SIM_DRIVE
            .replace("{id}", id)
            .replace("{model}", id)
            .replace("{fw}", "1")
            .replace("{units}", "4")
            .replace("stripe: 4KiB", &format!("stripe: {logical_block}"))
            .replace(
                "  command_overhead: 20us\n",
                &format!("  command_overhead: 20us\n  logical_block: {logical_block}\n"),
            );
        self.write(&format!("drives/{id}.yaml"), &text)
    }

    /// Copies the repository's `drives/{id}.yaml` into the lab; returns its text.
    pub fn repo_drive(&self, id: &str) -> String {
        let text = repo_drive_file(id);
        self.write(&format!("drives/{id}.yaml"), &text);
        text
    }

    pub fn file_drive(&self, id: &str, size: &str) -> PathBuf {
        let target = self.path().join(format!("{id}.img"));
        self.write(
            &format!("drives/{id}.yaml"),
            &format!("id: {id}\nvendor: Test\nmodel: Scratch file\ncapacity: {size}\npath: {}\nsize: {size}\n", target.display()),
        );
        target
    }

    /// A drive on a 32 MiB file roundup did not create (every byte 7), with no `size:` or
    /// `overwrite:`: roundup may read it but must not write it.
    pub fn foreign_file_drive(&self, id: &str) -> PathBuf {
        let target = self.path().join(format!("{id}.img"));
        fs::write(&target, vec![7u8; 32 << 20]).unwrap();
        self.write(
            &format!("drives/{id}.yaml"),
            &format!(
                "id: {id}\nvendor: V\nmodel: M\ncapacity: 32MiB\npath: {}\n",
                target.display()
            ),
        );
        target
    }

    /// The manifests in the lab's results (paths under `results/`), one a stored job.
    pub fn stored_manifests(&self) -> Vec<PathBuf> {
        files(&self.path().join("results"))
            .into_iter()
            .filter(|p| p.ends_with("manifest.json"))
            .collect()
    }

    /// How many jobs have a manifest in the lab's results.
    pub fn stored_jobs(&self) -> usize {
        self.stored_manifests().len()
    }

    /// Runs the roundup binary in this lab.
    pub fn roundup(&self, args: &[&str]) -> Output {
        self.roundup_env(&[], args)
    }

    /// `roundup` with these environment variables set.
    pub fn roundup_env(&self, env: &[(&str, &str)], args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_roundup"))
            .envs(env.iter().copied())
            .arg("--lab")
            .arg(self.path())
            .args(args)
            .output()
            .expect("run roundup")
    }
}

/// The text of drive `id`'s file in the repository's drives/.
pub fn repo_drive_file(id: &str) -> String {
    fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("drives/{id}.yaml")))
        .unwrap()
}

/// Drive `id`'s file in the repository with each `(from, to)` edit made (a sibling's or a
/// variant's facts); every `from` must occur in it exactly once, so an edit the drive file
/// no longer matches, or matches twice, fails the test instead of testing another drive.
pub fn repo_drive_edited<T: AsRef<str>>(id: &str, edits: &[(&str, T)]) -> String {
    let mut text = repo_drive_file(id);
    for (from, to) in edits {
        assert_eq!(
            text.matches(from).count(),
            1,
            "drives/{id}.yaml should hold `{from}` once"
        );
        text = text.replace(from, to.as_ref());
    }
    text
}

/// The text of suite `name`'s file in the repository's suites/.
pub fn repo_suite_file(name: &str) -> String {
    fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("suites/{name}.yaml")))
        .unwrap()
}

/// Says a test is skipped for want of a tool `.ci/run` installs (Chromium, fio, node's and
/// Python's packages). Under `.ci/run`, which sets `ROUNDUP_TOOLS_INSTALLED`, the tool's
/// absence fails the test instead: a skip there would pass having checked nothing.
pub fn skip_without_tool(why: &str) {
    assert!(
        std::env::var_os("ROUNDUP_TOOLS_INSTALLED").is_none(),
        "{why}, which .ci/run installs (ROUNDUP_TOOLS_INSTALLED is set)"
    );
    eprintln!("skipped: {why}");
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).to_string()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

/// Every file under `dir`, relative, sorted.
pub fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        if let Ok(entries) = fs::read_dir(&d) {
            for e in entries.flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                } else {
                    out.push(p.strip_prefix(dir).unwrap().to_path_buf());
                }
            }
        }
    }
    out.sort();
    out
}

/// Reads a samples or trace Parquet file with polars (as the store does: no hive parsing).
pub fn read_parquet(path: &Path) -> polars::prelude::DataFrame {
    use polars::prelude::*;
    ParquetReader::new(std::fs::File::open(path).unwrap())
        .finish()
        .unwrap()
}

/// A fio iolog (version 3) trace of file `t`: one line per `(ms, action, offset, length)`.
pub fn fio_log(lines: impl IntoIterator<Item = (u64, &'static str, u64, u64)>) -> String {
    let mut log = String::from("fio version 3 iolog\n0 t add\n0 t open\n");
    // fio's version 3 times are microseconds.
    for (ms, action, offset, len) in lines {
        log += &format!("{} t {action} {offset} {len}\n", ms * 1000);
    }
    log
}

/// 1 MiB written in 4 KiB writes at 0 ms, then at 1 ms a flush and a trim of its first
/// half.
pub fn written_flushed_half_trimmed() -> impl Iterator<Item = (u64, &'static str, u64, u64)> {
    (0..256)
        .map(|i| (0, "write", i * 4096, 4096))
        .chain([(1, "sync", 0, 0), (1, "trim", 0, 524288)])
}
