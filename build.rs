//! Records roundup's git revision for the provenance in every job manifest.
//!
//! Cargo reruns this script only when the revision can have changed: `.git/HEAD`, the ref it
//! names or `.git/packed-refs` (a commit, a checkout), or the sources (which is when the
//! `-dirty` mark can change). Not `.git/index`: every `git status` rewrites it, and watching
//! it rebuilt the crate after any git command. Only files that exist are watched: cargo
//! takes a missing one as changed, every build (a ref that moves between its loose file and
//! packed-refs makes the watched file vanish, which reruns this script).
use std::path::Path;
use std::process::Command;

fn main() {
    let git = Path::new(".git");
    let mut watched = vec![git.join("HEAD"), git.join("packed-refs")];
    if let Ok(head) = std::fs::read_to_string(git.join("HEAD")) {
        if let Some(name) = head.trim().strip_prefix("ref: ") {
            watched.push(git.join(name));
        }
    }
    for source in ["src", "templates", "Cargo.toml", "Cargo.lock", "build.rs"] {
        watched.push(source.into());
    }
    for path in watched.iter().filter(|p| p.exists()) {
        println!("cargo:rerun-if-changed={}", path.display());
    }
    let rev = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    let dirty = Command::new("git")
        .args(["status", "--porcelain", "--untracked-files=no"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .is_some_and(|o| !o.stdout.is_empty());
    if let Some(rev) = rev {
        let rev = if dirty { format!("{rev}-dirty") } else { rev };
        println!("cargo:rustc-env=ROUNDUP_GIT_REVISION={rev}");
    }
}
