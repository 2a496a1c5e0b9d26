//! Merging results folders (from shards of a run, or from other labs and benches) into one:
//! every source checked first (each job's samples against its manifest's SHA-256), every
//! conflict found, and only then anything copied, a job's files under temporary names and
//! its manifest last, so a merge stopped half-way leaves no job half-written.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

use super::{is_stale_temp, scan, temp_name, StoredJob, MANIFEST};

/// Which side wins when two folders hold the same job with other content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Prefer {
    /// The job that finished last (its manifest's `finished_at`, else the manifest file's
    /// modification time).
    Newer,
    /// The job from this results folder (a source, or the destination).
    Dir(PathBuf),
}

/// What a merge did.
#[derive(Debug, Default, Clone, PartialEq, Eq, serde::Serialize)]
pub struct MergeReport {
    /// Jobs copied in that the destination did not have (their folders, relative).
    pub added: Vec<String>,
    /// Jobs the destination had with other content, replaced as `--prefer` said.
    pub replaced: Vec<String>,
    /// Jobs already there with the same content (plan hash and samples), left as they are.
    pub identical: usize,
    /// Conflicting jobs where the destination's was kept as `--prefer` said.
    pub kept: usize,
}

/// A job found in one folder.
#[derive(Debug, Clone)]
struct Found {
    /// The results folder it is in.
    root: PathBuf,
    job: StoredJob,
}

impl Found {
    /// What makes two copies of a job the same: its plan and its samples (rows, histogram).
    fn content(&self) -> (&str, &str, Option<&str>) {
        let m = &self.job.manifest;
        (
            &m.plan_hash,
            &m.samples_sha256,
            m.histogram.as_ref().map(|h| h.sha256.as_str()),
        )
    }

    fn finished(&self) -> (Option<String>, Option<std::time::SystemTime>) {
        let mtime = fs::metadata(self.job.dir.join(MANIFEST))
            .and_then(|m| m.modified())
            .ok();
        (self.job.manifest.finished_at.clone(), mtime)
    }
}

/// The complete jobs of a results folder by their folder (relative), each checked: a
/// manifest that does not read, samples missing or not the bytes the manifest hashed, are
/// problems naming the file.
fn read_folder(root: &Path, problems: &mut Vec<String>) -> BTreeMap<PathBuf, Found> {
    let (jobs, found_problems) = scan(root);
    problems.extend(found_problems);
    let mut out = BTreeMap::new();
    for job in jobs {
        let damaged = job.check_files();
        if !damaged.is_empty() {
            problems.extend(damaged.into_iter().map(|p| format!("{p}; refused")));
            continue;
        }
        let rel = job.dir.strip_prefix(root).unwrap_or(&job.dir).to_path_buf();
        out.insert(
            rel,
            Found {
                root: root.to_path_buf(),
                job,
            },
        );
    }
    out
}

/// Which of two different copies of a job wins, or `None` when `prefer` does not say.
fn winner<'a>(a: &'a Found, b: &'a Found, prefer: Option<&Prefer>) -> Option<&'a Found> {
    match prefer? {
        Prefer::Dir(d) if same_dir(&a.root, d) => Some(a),
        Prefer::Dir(d) if same_dir(&b.root, d) => Some(b),
        Prefer::Dir(_) => None,
        Prefer::Newer => Some(if b.finished() > a.finished() { b } else { a }),
    }
}

fn same_dir(a: &Path, b: &Path) -> bool {
    match (fs::canonicalize(a), fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
}

/// Merges the results folders `sources` into `dest`. Identical jobs are skipped; a job held
/// with other content in two places is an error naming both, unless `prefer` picks one.
/// Nothing is copied unless every source reads whole and every conflict is settled.
pub fn merge(dest: &Path, sources: &[PathBuf], prefer: Option<&Prefer>) -> Result<MergeReport> {
    let mut problems = Vec::new();
    for s in sources {
        if !s.is_dir() {
            problems.push(format!("{}: not a results folder", s.display()));
        } else if same_dir(s, dest) {
            problems.push(format!(
                "{}: is the destination; name only the folders to merge in",
                s.display()
            ));
        }
    }
    let existing = read_folder(dest, &mut problems);
    let mut chosen: BTreeMap<PathBuf, Found> = BTreeMap::new();
    for source in sources.iter().filter(|s| s.is_dir()) {
        for (rel, found) in read_folder(source, &mut problems) {
            match chosen.get(&rel) {
                Some(earlier) if earlier.content() == found.content() => {}
                Some(earlier) => match winner(earlier, &found, prefer) {
                    Some(w) => {
                        let w = w.clone();
                        chosen.insert(rel, w);
                    }
                    None => problems.push(conflict(earlier, &found)),
                },
                None => {
                    chosen.insert(rel, found);
                }
            }
        }
    }
    let mut report = MergeReport::default();
    let mut copies: Vec<(PathBuf, Found, bool)> = Vec::new();
    for (rel, found) in chosen {
        match existing.get(&rel) {
            Some(there) if there.content() == found.content() => report.identical += 1,
            Some(there) => match winner(there, &found, prefer) {
                Some(w) if std::ptr::eq(w, there) => report.kept += 1,
                Some(_) => copies.push((rel, found, true)),
                None => problems.push(conflict(there, &found)),
            },
            None => copies.push((rel, found, false)),
        }
    }
    if !problems.is_empty() {
        problems.sort();
        problems.dedup();
        return Err(Error::Merge(problems));
    }
    for (rel, found, replaces) in copies {
        copy_job(&found.job.dir, &dest.join(&rel))?;
        let name = rel.display().to_string();
        if replaces {
            report.replaced.push(name);
        } else {
            report.added.push(name);
        }
    }
    Ok(report)
}

fn conflict(a: &Found, b: &Found) -> String {
    format!(
        "job {} differs between {} and {} (other plan or samples); choose with \
         --prefer newer or --prefer DIR",
        a.job.manifest.job,
        a.job.dir.display(),
        b.job.dir.display()
    )
}

/// Copies one job's folder: the destination's manifest removed first (the job incomplete
/// from then on), every other file copied under a temporary name and renamed, files the
/// source does not have removed, and the manifest copied last.
fn copy_job(from: &Path, to: &Path) -> Result<()> {
    fs::create_dir_all(to).map_err(|e| Error::io(to, e))?;
    super::invalidate(to)?;
    let mut names: Vec<String> = fs::read_dir(from)
        .map_err(|e| Error::io(from, e))?
        .flatten()
        .filter(|e| e.path().is_file())
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|n| !n.starts_with('.') && n != MANIFEST)
        .collect();
    names.sort();
    for old in fs::read_dir(to).map_err(|e| Error::io(to, e))?.flatten() {
        let name = old.file_name().to_string_lossy().to_string();
        let stale = is_stale_temp(&name) || (!name.starts_with('.') && !names.contains(&name));
        if stale && old.path().is_file() {
            fs::remove_file(old.path()).map_err(|e| Error::io(old.path(), e))?;
        }
    }
    for name in names.iter().map(String::as_str).chain([MANIFEST]) {
        copy_file(&from.join(name), &to.join(name))?;
    }
    Ok(())
}

/// Copies a file through a temporary name in the destination folder, synced and renamed.
fn copy_file(from: &Path, to: &Path) -> Result<()> {
    let tmp = temp_name(to);
    let result = (|| {
        fs::copy(from, &tmp)?;
        fs::File::open(&tmp)?.sync_all()?;
        fs::rename(&tmp, to)
    })();
    if let Err(e) = result {
        let _ = fs::remove_file(&tmp);
        return Err(Error::io(to, e));
    }
    Ok(())
}
