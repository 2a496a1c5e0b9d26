//! Suites: named sets of tests as reviews define them (`suites/NAME.yaml`).
//!
//! The format is documented in docs/lab-format.md. Deserialization validates every field
//! as it is read, so that each error keeps the file, line, column and field it concerns.

mod raw;
mod variants;

pub use variants::{dimension_key, Variant, Variants};

use serde::{Deserialize, Serialize};

use crate::config::Ident;
use crate::io::EngineChoice;
use crate::workload::{Better, Metric, OfRepeats, Workload};

/// A suite as written in `suites/NAME.yaml`.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Suite {
    /// Short name; must match the file name.
    pub name: Ident,
    /// Title shown on the site.
    pub title: String,
    /// Where the method comes from, shown under the title.
    #[serde(default)]
    pub description: Option<String>,
    /// Base seed of every random stream of the suite (offsets, sizes, data); default 0.
    #[serde(default)]
    pub seed: u64,
    /// The drives the suite runs on when a run names none (`--drive`): drive-id patterns
    /// (`*` for any run of characters), those after a `!` left out, in order; default
    /// every drive. A roundup of one era keeps to its drives.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drives: Option<Vec<String>>,
    /// The tests, in the order a review runs (and reads) them.
    pub tests: Vec<TestSpec>,
}

impl Suite {
    /// Whether the suite runs on `drive` when a run names no drive: the last of its
    /// `drives` patterns that matches decides (a `!` pattern leaves the drive out); none
    /// matching leaves it out; no list takes every drive.
    pub fn runs_on(&self, drive: &str) -> bool {
        let Some(patterns) = &self.drives else {
            return true;
        };
        patterns
            .iter()
            .fold(false, |on, p| match p.strip_prefix('!') {
                Some(p) if glob(p, drive) => false,
                None if glob(p, drive) => true,
                _ => on,
            })
    }

    /// The patterns of `drives` that would take a drive (not `!` ones) and match none of
    /// `ids`, with their index: a drive file missing or a pattern mistyped.
    pub fn unmatched_drives<'a>(&'a self, ids: &[&str]) -> Vec<(usize, &'a str)> {
        self.drives
            .iter()
            .flatten()
            .enumerate()
            .filter(|(_, p)| !p.starts_with('!') && !ids.iter().any(|id| glob(p, id)))
            .map(|(i, p)| (i, p.as_str()))
            .collect()
    }
}

/// Whether `text` matches `pattern`, where `*` stands for any run of characters.
fn glob(pattern: &str, text: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == text,
        Some((head, rest)) => {
            let Some(tail) = text.strip_prefix(head) else {
                return false;
            };
            (0..=tail.len())
                .filter(|&i| tail.is_char_boundary(i))
                .any(|i| glob(rest, &tail[i..]))
        }
    }
}

/// One test of a suite, before its variants are expanded.
#[derive(Debug, Clone, Serialize)]
pub struct TestSpec {
    /// Identifier, unique in the suite.
    pub id: Ident,
    /// Title as the review prints it.
    pub title: String,
    /// The workload of the base variant.
    pub workload: Workload,
    /// Repeats of every variant (bit-tech ran each test three times).
    pub repeats: u32,
    /// The headline figure of the test.
    pub metric: Metric,
    /// Whether a higher or a lower headline figure is better.
    pub better: Better,
    /// Which figure of the repeats the charts show: their mean, or the best run.
    pub of_repeats: OfRepeats,
    /// Dimensions that multiply the test.
    pub variants: Variants,
    /// The I/O engine for real targets, if the test names one.
    pub engine: Option<EngineChoice>,
    /// A round-major steady-state test (SNIA PTS): each round runs every variant in turn,
    /// and this variant's figure decides steady state for all.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub round_major: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::from_yaml;
    use crate::workload::{DataKind, RateLimit};
    use std::path::Path;

    const SUITE: &str = "name: t\ntitle: T\ntests:\n  - id: rw\n    title: RW\n    operation: write\n    pattern: random\n    block_size: 4KiB\n    span: 8GiB\n    queue_depth: 3\n    duration: 3m\n    metric: mb_per_s\n    variants:\n      data: [compressible, incompressible]\n      align: [512B, 4KiB]\n";

    #[test]
    fn a_subtitle_says_what_was_done_to_the_span_first() {
        let with = |pre: &str| {
            let text = SUITE.replace(
                "    metric: mb_per_s\n",
                &format!("    metric: mb_per_s\n    precondition: {pre}\n"),
            );
            let s: Suite = from_yaml(Path::new("t.yaml"), &text).unwrap();
            s.tests[0].expand()[0].1.describe()
        };
        assert_eq!(
            with("{}"),
            "4 KiB random write, QD3, 8 GiB span, 3 min, compressible data"
        );
        assert_eq!(
            with("{purge: true}"),
            "4 KiB random write, QD3, 8 GiB span, trimmed first, 3 min, compressible data"
        );
        assert_eq!(
            with("{fill: 1}"),
            "4 KiB random write, QD3, 8 GiB span, written once first, 3 min, compressible data"
        );
        assert_eq!(
            with("{purge: true, fill: 2}"),
            "4 KiB random write, QD3, 8 GiB span, trimmed and written twice first, 3 min, compressible data"
        );
    }

