//! The lab: a folder of suites, drives and commentary, and where results and the site go.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;

use crate::commentary::Commentary;
use crate::config::{from_yaml, sha256_hex, utf8_text, Loaded};
use crate::drive::DriveSpec;
use crate::error::{Error, InputError, Result};
use crate::suite::Suite;
use crate::units::SizeLabel;
use crate::workload::{Span, TraceInput};

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
    /// `review.yaml`: what the site shows beyond the suite and drive pages, if present.
    pub review: Option<Loaded<Review>>,
}

/// `review.yaml` in the lab root: the review's own choices for the site.
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Review {
    /// Pairs of drive ids, each given a drive-vs-drive page (the first as a share of the
    /// second), e.g. `[kingston-v-plus-128, gskill-titan-256]`.
    #[serde(default)]
    pub compare: Vec<[String; 2]>,
}

/// Reads `review.yaml` if the lab has one; each drive it names must have a file in drives/.
fn load_review(
    root: &Path,
    drives: &BTreeMap<String, Loaded<DriveSpec>>,
    errors: &mut Vec<InputError>,
) -> Option<Loaded<Review>> {
    let rel = PathBuf::from("review.yaml");
    let path = root.join(&rel);
    let bytes = fs::read(&path).ok()?;
    let text = match utf8_text(&rel, &bytes) {
        Ok(text) => text,
        Err(e) => {
            errors.push(e);
            return None;
        }
    };
    let spec: Review = match from_yaml(&rel, text) {
        Ok(r) => r,
        Err(e) => {
            errors.push(e);
            return None;
        }
    };
    for (i, pair) in spec.compare.iter().enumerate() {
        // At the pair's own line (an id may be named on others too), and where the error
        // is of one id, at its column there (the second's after the comma).
        let at = |field: String, id: Option<(usize, &str)>, message: String| {
            let e = crate::config::at_key(InputError::new(&rel, field, message).at(1, 1), text);
            match id {
                Some((0, id)) => at_column(e, text, id, ""),
                Some((_, id)) => at_column(e, text, id, ","),
                None => e,
            }
        };
        for (k, id) in pair.iter().enumerate() {
            if !drives.contains_key(id) {
                let known: Vec<&str> = drives.keys().map(String::as_str).collect();
                let hint = crate::config::suggest(id, known.iter().copied())
                    .map(|hint| format!("; {hint}"))
                    .unwrap_or_default();
                errors.push(at(
                    format!("compare[{i}][{k}]"),
                    Some((k, id)),
                    format!(
                        "expected the id of a drive in drives/, found {id:?} (known: {}{hint})",
                        known.join(", ")
                    ),
                ));
            }
        }
        if pair[0] == pair[1] {
            errors.push(at(
                format!("compare[{i}]"),
                None,
                format!("expected two different drives, found {:?} twice", pair[0]),
            ));
        }
    }
    Some(Loaded {
        spec,
        file: rel,
        sha256: sha256_hex(&bytes),
    })
}

/// `e` at the column of `needle` on its line, the first after `after` there (from the
/// line's start if `after` is empty); where it is not there, `e` as it was.
fn at_column(e: InputError, text: &str, needle: &str, after: &str) -> InputError {
    let column = e.line.checked_sub(1).and_then(|n| {
        let line = text.lines().nth(n)?;
        let from = if after.is_empty() {
            0
        } else {
            line.find(after)?
        };
        line[from..].find(needle).map(|c| from + c + 1)
    });
    match column {
        Some(column) => {
            let line = e.line;
            e.at(line, column)
        }
        None => e,
    }
}

