//! The fio program: found on PATH, its version checked, a job file run on this machine or
//! on a bench (`fio --client`, a machine running `fio --server`), its JSON output and
//! per-I/O logs left in a folder of this machine.

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::drive::Bench;
use crate::error::{Error, Result, TargetError};

/// The oldest fio roundup drives: 3.20 (2020) has every option its job files use
/// (io_uring, `lat_percentiles`, `log_offset`, `number_ios`, `replay_time_scale`).
pub const MIN_VERSION: (u32, u32) = (3, 20);

/// The name of fio's JSON output in a job's folder.
pub const OUTPUT: &str = "fio.json";
/// The name of the job file in a job's folder.
pub const JOB_FILE: &str = "job.fio";

/// A version of fio, as `fio --version` prints it (`fio-3.33`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FioVersion {
    /// What fio printed, e.g. `fio-3.33`.
    pub text: String,
    /// Major and minor number.
    pub number: (u32, u32),
}

impl FioVersion {
    /// Reads `fio-3.33`, `fio-3.33-12-gabcdef` or `3.33`.
    pub fn parse(text: &str) -> Option<FioVersion> {
        let t = text.trim();
        let digits = t.strip_prefix("fio-").unwrap_or(t);
        let mut parts = digits.split(['.', '-']);
        let major = parts.next()?.parse().ok()?;
        let minor = parts.next()?.parse().ok()?;
        Some(FioVersion {
            text: t.to_string(),
            number: (major, minor),
        })
    }

    /// An error unless this version is at least [`MIN_VERSION`].
    fn check(self, where_: &str) -> Result<FioVersion> {
        if self.number < MIN_VERSION {
            return Err(fio_error(
                where_,
                format!(
                    "{} is too old: roundup needs fio {}.{} or newer",
                    self.text, MIN_VERSION.0, MIN_VERSION.1
                ),
            ));
        }
        Ok(self)
    }
}

/// Where a job file runs: `fio on this machine` or `bench HOST:PORT`, as errors name it.
pub fn place(bench: Option<&Bench>) -> String {
    match bench {
        Some(b) => format!("bench {b}"),
        None => "fio on this machine".into(),
    }
}

fn fio_error(where_: &str, message: String) -> Error {
    TargetError::Fio {
        where_: where_.into(),
        message,
    }
    .into()
}

/// The fio on this machine's PATH (checked once per process).
pub fn local_version() -> Result<FioVersion> {
    static FOUND: std::sync::OnceLock<std::result::Result<FioVersion, String>> =
        std::sync::OnceLock::new();
    let found = FOUND.get_or_init(|| {
        let out = Command::new("fio")
            .arg("--version")
            .stdin(Stdio::null())
            .output()
            .map_err(|e| {
                format!("cannot run `fio` ({e}); install fio (Debian: apt-get install fio)")
            })?;
        let text = String::from_utf8_lossy(&out.stdout);
        FioVersion::parse(&text)
            .ok_or_else(|| format!("`fio --version` printed {:?}, not a version", text.trim()))
    });
    let here = place(None);
    match found {
        Ok(v) => v.clone().check(&here),
        Err(e) => Err(fio_error(&here, e.clone())),
    }
}

/// Whether `bench` answers, and its fio's version: a job of a few I/Os on fio's `null`
/// engine, which touches no file. A bench that answered is asked once per process (each
/// question costs fio's client about a second).
pub fn bench_version(bench: &Bench) -> Result<FioVersion> {
    static ANSWERED: std::sync::Mutex<std::collections::BTreeMap<Bench, FioVersion>> =
        std::sync::Mutex::new(std::collections::BTreeMap::new());
    if let Some(v) = ANSWERED.lock().ok().and_then(|m| m.get(bench).cloned()) {
        return Ok(v);
    }
    let v = ask_version(bench)?;
    if let Ok(mut m) = ANSWERED.lock() {
        m.insert(bench.clone(), v.clone());
    }
    Ok(v)
}

fn ask_version(bench: &Bench) -> Result<FioVersion> {
    local_version()?;
    let dir = ScratchDir::new("probe")?;
    let job = "[probe]\nioengine=null\nsize=1m\nbs=4k\nrw=read\n";
    let never = AtomicBool::new(false);
    let json = run(&dir.path, job, Some(bench), &never)?;
    let value: serde_json::Value = serde_json::from_str(&json)
        .map_err(|e| fio_error(&place(Some(bench)), format!("unreadable JSON output: {e}")))?;
    let text = value["fio version"].as_str().unwrap_or_default();
    FioVersion::parse(text)
        .ok_or_else(|| {
            fio_error(
                &place(Some(bench)),
                format!("the server's output names no fio version ({text:?})"),
            )
        })?
        .check(&place(Some(bench)))
}

/// A folder of this machine's temporary directory for one run of fio, removed when dropped.
pub struct ScratchDir {
    /// The folder.
    pub path: PathBuf,
}

