//! The plan: suites × drives × variants × repeats expanded into jobs with stable ids.

use serde::Serialize;

use crate::drive::TargetSpec;
use crate::error::{Error, InputError, Result};
use crate::io::EngineChoice;
use crate::lab::Lab;
use crate::rng::derive_seed;
use crate::suite::Variant;
use crate::workload::{Better, Length, Metric, OfRepeats, Workload};

/// Which part of the lab to run; empty lists mean everything.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// Suite names.
    pub suites: Vec<String>,
    /// Drive ids.
    pub drives: Vec<String>,
    /// Test ids (in any selected suite).
    pub tests: Vec<String>,
}

/// One run of one variant of one test on one drive.
#[derive(Debug, Clone, Serialize)]
pub struct Job {
    /// Stable id: `drive/suite/test/variant/rN`.
    pub id: String,
    /// Drive id.
    pub drive: String,
    /// Suite name.
    pub suite: String,
    /// Test id.
    pub test: String,
    /// Test title.
    pub title: String,
    /// The variant of the test.
    pub variant: Variant,
    /// Repeat number, from 1.
    pub repeat: u32,
    /// What the job does.
    pub workload: Workload,
    /// The headline figure.
    pub metric: Metric,
    /// Which way is better.
    pub better: Better,
    /// Which figure of the repeats the charts show. Absent from the plan hash when the mean.
    #[serde(skip_serializing_if = "OfRepeats::is_mean")]
    pub of_repeats: OfRepeats,
    /// The I/O engine for a real target: the test's, else the drive's, else `auto`.
    pub engine: EngineChoice,
    /// Seed of the job's random streams, derived from the suite seed, test, variant and
    /// repeat (not the drive: every drive gets the same requests).
    pub seed: u64,
    /// A round-major test's tracked variant: the test's variants run together, a round of
    /// each in turn ([`crate::suite::TestSpec::round_major`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub round_major: Option<String>,
    /// A job of a simulated drive that the selection left out but that comes before a
    /// selected one in its suite: it runs only to bring the drive to the state the next
    /// jobs start from, and nothing of it is stored.
    #[serde(skip)]
    pub state_only: bool,
}

/// The expanded plan, in run order: by drive, then suite, test, variant and repeat, so that a
/// drive's state carries across its tests in suite order.
///
/// A simulated drive starts each suite as its drive file describes it (new, or aged), so
/// its results depend only on the suite, the drive file and the seeds: a selection that
/// leaves out tests before a selected one keeps them as [`Job::state_only`] jobs.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    /// The jobs in run order.
    pub jobs: Vec<Job>,
}

/// Part `index` of `count` parts of a plan (`--shard K/N`): whole drives, the plan's
/// drives dealt out in turn in id order, so a simulated drive's suites keep their state
/// and the parts of one plan together run exactly its jobs, each once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// From 1.
    pub index: u32,
    /// How many parts.
    pub count: u32,
}

