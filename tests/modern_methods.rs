//! Today's review methods (docs/modern-methods.md) on real and simulated targets: the
//! CrystalDiskMark suites as shipped, made short. A binary of its own: its file target's
//! I/O would otherwise run beside the timing of the other pipeline tests.

mod common;

use std::fs;

use common::{stderr, stdout, TestLab};

/// Each test (a YAML flow mapping) alone in a suite is an error at its line, with `message`.
fn bad_tests(lab: &TestLab, cases: &[(&str, &str)]) {
    for (test, message) in cases {
        lab.write(
            "suites/bad.yaml",
            &format!("name: bad\ntitle: Bad\ntests:\n  - {test}\n"),
        );
        let err = stderr(&lab.roundup(&["check"]));
        assert!(
            err.contains("suites/bad.yaml:4:") && err.contains(message),
            "{err}"
        );
    }
    std::fs::remove_file(lab.path().join("suites/bad.yaml")).unwrap();
}

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
    // The explorer says so too.
    let data = fs::read_to_string(lab.path().join("site/explore-data.js")).unwrap();
    assert!(
        data.contains("\"of_runs\":\", best of 5 runs\""),
        "{}",
        &data[..200]
    );
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
    // Bad input: the best of one run, an interval of a day, a host's two seconds a request.
    bad_tests(
        &lab,
        &[
        ("{id: t, title: T, operation: read, pattern: random, block_size: 4KiB, span: 1MiB, queue_depth: 1, count: 10, metric: iops, of_repeats: best}", "of_repeats: which figure of a test's repeats to show; expected with `repeats` of 2 or more"),
        ("{id: t, title: T, operation: read, pattern: random, block_size: 4KiB, span: 1MiB, queue_depth: 1, count: 10, metric: iops, interval: 24h}", "interval: expected at most an hour"),
        ("{id: t, title: T, operation: read, pattern: random, block_size: 4KiB, span: 1MiB, queue_depth: 1, count: 10, metric: iops, host_latency: 2s}", "host_latency: expected at most a second of the host's own time a request"),
        ("{id: t, title: T, operation: read, pattern: random, block_size: 4KiB, span: 1MiB, queue_depth: 1, count: 10, metric: iops, repeats: 2, of_repeats: peak}", "of_repeats"),
        ("{id: t, title: T, kind: replay, trace: t.trace, queue_depth: 4, span: 1MiB, metric: iops, max_idle: 25ms}", "max_idle: idle gaps are kept only in `mode: timed` playback"),
        ("{id: t, title: T, operation: read, pattern: random, block_size: 4KiB, span: 1MiB, queue_depth: 1, count: 50, metric: lat_p99_us}", "metric: lat_p99_us needs 100 I/Os or more"),
        ],
    );
}

/// A suite of sweeps: queue depth (with a data pair beside it), write share and offered load.
const SWEEPS: &str = "name: sweeps
title: Sweeps
seed: 3
tests:
  - id: qd
    title: 4KB Random Write
    operation: write
    pattern: random
    block_size: 4KiB
    span: 16MiB
    queue_depth: 1
    count: 600
    metric: iops
    variants:
      data: [compressible, incompressible]
      queue_depth: [1, 2, 4, 8]
  - id: mix
    title: 4KB Random Mix
    operation: read
    pattern: random
    block_size: 4KiB
    span: 16MiB
    queue_depth: 4
    count: 600
    metric: mb_per_s
    variants:
      writes: [0%, 50%, 100%]
  - id: qos
    title: 4KB Random Read QoS
    operation: read
    pattern: random
    block_size: 4KiB
    span: 16MiB
    queue_depth: 16
    count: 600
    metric: lat_p99_us
    variants:
      rate: [500 IOPS, 1000 IOPS, 2000 IOPS]
";