impl ScratchDir {
    /// Makes `roundup-fio-PID-N-WHAT` in the temporary directory.
    pub fn new(what: &str) -> Result<ScratchDir> {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let path =
            std::env::temp_dir().join(format!("roundup-fio-{}-{n}-{what}", std::process::id()));
        std::fs::create_dir_all(&path).map_err(|e| Error::io(&path, e))?;
        Ok(ScratchDir { path })
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// Runs `job` (a job file's text) with fio, on this machine or on `bench`, in `dir`: the job
/// file is written there as [`JOB_FILE`], fio's JSON output goes to [`OUTPUT`] (and is
/// returned, without the lines a client prints before it), and the logs the job file names
/// are written where it says (a client writes a bench's logs on this machine, their names
/// ending in the bench's address). Ctrl-C (`stop`) kills fio and returns
/// [`Error::Interrupted`].
pub fn run(dir: &Path, job: &str, bench: Option<&Bench>, stop: &AtomicBool) -> Result<String> {
    run_watched(dir, job, bench, stop, &|_| {})
}

/// [`run`], telling `waited` how long fio has run, a few times a second (a progress bar's
/// ticks).
pub fn run_watched(
    dir: &Path,
    job: &str,
    bench: Option<&Bench>,
    stop: &AtomicBool,
    waited: &dyn Fn(Duration),
) -> Result<String> {
    local_version()?;
    let where_ = place(bench);
    let job_path = dir.join(JOB_FILE);
    let output = dir.join(OUTPUT);
    std::fs::write(&job_path, job).map_err(|e| Error::io(&job_path, e))?;
    let mut cmd = Command::new("fio");
    cmd.arg("--output-format=json")
        .arg(format!("--output={}", output.display()))
        .arg("--eta=never");
    if let Some(b) = bench {
        cmd.arg(format!("--client={}", b.fio_client()));
    }
    cmd.arg(&job_path)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd
        .spawn()
        .map_err(|e| fio_error(&where_, format!("cannot run `fio` ({e})")))?;
    // fio's messages (a client's on standard output, errors on standard error), read as it
    // runs so that it never blocks on a full pipe.
    let read = |pipe: Option<Box<dyn std::io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            if let Some(mut p) = pipe {
                let _ = p.read_to_string(&mut text);
            }
            text
        })
    };
    let out_reader = read(child.stdout.take().map(|p| Box::new(p) as _));
    let err_reader = read(child.stderr.take().map(|p| Box::new(p) as _));
    let started = std::time::Instant::now();
    let mut told = Duration::ZERO;
    let status = loop {
        let elapsed = started.elapsed();
        if elapsed >= told + Duration::from_millis(250) {
            waited(elapsed);
            told = elapsed;
        }
        if stop.load(Ordering::Relaxed) {
            let _ = child.kill();
            let _ = child.wait();
            return Err(Error::Interrupted);
        }
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(fio_error(&where_, format!("cannot wait for fio ({e})"))),
        }
    };
    let messages = out_reader.join().unwrap_or_default() + &err_reader.join().unwrap_or_default();
    let printed = std::fs::read_to_string(&output).unwrap_or_default();
    if !status.success() {
        let said = match json_part(&printed) {
            Some(json) => format!("{messages}\n{}", &printed[..printed.len() - json.len()]),
            None => format!("{messages}\n{printed}"),
        };
        return Err(failure(bench, &where_, &said));
    }
    json_part(&printed).map(str::to_string).ok_or_else(|| {
        fio_error(
            &where_,
            format!(
                "fio wrote no JSON to {} ({})",
                output.display(),
                last_lines(&messages, 3)
            ),
        )
    })
}

/// The error for a run of fio that failed: a bench that did not answer or went away is
/// named as such; otherwise fio's own last words (a job it rejected).
fn failure(bench: Option<&Bench>, where_: &str, said: &str) -> Error {
    let lost = [
        "failed to connect",
        "Connection refused",
        "disconnected",
        "connect:",
    ]
    .iter()
    .any(|m| said.contains(m));
    match bench {
        Some(b) if lost => TargetError::Bench {
            bench: b.to_string(),
            message: format!(
                "the fio server does not answer or stopped answering ({})",
                last_lines(said, 1)
            ),
        }
        .into(),
        _ => fio_error(where_, format!("fio failed: {}", last_lines(said, 3))),
    }
}

/// The last `n` non-empty lines of what fio said, on one line.
fn last_lines(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('{') && !l.starts_with('}'))
        .collect();
    let tail = &lines[lines.len().saturating_sub(n)..];
    if tail.is_empty() {
        "it said nothing".into()
    } else {
        tail.join("; ")
    }
}

/// The JSON document in fio's output: a client prints the servers' text lines before it.
pub fn json_part(printed: &str) -> Option<&str> {
    if printed.starts_with('{') {
        return Some(printed);
    }
    printed.find("\n{").map(|i| &printed[i + 1..])
}

/// The per-I/O latency logs fio wrote for a job whose `write_lat_log` is `prefix` in `dir`
/// (`PREFIX_lat.N.log`, with the bench's address after `.log` from a client), sorted by
/// job number.
pub fn latency_logs(dir: &Path, prefix: &str) -> Result<Vec<PathBuf>> {
    let start = format!("{prefix}_lat.");
    let mut found: Vec<(u32, PathBuf)> = Vec::new();
    let entries = std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))?;
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        let Some(rest) = name.strip_prefix(&start) else {
            continue;
        };
        let Some((n, _)) = rest.split_once(".log") else {
            continue;
        };
        if let Ok(n) = n.parse::<u32>() {
            found.push((n, e.path()));
        }
    }
    found.sort();
    Ok(found.into_iter().map(|(_, p)| p).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_read_as_fio_prints_them() {
        assert_eq!(FioVersion::parse("fio-3.33\n").unwrap().number, (3, 33));
        assert_eq!(
            FioVersion::parse("fio-3.36-12-gabcdef").unwrap().number,
            (3, 36)
        );
        assert!(FioVersion::parse("fio").is_none());
        assert!(FioVersion::parse("fio-3.19")
            .unwrap()
            .check("here")
            .is_err());
    }

    #[test]
    fn a_clients_text_before_the_json_is_skipped() {
        let out = "<vm> Starting 1 process\n\n{\n \"fio version\" : \"fio-3.33\"\n}\n";
        assert!(json_part(out).unwrap().starts_with('{'));
        assert_eq!(json_part("{}"), Some("{}"));
        assert_eq!(json_part("no json"), None);
    }
}