    #[test]
    fn variants_multiply_in_a_stable_order() {
        let s: Suite = from_yaml(Path::new("t.yaml"), SUITE).unwrap();
        let v = s.tests[0].expand();
        let ids: Vec<_> = v.iter().map(|(v, _)| v.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "data-compressible_align-512b",
                "data-compressible_align-4k",
                "data-incompressible_align-512b",
                "data-incompressible_align-4k"
            ]
        );
        assert_eq!(v[0].1.align, 512);
        assert_eq!(v[0].1.data, DataKind::Compressible);
        assert_eq!(v[3].1.align, 4096);
        assert_eq!(v[0].0.label, "compressible, 512 B aligned");
        assert_eq!(s.tests[0].better, Better::Higher);
    }

    #[test]
    fn a_suite_keeps_to_its_drives() {
        let text = SUITE.replace(
            "title: T\n",
            "title: T\ndrives: [\"*\", \"!samsung-9*\", \"samsung-970-evo-plus-1tb\"]\n",
        );
        let s: Suite = from_yaml(Path::new("t.yaml"), &text).unwrap();
        assert!(s.runs_on("intel-x25m-g2-160"));
        assert!(!s.runs_on("samsung-980-pro-1tb"));
        assert!(s.runs_on("samsung-970-evo-plus-1tb"));
        assert!(glob("a*b*c", "aXbYbc") && !glob("a*b", "ab-c") && glob("*", ""));
    }

    #[test]
    fn sweeps_of_threads_writes_and_rate() {
        let text = SUITE.replace(
            "      data: [compressible, incompressible]\n      align: [512B, 4KiB]\n",
            "      threads: [1, 4]\n      writes: [0%, 35%, 100%]\n      rate: [1000 IOPS, 2.5MB/s]\n",
        );
        let s: Suite = from_yaml(Path::new("t.yaml"), &text).unwrap();
        let v = s.tests[0].expand();
        assert_eq!(v.len(), 12);
        assert_eq!(v[0].0.id, "t-1_wr-0_rate-1000iops");
        assert_eq!(v[3].0.id, "t-1_wr-35_rate-2p5mbps");
        assert_eq!(v[3].0.label, "T1, 35% writes, 2.50 MB/s offered");
        assert_eq!(v[3].1.operation.read_percent, 65);
        assert_eq!(v[3].1.rate, Some(RateLimit::BytesPerSecond(2.5e6)));
        assert_eq!(v[11].1.threads, 4);
        assert_eq!(v[11].1.operation.read_percent, 0);
        assert_eq!(dimension_key("t"), "threads");
    }

    #[test]
    fn a_sweep_needs_two_distinct_values() {
        for (list, message) in [
            (
                "queue_depth: [4]",
                "variants.queue_depth: expected two values or more",
            ),
            (
                "writes: [10%, 0.1]",
                "variants.writes: expected each value once",
            ),
            (
                "writes: [12.5%, 50%]",
                "expected a whole percentage such as 30%",
            ),
        ] {
            let text = SUITE.replace("align: [512B, 4KiB]", list);
            let e = from_yaml::<Suite>(Path::new("t.yaml"), &text).unwrap_err();
            assert!(e.to_string().contains(message), "{e}");
        }
    }

    #[test]
    fn operation_mix_and_block_mix() {
        let text = SUITE
            .replace("operation: write", "operation: {read: 70, write: 30}")
            .replace("block_size: 4KiB", "block_size: {16KiB: 11, 4KiB: 30}");
        let s: Suite = from_yaml(Path::new("t.yaml"), &text).unwrap();
        assert_eq!(s.tests[0].workload.operation.read_percent, 70);
        assert_eq!(
            s.tests[0].workload.block_size.0,
            vec![(4096, 30), (16384, 11)]
        );
        assert_eq!(s.tests[0].workload.align, 4096);
    }

    #[test]
    fn bad_values_name_the_field() {
        let text = SUITE.replace("queue_depth: 3", "queue_depth: 0");
        let e = from_yaml::<Suite>(Path::new("t.yaml"), &text).unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.yaml:10:18: tests[0].queue_depth: expected a whole number from 1 to 65535, found 0"
        );
        let text = SUITE.replace("pattern: random", "pattern: randm");
        let e = from_yaml::<Suite>(Path::new("t.yaml"), &text).unwrap_err();
        assert_eq!(e.field, "tests[0].pattern");
        assert_eq!(
            e.message,
            "unknown variant `randm` (did you mean `random`?), expected `random` or `sequential`"
        );
        let text = SUITE.replace("duration: 3m", "count: 100\n    duration: 3m");
        let e = from_yaml::<Suite>(Path::new("t.yaml"), &text).unwrap_err();
        assert!(e.message.contains("either `duration` or `count`"), "{e}");
        assert!(e.line >= 4, "{e}");
    }
}