/// The message for a name the lab has no `kind` of (a command line's `--drive`, `--suite`
/// or `--test`): the names it was probably meant to be, and every name it could be.
pub fn no_such(kind: &str, found: &str, known: &[&str]) -> String {
    let hint = crate::config::suggest(found, known.iter().copied())
        .map(|hint| format!(" ({hint})"))
        .unwrap_or_default();
    format!(
        "no {kind} {found:?} in the lab{hint}; expected one of: {}",
        known.join(", ")
    )
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
            // A problem with a key found once the suite is read, at that key's line.
            let at_key = |field: String, message: String| {
                let e = InputError::new(&s.file, field, message).at(1, 1);
                match fs::read_to_string(root.join(&s.file)) {
                    Ok(text) => crate::config::at_key(e, &text),
                    Err(_) => e,
                }
            };
            let mut seen = std::collections::BTreeSet::new();
            for (i, t) in s.spec.tests.iter().enumerate() {
                if !seen.insert(t.id.0.clone()) {
                    errors.push(at_key(
                        format!("tests[{i}].id"),
                        format!("expected a unique test id, found {:?} twice", t.id.0),
                    ));
                }
                // The trace a replay test plays must be there before anything runs.
                let Some(replay) = &t.workload.replay else {
                    // A span that cannot hold one request is wrong on every drive.
                    let largest = t.workload.block_size.max();
                    if let Span::Bytes(span) = t.workload.span {
                        if span < largest {
                            errors.push(at_key(
                                format!("tests[{i}].span"),
                                format!(
                                    "expected a span of at least the block size ({}), found {}",
                                    SizeLabel(largest),
                                    SizeLabel(span)
                                ),
                            ));
                        }
                    }
                    continue;
                };
                match &replay.trace {
                    TraceInput::File { path, .. } if !root.join(path).is_file() => {
                        errors.push(at_key(
                            format!("tests[{i}].trace"),
                            format!(
                                "expected a trace file (a path in the lab), found none at {}",
                                path.display()
                            ),
                        ));
                    }
                    TraceInput::File { .. } => {}
                    TraceInput::Generate { profile, .. } => {
                        match crate::trace::find_profile(root, profile) {
                            // The profile's own problems are in its file.
                            Some(_) => match crate::trace::load_profile(root, profile) {
                                Ok(_) => {}
                                Err(Error::Input(list)) => errors.extend(list),
                                Err(e) => errors.push(InputError::new(&s.file, "", e.to_string())),
                            },
                            None => errors.push(at_key(
                                format!("tests[{i}].trace.generate.profile"),
                                format!(
                                    "expected a profile in suites/profiles/{profile}.yaml (or a \
                                     path in the lab), found none{}",
                                    crate::trace::profile_hint(root, profile)
                                ),
                            )),
                        }
                    }
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
        let review = load_review(root, &drives, &mut errors);
        if !errors.is_empty() {
            errors.sort_by(|a, b| (&a.file, a.line, a.column).cmp(&(&b.file, b.line, b.column)));
            return Err(Error::Input(errors));
        }
        Ok(Lab {
            root: root.to_path_buf(),
            suites,
            drives,
            commentary,
            review,
        })
    }

    /// The firmware each drive file names (drive id → firmware): what the drive runs now,
    /// so its results are the current ones.
    pub fn named_firmwares(&self) -> BTreeMap<String, String> {
        self.drives
            .iter()
            .filter_map(|(id, d)| Some((id.clone(), d.spec.firmware.clone()?)))
            .collect()
    }

    /// An error about key `key` of test `test` of suite `suite` (`span`, or
    /// `variants.align` for a value a variant sets), pointed at that key in the suite file
    /// (at the file's top if it cannot be found there).
    pub fn test_key_error(
        &self,
        suite: &str,
        test: &str,
        key: &str,
        message: String,
    ) -> InputError {
        let Some(s) = self.suites.get(suite) else {
            return InputError::new(suite, format!("{test}.{key}"), message);
        };
        let index = s
            .spec
            .tests
            .iter()
            .position(|t| t.id.0 == test)
            .unwrap_or(0);
        let e = InputError::new(&s.file, format!("tests[{index}].{key}"), message).at(1, 1);
        match fs::read_to_string(self.root.join(&s.file)) {
            Ok(text) => crate::config::at_key(e, &text),
            Err(_) => e,
        }
    }

    /// What is valid but likely not meant, for `check` and `run` to warn of: a pattern of
    /// a suite's `drives:` that takes no drive of drives/ (a drive file removed, or the
    /// pattern mistyped), at its line; of the suites named in `suites` (all if empty).
    pub fn warnings(&self, suites: &[String]) -> Vec<InputError> {
        let ids: Vec<&str> = self.drives.keys().map(String::as_str).collect();
        let mut out = Vec::new();
        for s in self
            .suites
            .values()
            .filter(|s| suites.is_empty() || suites.contains(&s.spec.name.0))
        {
            let unmatched = s.spec.unmatched_drives(&ids);
            if unmatched.is_empty() {
                continue;
            }
            // Read again for the lines only where there is something to place.
            let text = fs::read_to_string(self.root.join(&s.file)).unwrap_or_default();
            for (i, pattern) in unmatched {
                let hint = crate::config::suggest(pattern, ids.iter().copied())
                    .map(|hint| format!("; {hint}"))
                    .unwrap_or_default();
                let e = InputError::new(
                    &s.file,
                    format!("drives[{i}]"),
                    format!(
                        "expected a pattern matching a drive in drives/, found {pattern:?}, \
                         which matches none{hint}"
                    ),
                )
                .at(1, 1);
                out.push(at_column(
                    crate::config::at_key(e, &text),
                    &text,
                    pattern,
                    "",
                ));
            }
        }
        out
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
        let text = match utf8_text(&rel, &bytes) {
            Ok(text) => text,
            Err(e) => {
                errors.push(e);
                continue;
            }
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
                    errors.push(crate::config::at_key(
                        InputError::new(
                            &rel,
                            key,
                            format!("expected {stem:?} (the file name), found {id:?}"),
                        )
                        .at(1, 1),
                        text,
                    ));
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