impl std::str::FromStr for Shard {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Shard, String> {
        let expected = || format!("expected K/N with 1 ≤ K ≤ N (e.g. 2/3), found {s:?}");
        let (k, n) = s.split_once('/').ok_or_else(expected)?;
        let index: u32 = k.trim().parse().map_err(|_| expected())?;
        let count: u32 = n.trim().parse().map_err(|_| expected())?;
        if index == 0 || index > count {
            return Err(expected());
        }
        Ok(Shard { index, count })
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl Plan {
    /// The jobs of this plan that fall in `shard`: the drives (in plan order, which is id
    /// order) dealt out one each to the parts in turn.
    pub fn shard(self, shard: Shard) -> Plan {
        let mut drives: Vec<&str> = Vec::new();
        for j in &self.jobs {
            if drives.last() != Some(&j.drive.as_str()) {
                drives.push(&j.drive);
            }
        }
        let mine: std::collections::BTreeSet<String> = drives
            .iter()
            .enumerate()
            .filter(|(k, _)| *k as u32 % shard.count == shard.index - 1)
            .map(|(_, d)| d.to_string())
            .collect();
        Plan {
            jobs: self
                .jobs
                .into_iter()
                .filter(|j| mine.contains(&j.drive))
                .collect(),
        }
    }
}

/// Expands the selected part of the lab into a plan.
pub fn expand(lab: &Lab, sel: &Selection) -> Result<Plan> {
    let mut errors = Vec::new();
    let check =
        |kind: &str, wanted: &[String], known: Vec<&String>, errors: &mut Vec<InputError>| {
            for w in wanted {
                if !known.contains(&w) {
                    let list: Vec<&str> = known.iter().map(|s| s.as_str()).collect();
                    errors.push(InputError::new(
                        format!("--{kind}"),
                        "",
                        crate::lab::no_such(kind, w, &list),
                    ));
                }
            }
        };
    check(
        "suite",
        &sel.suites,
        lab.suites.keys().collect(),
        &mut errors,
    );
    check(
        "drive",
        &sel.drives,
        lab.drives.keys().collect(),
        &mut errors,
    );
    let all_tests: Vec<&String> = lab
        .suites
        .values()
        .filter(|s| sel.suites.is_empty() || sel.suites.contains(&s.spec.name.0))
        .flat_map(|s| s.spec.tests.iter().map(|t| &t.id.0))
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    check("test", &sel.tests, all_tests, &mut errors);
    if !errors.is_empty() {
        return Err(Error::Input(errors));
    }
    let mut jobs = Vec::new();
    for (drive_id, drive) in lab
        .drives
        .iter()
        .filter(|(d, _)| sel.drives.is_empty() || sel.drives.contains(d))
    {
        let drive_engine = match &drive.spec.target {
            TargetSpec::Path(p) => p.engine,
            TargetSpec::Sim(_) | TargetSpec::Ssd(_) | TargetSpec::Hdd(_) => None,
        };
        let simulated = drive.spec.target.simulated();
        for suite in lab
            .suites
            .values()
            .filter(|s| sel.suites.is_empty() || sel.suites.contains(&s.spec.name.0))
        {
            let suite = &suite.spec;
            // A run that names no drive keeps each suite to its drives.
            if sel.drives.is_empty() && !suite.runs_on(drive_id) {
                continue;
            }
            let selected = |id: &str| sel.tests.is_empty() || sel.tests.iter().any(|t| t == id);
            // On a simulated drive the tests before the last selected one run too, for
            // the drive's state.
            let last = suite.tests.iter().rposition(|t| selected(&t.id.0));
            for (k, test) in suite.tests.iter().enumerate() {
                let state_only = !selected(&test.id.0);
                if state_only && !(simulated && last.is_some_and(|l| k < l)) {
                    continue;
                }
                for (variant, workload) in test.expand() {
                    for repeat in 1..=test.repeats {
                        let r = format!("r{repeat}");
                        let seed =
                            derive_seed(suite.seed, &[&suite.name.0, &test.id.0, &variant.id, &r]);
                        jobs.push(Job {
                            id: format!("{drive_id}/{}/{}/{}/{r}", suite.name, test.id, variant.id),
                            drive: drive_id.clone(),
                            suite: suite.name.0.clone(),
                            test: test.id.0.clone(),
                            title: test.title.clone(),
                            variant: variant.clone(),
                            repeat,
                            workload: workload.clone(),
                            metric: test.metric,
                            better: test.better,
                            of_repeats: test.of_repeats,
                            engine: test.engine.or(drive_engine).unwrap_or_default(),
                            seed,
                            round_major: test.round_major.clone(),
                            state_only,
                        });
                    }
                }
            }
        }
    }
    Ok(Plan { jobs })
}

/// The seconds a timed job runs: its duration and warm-up; a steady-state test's
/// fewest rounds (its window), as it may stop there.
fn timed_s(w: &crate::workload::Workload) -> Option<f64> {
    let Length::Duration(ns) = w.length else {
        return None;
    };
    let rounds = w.steady_state.map_or(1, |s| s.window as u64);
    Some((ns * rounds + w.warmup_ns) as f64 / 1e9)
}

/// How long a job is expected to take.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Estimate {
    /// Wall-clock seconds, when known.
    pub wall_s: Option<f64>,
    /// Simulated seconds (for simulated drives).
    pub virtual_s: Option<f64>,
}

impl Plan {
    /// The expected duration of `job` on its drive.
    pub fn estimate(lab: &Lab, job: &Job) -> Estimate {
        let w = &job.workload;
        let drive = &lab.drives[&job.drive].spec;
        if let Some(r) = &w.replay {
            return replay_estimate(lab, r, &drive.target);
        }
        match &drive.target {
            TargetSpec::Path(_) => Estimate {
                wall_s: timed_s(w),
                virtual_s: None,
            },
            // The SSD model's speed depends on the drive's state: only its simulated time is
            // known ahead.
            TargetSpec::Ssd(_) | TargetSpec::Hdd(_) => Estimate {
                wall_s: None,
                virtual_s: timed_s(w),
            },
            TargetSpec::Sim(sim) => {
                let iops = crate::target::sim::estimate_iops(sim, w);
                let (ios, virt) = match w.length {
                    Length::Duration(_) => {
                        let s = timed_s(w).unwrap_or(0.0);
                        (s * iops, s)
                    }
                    Length::Passes(_) => {
                        return Estimate {
                            wall_s: None,
                            virtual_s: None,
                        }
                    }
                    Length::Count(n) => {
                        (n as f64 + iops * w.warmup_ns as f64 / 1e9, n as f64 / iops)
                    }
                };
                // About a million simulated I/Os per second of real time, samples written.
                Estimate {
                    wall_s: Some(ios / 1.0e6),
                    virtual_s: Some(virt),
                }
            }
        }
    }
}

/// A replay lasts as long as its trace, which is read only when the run starts; a timed
/// replay of a generated trace lasts the profile's duration over `time_scale` (a file's
/// duration is not known before it is read).
fn replay_estimate(lab: &Lab, r: &crate::workload::ReplaySpec, target: &TargetSpec) -> Estimate {
    let crate::workload::TraceInput::Generate { profile, .. } = &r.trace else {
        return Estimate::default();
    };
    if r.mode != crate::workload::ReplayMode::Timed || r.time_scale <= 0.0 {
        return Estimate::default();
    }
    let Ok(p) = crate::trace::load_profile(&lab.root, profile) else {
        return Estimate::default();
    };
    let seconds = p.duration.0 as f64 / 1e9 / r.time_scale;
    match target {
        TargetSpec::Path(_) => Estimate {
            wall_s: Some(seconds),
            virtual_s: None,
        },
        _ => Estimate {
            wall_s: None,
            virtual_s: Some(seconds),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn lab() -> (tempfile::TempDir, Lab) {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join("suites")).unwrap();
        fs::create_dir_all(dir.path().join("drives")).unwrap();
        fs::write(
            dir.path().join("suites/s.yaml"),
            "name: s\ntitle: S\ntests:\n  - {id: rw, title: RW, operation: write, pattern: random, block_size: 4KiB, span: 1GiB, queue_depth: 3, duration: 1s, repeats: 2, metric: mb_per_s, variants: {data: [compressible, incompressible]}}\n  - {id: sr, title: SR, operation: read, pattern: sequential, block_size: 128KiB, span: full, queue_depth: 1, count: 100, metric: mb_per_s}\n",
        )
        .unwrap();
        for d in ["b", "a"] {
            fs::write(
                dir.path().join(format!("drives/{d}.yaml")),
                format!("id: {d}\nvendor: V\nmodel: M\ncapacity: 4GB\nsim: {{model: simple, units: 4, stripe: 4KiB, read_latency: 50us, write_latency: 200us, read_rate: 50MB/s, write_rate: 20MB/s, link_rate: 280MB/s}}\n"),
            )
            .unwrap();
        }
        let lab = Lab::load(dir.path()).unwrap();
        (dir, lab)
    }

    #[test]
    fn a_timed_replay_of_a_generated_trace_lasts_its_profile_over_its_scale() {
        let (dir, _) = lab();
        let profiles = dir.path().join("suites/profiles");
        fs::create_dir_all(&profiles).unwrap();
        let light = concat!(env!("CARGO_MANIFEST_DIR"), "/suites/profiles/light.yaml");
        fs::copy(light, profiles.join("light.yaml")).unwrap();
        fs::write(
            dir.path().join("suites/s.yaml"),
            "name: s\ntitle: S\ntests:\n  - {id: t, title: T, kind: replay, trace: {generate: {profile: light, seed: 1}}, mode: timed, time_scale: 0.5, queue_depth: 8, span: full, metric: iops}\n  - {id: f, title: F, kind: replay, trace: {generate: {profile: light, seed: 1}}, queue_depth: 8, span: full, metric: iops}\n",
        )
        .unwrap();
        let lab = Lab::load(dir.path()).unwrap();
        let plan = expand(&lab, &Selection::default()).unwrap();
        let profile = crate::trace::load_profile(dir.path(), "light").unwrap();
        let job = |test: &str| plan.jobs.iter().find(|j| j.test == test).unwrap();
        let timed = Plan::estimate(&lab, job("t"));
        assert_eq!(timed.virtual_s, Some(profile.duration.0 as f64 / 1e9 / 0.5));
        // As fast as possible: as long as the drive takes, not known ahead.
        assert_eq!(Plan::estimate(&lab, job("f")), Estimate::default());
    }

    #[test]
    fn expansion_order_and_ids() {
        let (_d, lab) = lab();
        let plan = expand(&lab, &Selection::default()).unwrap();
        let ids: Vec<&str> = plan.jobs.iter().map(|j| j.id.as_str()).collect();
        assert_eq!(ids.len(), 2 * (2 * 2 + 1));
        assert_eq!(ids[0], "a/s/rw/data-compressible/r1");
        assert_eq!(ids[1], "a/s/rw/data-compressible/r2");
        assert_eq!(ids[4], "a/s/sr/base/r1");
        assert_eq!(ids[5], "b/s/rw/data-compressible/r1");
        // Same requests on every drive, different ones per repeat.
        assert_eq!(plan.jobs[0].seed, plan.jobs[5].seed);
        assert_ne!(plan.jobs[0].seed, plan.jobs[1].seed);
        // And per variant: the variants of a test run one after another on the same drive,
        // and one replaying the pages the one before it just wrote would find them going
        // stale in the order they were written (on the used X25-M G2, anandtech-2010's
        // second QD32 variant then ran at the new drive's 28.8 MB/s with no collection
        // stall, against 27.2 MB/s and a 93 ms longest wait with its own numbers).
        assert_eq!(ids[2], "a/s/rw/data-incompressible/r1");
        assert_ne!(plan.jobs[0].seed, plan.jobs[2].seed);
    }

    #[test]
    fn selection_filters_and_rejects_unknown_names() {
        let (_d, lab) = lab();
        let sel = Selection {
            drives: vec!["b".into()],
            tests: vec!["sr".into()],
            ..Default::default()
        };
        let plan = expand(&lab, &sel).unwrap();
        // The simulated drive runs the suite's tests before `sr` for its state only.
        let jobs: Vec<(&str, bool)> = plan
            .jobs
            .iter()
            .map(|j| (j.id.as_str(), j.state_only))
            .collect();
        assert_eq!(jobs.len(), 5);
        assert!(jobs[..4]
            .iter()
            .all(|(id, only)| id.starts_with("b/s/rw/") && *only));
        assert_eq!(jobs[4], ("b/s/sr/base/r1", false));
        // None after the last selected test.
        let sel = Selection {
            tests: vec!["rw".into()],
            ..Default::default()
        };
        let plan = expand(&lab, &sel).unwrap();
        assert!(plan.jobs.iter().all(|j| j.test == "rw" && !j.state_only));
        let sel = Selection {
            drives: vec!["zz".into()],
            ..Default::default()
        };
        let e = expand(&lab, &sel).unwrap_err().to_string();
        assert!(e.contains("no drive \"zz\"") && e.contains("a, b"), "{e}");
        assert!(!e.contains("did you mean"), "{e}");
        // A misspelt name is told the one it was probably meant to be.
        let sel = Selection {
            tests: vec!["rx".into(), "srr".into()],
            ..Default::default()
        };
        let e = expand(&lab, &sel).unwrap_err().to_string();
        assert!(
            e.contains(
                "no test \"srr\" in the lab (did you mean \"sr\"?); expected one of: rw, sr"
            ),
            "{e}"
        );
    }
}
