//! Shell habits: completion scripts from clap's own generator, `-q` for scripts that want
//! only results and errors, `run --json`, and `-o` for `--out`.

mod common;

use std::process::Command;

use common::{stderr, stdout, TestLab, TINY_SUITE};

#[test]
fn completion_scripts_name_every_command_and_bash_reads_its_own() {
    let lab = TestLab::new();
    for shell in ["bash", "zsh", "fish"] {
        let out = lab.roundup(&["completions", shell]);
        assert!(out.status.success(), "{shell}: {}", stderr(&out));
        let script = stdout(&out);
        for command in [
            "run",
            "summary",
            "render",
            "trace",
            "commentary",
            "completions",
        ] {
            assert!(script.contains(command), "{shell} lacks {command}");
        }
        assert!(script.contains("dry-run"), "{shell} lacks run's options");
    }
    // The bash script parses, and defines its completion function.
    let out = lab.roundup(&["completions", "bash"]);
    let path = lab.path().join("roundup.bash");
    std::fs::write(&path, &out.stdout).unwrap();
    let check = Command::new("bash")
        .arg("-c")
        .arg(format!("source {} && complete -p roundup", path.display()))
        .output()
        .unwrap();
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
    assert!(String::from_utf8_lossy(&check.stdout).contains("roundup"));
    // An unknown shell is refused with the ones it knows.
    let out = lab.roundup(&["completions", "tcsh"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("bash"), "{}", stderr(&out));
}

#[test]
fn quiet_prints_nothing_but_results_and_json_says_what_ran() {
    let lab = TestLab::new();
    lab.write("suites/tiny.yaml", TINY_SUITE)
        .sim_drive("a", "Model A", "1.0", 4);
    let out = lab.roundup(&["-q", "run"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "", "quiet run said something");
    assert_eq!(stderr(&out), "", "quiet run drew progress");
    assert_eq!(lab.stored_jobs(), 3);
    // The render lists nothing either; the summary, what was asked for, prints.
    let out = lab.roundup(&["render", "--quiet"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "");
    assert!(lab.path().join("site/index.html").is_file());
    let out = lab.roundup(&["-q", "summary", "--csv"]);
    assert_eq!(stdout(&out).lines().count(), 4, "{}", stdout(&out));
    // A resumed run as JSON: the three jobs kept, none run, none failed.
    let out = lab.roundup(&["run", "--resume", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_str(&stdout(&out))
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", stdout(&out)));
    assert_eq!(report["completed"], 0);
    assert_eq!(report["skipped"], 3);
    assert_eq!(report["failed"], serde_json::json!([]));
}

#[test]
fn o_is_short_for_out() {
    let lab = TestLab::new();
    let profile = concat!(env!("CARGO_MANIFEST_DIR"), "/suites/profiles/light.yaml");
    lab.write(
        "suites/profiles/light.yaml",
        &std::fs::read_to_string(profile).unwrap(),
    );
    let to = lab.path().join("light.parquet");
    let to = to.to_str().unwrap();
    let out = lab.roundup(&["trace", "gen", "--profile", "light", "-o", to]);
    assert!(out.status.success(), "{}", stderr(&out));
    let bytes = std::fs::read(to).unwrap();
    assert!(bytes.starts_with(b"PAR1"));
}

#[test]
fn drives_json_lists_the_drives_and_block_devices_for_scripts() {
    let lab = TestLab::new();
    lab.sim_drive("sim-a", "Alpha", "A1", 4);
    let target = lab.file_drive("file-a", "16MiB");
    let out = lab.roundup(&["drives", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let drives = v["drives"].as_array().unwrap();
    assert_eq!(drives.len(), 2);
    assert_eq!(drives[0]["id"], "file-a");
    assert_eq!(drives[0]["target"], "file or block device");
    assert_eq!(drives[0]["path"], target.display().to_string());
    assert_eq!(drives[1]["id"], "sim-a");
    assert_eq!(drives[1]["firmware"], "A1");
    assert!(drives[1]["path"].is_null());
    assert_eq!(v["benches"].as_array().unwrap().len(), 0);
    assert!(v["block_devices"].is_array());
}
