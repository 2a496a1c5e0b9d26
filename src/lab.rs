//! The lab: a folder of suites, drives and commentary, and where results and the site go.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use sha2::{Digest, Sha256};

use crate::commentary::Commentary;
use crate::config::from_yaml;
use crate::drive::DriveSpec;
use crate::error::{Error, InputError, Result};
use crate::suite::Suite;

/// A parsed input file with the provenance the manifest records.
#[derive(Debug, Clone)]
pub struct Loaded<T> {
    /// The parsed content.
    pub spec: T,
    /// Path relative to the lab root.
    pub file: PathBuf,
    /// SHA-256 of the file's bytes, hex.
    pub sha256: String,
}

/// A loaded, validated lab.
#[derive(Debug, Clone)]
pub struct Lab {
    /// The lab folder.
    pub root: PathBuf,
    /// Suites by name.
    pub suites: BTreeMap<String, Loaded<Suite>>,
    /// Drives by id.
    pub drives: BTreeMap<String, Loaded<DriveSpec>>,
    /// Commentary files by page id (their path under commentary/ without `.md`).
    pub commentary: BTreeMap<String, Loaded<Commentary>>,
}

/// Hex SHA-256 of a file's content, read in pieces (samples files can be large).
pub fn sha256_file(path: &Path) -> std::io::Result<String> {
    let mut hasher = Sha256::new();
    std::io::copy(&mut fs::File::open(path)?, &mut hasher)?;
    Ok(hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

/// Hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

impl Lab {
    /// Loads and validates every suite, drive and commentary file; all problems found are
    /// returned together.
    pub fn load(root: &Path) -> Result<Lab> {
        if !root.is_dir() {
            return Err(Error::Input(vec![InputError::new(
                root,
                "",
                "expected a lab folder (with suites/ and drives/), found none",
            )]));
        }
        let mut errors = Vec::new();
        let suites = load_dir::<Suite>(root, "suites", &mut errors, |s| s.name.0.clone());
        let drives = load_dir::<DriveSpec>(root, "drives", &mut errors, |d| d.id.0.clone());
        for s in suites.values() {
            let mut seen = std::collections::BTreeSet::new();
            for (i, t) in s.spec.tests.iter().enumerate() {
                if !seen.insert(t.id.0.clone()) {
                    errors.push(InputError::new(
                        &s.file,
                        format!("tests[{i}].id"),
                        format!("expected a unique test id, found {:?} twice", t.id.0),
                    ));
                }
            }
            if s.spec.tests.is_empty() {
                errors.push(InputError::new(
                    &s.file,
                    "tests",
                    "expected at least one test",
                ));
            }
        }
        let commentary = crate::commentary::load_all(root, &mut errors);
        if !errors.is_empty() {
            errors.sort_by(|a, b| (&a.file, a.line, a.column).cmp(&(&b.file, b.line, b.column)));
            return Err(Error::Input(errors));
        }
        Ok(Lab {
            root: root.to_path_buf(),
            suites,
            drives,
            commentary,
        })
    }

    /// `results/` of the lab.
    pub fn results_dir(&self) -> PathBuf {
        self.root.join("results")
    }
    /// `site/` of the lab.
    pub fn site_dir(&self) -> PathBuf {
        self.root.join("site")
    }
}

/// Reads every `*.yaml` file in `root/dir`, in name order; the id of each must match its
/// file name.
fn load_dir<T: DeserializeOwned>(
    root: &Path,
    dir: &str,
    errors: &mut Vec<InputError>,
    id_of: impl Fn(&T) -> String,
) -> BTreeMap<String, Loaded<T>> {
    let mut out = BTreeMap::new();
    let folder = root.join(dir);
    let entries = match fs::read_dir(&folder) {
        Ok(e) => e,
        Err(e) => {
            errors.push(InputError::new(
                dir,
                "",
                format!("expected a folder of YAML files: {e}"),
            ));
            return out;
        }
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "yaml" || x == "yml"))
        .collect();
    files.sort();
    for path in files {
        let rel = path.strip_prefix(root).unwrap_or(&path).to_path_buf();
        let bytes = match fs::read(&path) {
            Ok(b) => b,
            Err(e) => {
                errors.push(InputError::new(&rel, "", format!("cannot read: {e}")));
                continue;
            }
        };
        let Ok(text) = std::str::from_utf8(&bytes) else {
            errors.push(InputError::new(&rel, "", "expected UTF-8 text"));
            continue;
        };
        match from_yaml::<T>(&rel, text) {
            Ok(spec) => {
                let id = id_of(&spec);
                let stem = path
                    .file_stem()
                    .map(|s| s.to_string_lossy().to_string())
                    .unwrap_or_default();
                if id != stem {
                    let key = if dir == "suites" { "name" } else { "id" };
                    errors.push(
                        InputError::new(
                            &rel,
                            key,
                            format!("expected {stem:?} (the file name), found {id:?}"),
                        )
                        .at(1, 1),
                    );
                    continue;
                }
                out.insert(
                    id,
                    Loaded {
                        spec,
                        file: rel,
                        sha256: sha256_hex(&bytes),
                    },
                );
            }
            Err(e) => errors.push(e),
        }
    }
    out
}