#[test]
fn sweeps_chart_a_line_per_drive() {
    let lab = TestLab::new();
    lab.write("suites/sweeps.yaml", SWEEPS);
    lab.sim_drive("wide", "Wide", "1", 8);
    lab.sim_drive("narrow", "Narrow", "1", 1);
    let out = lab.roundup(&["run", "-q"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = lab.roundup(&["render", "-q"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let page = fs::read_to_string(lab.path().join("site/suites/sweeps.html")).unwrap();
    // A sweep for each data pattern; the two data patterns stay paired at each depth;
    // no pairs of queue depths.
    for id in [
        "qd.qd.data-compressible",
        "qd.qd.data-incompressible",
        "qd.data.qd-1",
        "qd.data.qd-8",
        "mix.wr.all",
        "qos.rate.all",
    ] {
        assert!(page.contains(&format!("id=\"{id}\"")), "{id}");
    }
    assert!(!page.contains("id=\"qd.qd.data-compressible_qd"));
    assert!(!page.contains("qd.qd.data-compressible_qd-1"));
    let svg = |id: &str| {
        fs::read_to_string(
            lab.path()
                .join(format!("site/charts/suites/sweeps/{id}.svg")),
        )
        .unwrap()
    };
    assert!(svg("qd.qd.data-incompressible").contains("queue depth (log scale)"));
    assert!(svg("mix.wr.all").contains("writes, % of I/Os"));
    assert!(svg("qos.rate.all").contains("delivered IOPS"));
    // The table beside it: a column per depth, in the suite's order.
    let section = &page[page.find("id=\"qd.qd.data-incompressible\"").unwrap()..];
    let head = &section[section.find(">Drive</th>").unwrap()..];
    let head = &head[..head.find("</tr>").unwrap()];
    let order: Vec<usize> = ["QD1", "QD2", "QD4", "QD8"]
        .iter()
        .map(|q| head.find(&format!(">{q}<")).unwrap())
        .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{head}");
    // Every plotted point in the CSV: a row per drive and depth; the wide drive's IOPS
    // grow with the depth, the one-unit drive's do not.
    let csv = fs::read_to_string(
        lab.path()
            .join("site/charts/suites/sweeps/qd.qd.data-incompressible.csv"),
    )
    .unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("drive,firmware,qd,qd_value,iops,delivered_iops")
    );
    let iops = |drive: &str, qd: &str| -> f64 {
        csv.lines()
            .find(|l| l.starts_with(&format!("{drive},1,{qd},")))
            .unwrap()
            .rsplit(',')
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    assert_eq!(lines.count(), 8);
    assert!(iops("wide", "QD8") > 3.0 * iops("wide", "QD1"), "{csv}");
    assert!(iops("narrow", "QD8") < 1.5 * iops("narrow", "QD1"), "{csv}");
    // The QoS curve's x is the IOPS each drive delivered: the offered load, where the
    // drive keeps up.
    let qos = fs::read_to_string(
        lab.path()
            .join("site/charts/suites/sweeps/qos.rate.all.csv"),
    )
    .unwrap();
    let delivered: f64 = qos
        .lines()
        .find(|l| l.starts_with("wide,1,500 IOPS offered,"))
        .unwrap()
        .rsplit(',')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!((delivered - 500.0).abs() < 25.0, "{qos}");
    // A review page shows the sweep with its drive highlighted.
    let review = fs::read_to_string(lab.path().join("site/drives/narrow.html")).unwrap();
    assert!(review.contains("id=\"sweeps.qd.qd.data-compressible\""));
    // An offered load above a drive's link is run, with a warning at its key.
    lab.write(
        "suites/sweeps.yaml",
        &SWEEPS.replace(
            "rate: [500 IOPS, 1000 IOPS, 2000 IOPS]",
            "rate: [500 IOPS, 1000 IOPS, 100000 IOPS]",
        ),
    );
    let out = lab.roundup(&["run", "-q", "--test", "qos"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    // One line for the drives it is too much for, by link rate.
    assert!(
        err.contains(
            "tests[2].variants.rate: 100000 IOPS (410 MB/s) is more than the links of 2 drives \
             carry (280 MB/s: narrow, wide): they are offered what they cannot take"
        ),
        "{err}"
    );
    assert!(!err.contains("1000 IOPS (4"), "{err}");
    // A sweep of one value is the test itself.
    lab.write(
        "suites/sweeps.yaml",
        &SWEEPS.replace("queue_depth: [1, 2, 4, 8]", "queue_depth: [4]"),
    );
    let err = stderr(&lab.roundup(&["check"]));
    assert!(
        err.contains("suites/sweeps.yaml:")
            && err.contains("variants.queue_depth: expected two values or more"),
        "{err}"
    );
}

#[test]
fn a_whole_drive_fill_is_charted_against_the_data_written() {
    let lab = TestLab::new();
    let suite = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("suites/modern-2026.yaml"),
    )
    .unwrap();
    // The shipped suite's fill alone.
    let fill =
        &suite[suite.find("  - id: fill\n").unwrap()..suite.find("  - id: heavy-full").unwrap()];
    lab.write(
        "suites/fill.yaml",
        &format!("name: fill\ntitle: Fill\nseed: 1\ntests:\n{fill}"),
    );
    // A small disk: its speed falls from the outer tracks to the inner, after the first
    // writes land in its 32 MiB buffer at the link's speed.
    let disk = common::repo_drive_file("samsung-spinpoint-f1-1tb")
        .replace("id: samsung-spinpoint-f1-1tb", "id: disk")
        .replace("capacity: 1TB", "capacity: 4GB");
    lab.write("drives/disk.yaml", &disk);
    lab.sim_drive("sim", "Sim", "1", 4);
    let out = lab.roundup(&["run", "-q"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let rows: Vec<serde_json::Value> =
        serde_json::from_str(&stdout(&lab.roundup(&["summary", "--json"]))).unwrap();
    let fill_of = |d: &str| rows.iter().find(|r| r["drive"] == d).unwrap()["fill"].clone();
    let disk = fill_of("disk");
    assert!(
        (disk["written_gb"].as_f64().unwrap() - 4.0).abs() < 0.01,
        "{disk}"
    );
    let cache = disk["cache_gb"].as_f64().unwrap();
    assert!((0.02..0.06).contains(&cache), "{disk}");
    assert!(
        disk["in_cache_mb_per_s"].as_f64().unwrap()
            > 2.0 * disk["after_cache_mb_per_s"].as_f64().unwrap(),
        "{disk}"
    );
    // The simple model writes at one speed.
    assert!(fill_of("sim")["cache_gb"].is_null());
    let out = lab.roundup(&["render", "-q"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let csv = fs::read_to_string(
        lab.path()
            .join("site/charts/suites/fill/fill.base.fill.csv"),
    )
    .unwrap();
    let speeds: Vec<f64> = csv
        .lines()
        .filter(|l| l.starts_with("disk,"))
        .map(|l| l.rsplit(',').next().unwrap().parse().unwrap())
        .collect();
    assert!(speeds.len() >= 400, "{}", speeds.len());
    let (head, tail) = (&speeds[20..40], &speeds[speeds.len() - 20..]);
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    assert!(
        mean(head) > 1.6 * mean(tail),
        "{} {}",
        mean(head),
        mean(tail)
    );
    let page = fs::read_to_string(lab.path().join("site/suites/fill.html")).unwrap();
    assert!(page.contains("id=\"fill.base.fill\""));
    assert!(page.contains("data written, GB"));
    assert!(page.contains(">no drop<"));
    // The table says what a drop is, as the analysis finds it (a fall below 85%).
    assert!(page.contains("drops by 15% or more"));
    // Passes need a sequential pattern and no other length.
    for (change, message) in [
        (
            "pattern: sequential",
            "pattern: random",
            "passes: a pass covers the span once in order",
        ),
        (
            "passes: 1",
            "passes: 1\n    count: 10",
            "passes: expected one of `duration`, `count` or `passes`",
        ),
    ]
    .map(|(a, b, m)| ((a, b), m))
    {
        lab.write(
            "suites/fill.yaml",
            &format!(
                "name: fill\ntitle: Fill\nseed: 1\ntests:\n{}",
                fill.replace(change.0, change.1)
            ),
        );
        let err = stderr(&lab.roundup(&["check"]));
        assert!(
            err.contains("suites/fill.yaml:") && err.contains(message),
            "{err}"
        );
    }
    // A fill on a target holding data roundup may not destroy (a file it did not create):
    // refused before anything runs, at the test's key, the file untouched.
    lab.write(
        "suites/fill.yaml",
        &format!("name: fill\ntitle: Fill\nseed: 1\ntests:\n{fill}"),
    );
    let theirs = lab.foreign_file_drive("theirs");
    let out = lab.roundup(&["run", "--drive", "theirs"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    let at = format!("suites/fill.yaml:{}:5: tests[0].passes: this test writes to drive theirs, and roundup may not:", 1 + 4 + fill.lines().position(|l| l.trim_start().starts_with("passes:")).unwrap());
    assert!(
        err.contains(&at) && err.contains("roundup did not create it"),
        "{err}"
    );
    assert!(fs::read(&theirs).unwrap().iter().all(|&b| b == 7));
}

/// The shipped modern-2026 suite's PTS test, its cells `duration` long.
fn pts_suite(duration: &str, samples: Option<&str>) -> String {
    let suite = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("suites/modern-2026.yaml"),
    )
    .unwrap();
    let test = &suite[suite.find("  - id: pts-iops\n").unwrap()..];
    assert!(test.contains("    duration: 1s\n"));
    let mut test = test.replace("    duration: 1s\n", &format!("    duration: {duration}\n"));
    if let Some(s) = samples {
        test = test.replace(
            "    metric: iops\n",
            &format!("    metric: iops\n    samples: {s}\n"),
        );
    }
    format!("name: pts\ntitle: PTS\nseed: 1\ntests:\n{test}")
}

/// The X25-M G2 made a 2 GB drive (its spare area kept), for a whole-drive test.
fn small_x25m() -> String {
    common::repo_drive_file("intel-x25m-g2-160")
        .replace("id: intel-x25m-g2-160", "id: x25m")
        .replace("capacity: 160GB", "capacity: 2GB")
        .replace("raw_capacity: 171.8GB", "raw_capacity: 2.15GB")
}

#[test]
fn snia_pts_runs_every_cell_in_each_round_until_steady() {
    let lab = TestLab::new();
    lab.write("suites/pts.yaml", &pts_suite("20ms", None));
    lab.write("drives/x25m.yaml", &small_x25m());
    lab.sim_drive("sim", "Sim", "1", 4);
    let out = lab.roundup(&["run", "-q"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let manifests: Vec<serde_json::Value> = lab
        .stored_manifests()
        .iter()
        .map(|p| {
            serde_json::from_slice(&fs::read(lab.path().join("results").join(p)).unwrap()).unwrap()
        })
        .collect();
    for drive in ["sim", "x25m"] {
        let cells: Vec<&serde_json::Value> =
            manifests.iter().filter(|m| m["drive"] == drive).collect();
        assert_eq!(cells.len(), 56, "{drive}: 8 block sizes × 7 mixes");
        // Every cell ran the same rounds, and shares the verdict of the tracked one.
        let verdict = &cells[0]["outcome"]["steady_state"];
        assert_eq!(verdict["tracked"], "iops of bs-4k_wr-100");
        let rounds = cells[0]["outcome"]["rounds"].as_array().unwrap().len();
        for c in &cells {
            let v = &c["outcome"]["steady_state"];
            assert_eq!(v["window_last"], verdict["window_last"], "{drive}");
            assert_eq!(v["reached"], verdict["reached"], "{drive}");
            assert_eq!(c["outcome"]["rounds"].as_array().unwrap().len(), rounds);
            // Its rounds back to back on its own clock, a round each 20 ms and the time
            // its last I/Os took to complete.
            let end = c["outcome"]["end_ns"].as_u64().unwrap();
            assert!(end >= rounds as u64 * 20_000_000, "{end}");
            let last = c["outcome"]["rounds"][rounds - 1]["end_ns"]
                .as_u64()
                .unwrap();
            assert_eq!(end, last);
        }
        assert_eq!(verdict["window_last"].as_u64().unwrap() as usize, rounds);
        assert_eq!(
            verdict["window_first"].as_u64().unwrap() as usize,
            rounds - 4
        );
        eprintln!("{drive}: {rounds} rounds, reached {}", verdict["reached"]);
    }
    // Neither drive ages over these short rounds (the X25-M's 4 KiB writes are bound by its
    // controller's time per write, not yet by garbage collection): steady at the first
    // window, the fifth round.
    let rounds_of = |drive: &str| {
        manifests
            .iter()
            .find(|m| m["drive"] == drive && m["variant"] == "bs-4k_wr-100")
            .unwrap()["outcome"]["rounds"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["iops"].as_f64().unwrap())
            .collect::<Vec<f64>>()
    };
    assert_eq!(rounds_of("sim").len(), 5);
    let x25m = rounds_of("x25m");
    assert_eq!(x25m.len(), 5, "{x25m:?}");
    // The figures are the window's: the summary's IOPS of the tracked cell is the mean of
    // its window rounds' (equal rounds: the same length each).
    let rows: Vec<serde_json::Value> =
        serde_json::from_str(&stdout(&lab.roundup(&["summary", "--json"]))).unwrap();
    let row = |drive: &str, variant: &str| {
        rows.iter()
            .find(|r| r["drive"] == drive && r["variant"] == variant)
            .unwrap()
            .clone()
    };
    let window = &x25m[x25m.len() - 5..];
    let mean = window.iter().sum::<f64>() / 5.0;
    let iops = row("x25m", "bs-4k_wr-100")["iops"].as_f64().unwrap();
    assert!((iops / mean - 1.0).abs() < 0.02, "{iops} {mean}");
    // Reads of 4 KiB outrun writes of 4 KiB, and 512 B reads outrun 1 MiB reads, in I/Os.
    let iops_of = |d: &str, v: &str| row(d, v)["iops"].as_f64().unwrap();
    assert!(iops_of("x25m", "bs-4k_wr-0") > 2.0 * iops_of("x25m", "bs-4k_wr-100"));
    assert!(iops_of("sim", "bs-512b_wr-0") > 5.0 * iops_of("sim", "bs-1m_wr-0"));
    // The site: a heat map and its table per drive on the suite page, the reviewed drive's
    // on its page; of the 56 cells only the tracked one has a bar chart.
    let out = lab.roundup(&["render", "-q"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let page = fs::read_to_string(lab.path().join("site/suites/pts.html")).unwrap();
    for d in ["sim", "x25m"] {
        assert!(
            page.contains(&format!("id=\"pts-iops.heatmap.{d}\"")),
            "{d}"
        );
    }
    assert!(page.contains("id=\"pts-iops.bs-4k_wr-100\""));
    assert!(!page.contains("id=\"pts-iops.bs-4k_wr-0\""));
    assert!(
        !page.contains("id=\"pts-iops.bs.wr-0\""),
        "no sweeps: the grid has them"
    );
    assert!(page.contains(">100&#x2F;0</th>") && page.contains(">0&#x2F;100</th>"));
    assert!(page.contains("read/write mix, %"));
    let csv = fs::read_to_string(
        lab.path()
            .join("site/charts/suites/pts/pts-iops.heatmap.x25m.csv"),
    )
    .unwrap();
    assert_eq!(csv.lines().count(), 1 + 56);
    let cell = csv.lines().find(|l| l.starts_with("x25m,4k,100,")).unwrap();
    assert_eq!(
        cell.rsplit(',').next().unwrap(),
        roundup::units::figure(iops)
    );
    let drive_page = fs::read_to_string(lab.path().join("site/drives/x25m.html")).unwrap();
    assert!(drive_page.contains("id=\"pts.pts-iops.heatmap\""));
}

#[test]
fn a_pts_cell_keeps_the_histogram_of_its_window_alone() {
    // The same cells kept as rows (every round) and as a histogram (the window's only):
    // the same figures.
    let mut figures = Vec::new();
    for samples in ["raw", "histogram"] {
        let lab = TestLab::new();
        lab.write("suites/pts.yaml", &pts_suite("10ms", Some(samples)));
        lab.write("drives/x25m.yaml", &small_x25m());
        let out = lab.roundup(&["run", "-q", "--test", "pts-iops"]);
        assert!(out.status.success(), "{}", stderr(&out));
        let rows: Vec<serde_json::Value> =
            serde_json::from_str(&stdout(&lab.roundup(&["summary", "--json"]))).unwrap();
        let of = |v: &str| {
            let r = rows.iter().find(|r| r["variant"] == v).unwrap();
            (
                r["iops"].as_f64().unwrap(),
                r["lat_mean_us"].as_f64().unwrap(),
                r["ios"].as_u64().unwrap(),
            )
        };
        figures.push([of("bs-4k_wr-100"), of("bs-128k_wr-35")]);
    }
    for (raw, hist) in figures[0].iter().zip(&figures[1]) {
        assert_eq!(raw.2, hist.2, "the window's I/Os");
        assert!((raw.0 / hist.0 - 1.0).abs() < 0.01, "{raw:?} {hist:?}");
        assert!((raw.1 / hist.1 - 1.0).abs() < 1e-9, "{raw:?} {hist:?}");
    }
}

#[test]
fn bursts_idle_for_their_duty_cycle_and_are_measured_while_busy() {
    let lab = TestLab::new();
    lab.write(
        "suites/burst.yaml",
        "name: burst\ntitle: Burst\nseed: 4\ntests:
  - id: steady
    title: 4KB Random Read
    operation: read
    pattern: random
    block_size: 4KiB
    span: 16MiB
    queue_depth: 1
    count: 2048
    metric: mb_per_s
  - id: burst
    title: 4KB Random Read, bursts
    operation: read
    pattern: random
    block_size: 4KiB
    span: 16MiB
    queue_depth: 1
    count: 2048
    burst: {size: 1MiB, duty_cycle: 20%}
    metric: mb_per_s
",
    );
    lab.sim_drive("sim", "Sim", "1", 4);
    lab.file_drive("scratch", "16MiB");
    let out = lab.roundup(&["run", "-q"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let manifest = |drive: &str, test: &str| -> serde_json::Value {
        let dir = if drive == "sim" { "1" } else { "unknown" };
        let p = lab.path().join(format!(
            "results/drive={drive}/firmware={dir}/suite=burst/test={test}/variant=base/repeat=1/manifest.json"
        ));
        serde_json::from_slice(&fs::read(p).unwrap()).unwrap()
    };
    let rows: Vec<serde_json::Value> =
        serde_json::from_str(&stdout(&lab.roundup(&["summary", "--json"]))).unwrap();
    let mbps = |d: &str, t: &str| {
        rows.iter()
            .find(|r| r["drive"] == d && r["test"] == t)
            .unwrap()["mb_per_s"]
            .as_f64()
            .unwrap()
    };
    for drive in ["sim", "scratch"] {
        let m = manifest(drive, "burst");
        let b = &m["outcome"]["burst"];
        // 2048 reads of 4 KiB: eight bursts of 1 MiB.
        assert_eq!(b["bursts"], 8, "{drive}: {b}");
        let (busy, idle) = (
            b["busy_ns"].as_f64().unwrap(),
            b["idle_ns"].as_f64().unwrap(),
        );
        // Four times each burst's time idle after it, but the last (the test ends there):
        // exactly 3.5 times the bursts' time on the simulated drive, whose bursts take
        // the same time each; a real one's vary (a last burst that a busy machine slowed
        // left the file's idle time at 0.65 of its busy time in one CI run), so there
        // the idle time is above none and below four times the bursts'.
        if drive == "sim" {
            assert!((idle / busy - 3.5).abs() < 1e-3, "{drive}: {b}");
        } else {
            assert!(idle > 0.0 && idle < 4.0 * busy, "{drive}: {b}");
        }
        // The queue's clock shows the idle time spent.
        let end = m["outcome"]["end_ns"].as_f64().unwrap();
        assert!(end > (busy + idle) * 0.98, "{drive}: {end} {b}");
        eprintln!(
            "{drive}: {} MB/s in bursts, {} MB/s steady",
            mbps(drive, "burst"),
            mbps(drive, "steady")
        );
    }
    // The simulated drive reads at the same speed in bursts as without them: its figure is
    // over the bursts' time, not the idle time.
    let (burst, steady) = (mbps("sim", "burst"), mbps("sim", "steady"));
    assert!((burst / steady - 1.0).abs() < 0.02, "{burst} {steady}");
    // Bad input, at file:line:column.
    for (change, message) in [
        ("duty_cycle: 20%", "duty_cycle: 0%"),
        ("duty_cycle: 20%", "duty_cycle: 1.5"),
    ] {
        let text = fs::read_to_string(lab.path().join("suites/burst.yaml"))
            .unwrap()
            .replace(change, message);
        lab.write("suites/bad.yaml", &text.replace("name: burst", "name: bad"));
        let err = stderr(&lab.roundup(&["check"]));
        assert!(
            err.contains("suites/bad.yaml:22:")
                && err.contains("expected a share of the time above 0%"),
            "{err}"
        );
    }
    fs::remove_file(lab.path().join("suites/bad.yaml")).unwrap();
    bad_tests(
        &lab,
        &[
        ("{id: t, title: T, operation: read, pattern: random, block_size: 4KiB, span: 1MiB, queue_depth: 1, count: 10, metric: iops, rate: 100 IOPS, burst: {size: 1MiB, duty_cycle: 20%}}", "burst: expected without `rate` and `steady_state`"),
        ("{id: t, title: T, operation: read, pattern: random, block_size: 4KiB, span: 1MiB, queue_depth: 1, duration: 1s, metric: iops, steady_state: {max_rounds: 5, round_major: bs-8k}, variants: {block_size: [4KiB, 16KiB]}}", "steady_state.round_major: expected one of the test's variants (bs-4k, bs-16k), found `bs-8k`"),
        ("{id: t, title: T, operation: read, pattern: random, block_size: 4KiB, span: 1MiB, queue_depth: 1, duration: 1s, metric: iops, steady_state: {max_rounds: 5, round_major: base}}", "steady_state.round_major: a round runs every variant of the test"),
        ("{id: t, title: T, operation: read, pattern: random, block_size: 4KiB, span: 1MiB, queue_depth: 1, duration: 1s, metric: iops, repeats: 2, steady_state: {max_rounds: 5, round_major: bs-4k}, variants: {block_size: [4KiB, 16KiB]}}", "repeats: a round-major test runs every variant in each of its rounds"),
        ("{id: t, title: T, operation: read, pattern: random, block_size: 4KiB, span: 1MiB, queue_depth: 1, duration: 1s, metric: iops, samples: both, steady_state: {max_rounds: 5, round_major: bs-4k}, variants: {block_size: [4KiB, 16KiB]}}", "samples: a round-major test keeps"),
        ],
    );
}
