//! Today's review methods (docs/modern-methods.md) on real and simulated targets: the
//! CrystalDiskMark suites as shipped, made short. A binary of its own: its file target's
//! I/O would otherwise run beside the timing of the other pipeline tests.

mod common;

use std::fs;

use common::{stderr, stdout, TestLab};

#[test]
fn crystaldiskmark_runs_on_a_file_and_a_simulated_drive() {
    // The shipped suite, with shorter runs and a smaller test file.
    let lab = TestLab::new();
    lab.write(
        "suites/crystaldiskmark-8.yaml",
        &common::shortened_suite("crystaldiskmark-8"),
    );
    lab.file_drive("scratch", "64MiB");
    lab.sim_drive("sim", "Sim", "1", 4);
    let out = lab.roundup(&["run", "-q"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let rows: Vec<serde_json::Value> =
        serde_json::from_str(&stdout(&lab.roundup(&["summary", "--json"]))).unwrap();
    // Eight tests of five runs on each drive.
    for d in ["scratch", "sim"] {
        assert_eq!(rows.iter().filter(|r| r["drive"] == d).count(), 40, "{d}");
    }
    // The drive idles before every test but the first: on the file, 200 ms between the
    // last run of one test and the first of the next.
    let manifest = |test: &str, repeat: u32| -> serde_json::Value {
        let p = lab.path().join(format!(
            "results/drive=scratch/firmware=unknown/suite=crystaldiskmark-8/test={test}/variant=base/repeat={repeat}/manifest.json"
        ));
        serde_json::from_slice(&fs::read(p).unwrap()).unwrap()
    };
    let at = |m: &serde_json::Value, key: &str| {
        chrono::DateTime::parse_from_rfc3339(m[key].as_str().unwrap()).unwrap()
    };
    let before = manifest("seq1m-q8t1-read", 5);
    let after = manifest("seq1m-q1t1-read", 1);
    let idle = at(&after, "started_at") - at(&before, "finished_at");
    assert!(idle.num_milliseconds() >= 200, "{idle:?}");
    assert_eq!(after["of_repeats"], "best");
    // Each test shows its best run, the runs' mean beside it.
    let page = fs::read_to_string({
        assert!(lab.roundup(&["render", "-q"]).status.success());
        lab.path().join("site/suites/crystaldiskmark-8.html")
    })
    .unwrap();
    assert!(page.contains("best of 5 runs · higher is better"));
    assert!(page.contains("MB&#x2F;s, best of 5 runs</th>"));
    assert!(page.contains("MB&#x2F;s, mean of the runs</th>"));
    let runs: Vec<f64> = rows
        .iter()
        .filter(|r| r["drive"] == "scratch" && r["test"] == "rnd4k-q1t1-write")
        .map(|r| r["mb_per_s"].as_f64().unwrap())
        .collect();
    let best = runs.iter().copied().fold(0.0, f64::max);
    let mean = runs.iter().sum::<f64>() / runs.len() as f64;
    let section = &page[page.find("id=\"rnd4k-q1t1-write.base\"").unwrap()..];
    let row = &section[section.find("<td>Test Scratch file").unwrap()..];
    let row = &row[..row.find("</tr>").unwrap()];
    let cells: Vec<&str> = row
        .split("<td class=\"num\">")
        .skip(1)
        .map(|c| &c[..c.find("</td>").unwrap()])
        .collect();
    assert_eq!(cells[0], roundup::units::figure(best), "{row}");
    assert_eq!(cells[1], roundup::units::figure(mean), "{row}");
    // Bad input: the best of one run, an interval of a day.
    for (test, message) in [
        ("{id: t, title: T, operation: read, pattern: random, block_size: 4KiB, span: 1MiB, queue_depth: 1, count: 10, metric: iops, of_repeats: best}", "of_repeats: which figure of a test's repeats to show; expected with `repeats` of 2 or more"),
        ("{id: t, title: T, operation: read, pattern: random, block_size: 4KiB, span: 1MiB, queue_depth: 1, count: 10, metric: iops, interval: 24h}", "interval: expected at most an hour"),
        ("{id: t, title: T, operation: read, pattern: random, block_size: 4KiB, span: 1MiB, queue_depth: 1, count: 10, metric: iops, repeats: 2, of_repeats: peak}", "of_repeats"),
    ] {
        lab.write(
            "suites/bad.yaml",
            &format!("name: bad\ntitle: Bad\ntests:\n  - {test}\n"),
        );
        let err = stderr(&lab.roundup(&["check"]));
        assert!(err.contains("suites/bad.yaml:4:") && err.contains(message), "{err}");
    }
}
