//! The house's rules, checked from the source: data flows one way, so every module of the
//! library imports only modules below it in [`LAYERS`] (no import circle can form), and no
//! function silences clippy's `too_many_arguments`.
//!
//! `cargo test --release --test architecture -- --nocapture` prints the import graph.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The library's modules from the bottom of the house up: the words every stage shares,
/// the input files, then the pipeline's stages in the order data flows through them.
const LAYERS: &[&str] = &[
    // Shared words.
    "units",
    "error",
    "io",
    "rng",
    "hash",
    "config",
    // Inputs: traces, workloads, suites, drives, commentary, the lab that loads them all.
    "trace",
    "workload",
    "suite",
    "drive",
    "commentary",
    "lab",
    // The pipeline.
    "target",
    "plan",
    "engine",
    "store",
    "analysis",
    "render",
    "run",
    // At the edge.
    "serve",
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .expect("read src")
        .map(|e| e.expect("entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// The top-level module a file of `src/` belongs to (`src/run/job.rs` → `run`).
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).expect("under src");
    let first = rel.components().next().expect("a component");
    first
        .as_os_str()
        .to_string_lossy()
        .trim_end_matches(".rs")
        .to_string()
}

/// A file's code outside its `#[cfg(test)]` module (tests may reach anywhere).
fn code(text: &str) -> &str {
    match text.find("#[cfg(test)]\nmod tests") {
        Some(i) => &text[..i],
        None => text,
    }
}

/// Every `crate::NAME` a file's code or doc comments name (an intra-doc link is a
/// reference too), with the line it is on; plain `//` comments are passed over.
fn imports(text: &str) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    for (n, line) in code(text).lines().enumerate() {
        let doc = ["///", "//!"]
            .iter()
            .any(|d| line.trim_start().starts_with(d));
        let line = if doc {
            line
        } else {
            line.split("//").next().unwrap_or("")
        };
        let mut rest = line;
        while let Some(i) = rest.find("crate::") {
            let after = &rest[i + "crate::".len()..];
            let name: String = after
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                out.push((name, n + 1));
            }
            rest = after;
        }
    }
    out
}

/// Every import between two library modules: (from, to) → the first place it is made.
fn graph() -> BTreeMap<(String, String), String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut edges = BTreeMap::new();
    for file in files {
        let from = module_of(&src, &file);
        if ["lib", "main", "cli"].contains(&from.as_str()) {
            continue;
        }
        let text = fs::read_to_string(&file).expect("read");
        for (to, line) in imports(&text) {
            if to != from {
                let at = format!("{}:{line}", file.display());
                edges.entry((from.clone(), to)).or_insert(at);
            }
        }
    }
    edges
}

#[test]
fn every_import_points_down_the_house() {
    let rank = |m: &str| LAYERS.iter().position(|l| *l == m);
    let mut wrong = Vec::new();
    let edges = graph();
    let modules: BTreeSet<&str> = edges
        .keys()
        .flat_map(|(a, b)| [a.as_str(), b.as_str()])
        .collect();
    for m in &modules {
        assert!(
            rank(m).is_some(),
            "module `{m}` has no place in LAYERS (tests/architecture.rs): put it where it belongs"
        );
    }
    for ((from, to), at) in &edges {
        if rank(to) >= rank(from) {
            wrong.push(format!(
                "{at}: `{from}` imports `{to}`, which is not below it"
            ));
        }
    }
    if std::env::args().any(|a| a == "--nocapture") {
        for m in LAYERS {
            let below: Vec<&str> = edges
                .keys()
                .filter(|(a, _)| a == m)
                .map(|(_, b)| b.as_str())
                .collect();
            println!("{m:>10} → {}", below.join(", "));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_check_sees_an_upward_import() {
    // The scanner itself: a file that names a module by its path is seen, a test module is
    // not.
    let text = "use crate::render::X;\nfn f() { crate::run::go() }\n#[cfg(test)]\nmod tests {\n use crate::cli::Y;\n}\n";
    let names: Vec<String> = imports(text).into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, ["render", "run"]);
    // An intra-doc link is a reference too; a plain comment is not.
    let text = "/// See [`crate::store::x`].\nuse crate::render::X; // crate::lab\n";
    let names: Vec<String> = imports(text).into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, ["store", "render"]);
}

#[test]
fn no_function_silences_too_many_arguments() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["src", "tests", "benches"] {
        rust_files(&root.join(dir), &mut files);
    }
    let needle = ["too_many", "_arguments"].concat();
    let found: Vec<String> = files
        .iter()
        .filter(|f| {
            fs::read_to_string(f)
                .expect("read")
                .contains(&format!("allow(clippy::{needle}"))
        })
        .map(|f| f.display().to_string())
        .collect();
    assert!(found.is_empty(), "a parameter struct instead of: {found:?}");
}
